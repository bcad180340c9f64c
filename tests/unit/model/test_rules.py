"""Each rule, table-driven on in-memory inventories: a failing case naming the data path, and a
passing case right at the boundary, so the rule is shown to be neither too loose nor too strict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpunet.model.build import build_fabric
from gpunet.model.errors import InventoryInvalidError
from tests.unit.model.helpers import fixtures, raw_inventory

fabric, qos, nic, port = fixtures.fabric, fixtures.qos, fixtures.nic, fixtures.port

Mutation = Callable[[dict[str, Any]], Any]

# (rule, passing mutation at the boundary, failing mutation, data path of the problem)
RULES: list[tuple[str, Mutation, Mutation, str]] = [
    (
        "switch model known",
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_switch_model="SN5600"),
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_switch_model="SN9999"),
        "leaf02.gpunet_switch_model",
    ),
    (
        "switch model runs the platform",
        lambda inv: inv["host_vars"]["spine01"].update(gpunet_switch_model="SN5600"),
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_switch_model="Z9864F"),
        "leaf02.gpunet_switch_model",
    ),
    (
        "port name has the platform's form",
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp9s3", "speed_gbps": 100}),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append(
            {"name": "Ethernet9", "speed_gbps": 100}
        ),
        "leaf02.gpunet_ports[3].name",
    ),
    (
        "port name within the model's front panel",
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp64s0", "speed_gbps": 100}),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp65s0", "speed_gbps": 100}),
        "leaf02.gpunet_ports[3].name",
    ),
    (
        "no more ports than the model has",
        # Cages 4-64 broken out 8 x 100G: all the SN5600 holds beside the three 2 x 400G cages in use.
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].extend(
            {"name": f"swp{4 + i // 8}s{i % 8}", "speed_gbps": 100} for i in range(61 * 8)
        ),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].extend(
            {"name": f"swp{4 + i // 10}s{i % 10}", "speed_gbps": 100} for i in range(510)
        ),
        "leaf02.gpunet_ports",
    ),
    (
        "400G on 4 of an 800G cage's 8 lanes is a child of a 2x breakout (Cumulus swp<cage>s<k>)",
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp9s1", "speed_gbps": 400}),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp9", "speed_gbps": 400}),
        "leaf02.gpunet_ports[3].name",
    ),
    (
        "400G on all 8 lanes of an 800G cage is the unsplit port",
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append(
            {"name": "swp9", "speed_gbps": 400, "lanes": 8}
        ),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append(
            {"name": "swp9s1", "speed_gbps": 400, "lanes": 8}
        ),
        "leaf02.gpunet_ports[3].name",
    ),
    (
        "one cage runs one breakout mode",
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp1s1", "speed_gbps": 400}),
        lambda inv: inv["host_vars"]["leaf02"]["gpunet_ports"].append({"name": "swp1s1", "speed_gbps": 200}),
        "leaf02.gpunet_ports[3].lanes",
    ),
    (
        "SONiC child port at the first lane of its share of the cage (Ethernet<base + lane>)",
        lambda inv: inv["host_vars"]["spine01"]["gpunet_ports"].append(
            {"name": "Ethernet20", "speed_gbps": 400}
        ),
        lambda inv: inv["host_vars"]["spine01"]["gpunet_ports"].append(
            {"name": "Ethernet18", "speed_gbps": 400}
        ),
        "spine01.gpunet_ports[2].name",
    ),
    (
        "EOS 400G on a 100G-SerDes cage starts at lane 1 or 5",
        lambda inv: inv["host_vars"]["leaf01"]["gpunet_ports"].append(
            {"name": "Ethernet1/5", "speed_gbps": 400}
        ),
        lambda inv: inv["host_vars"]["leaf01"]["gpunet_ports"].append(
            {"name": "Ethernet1/3", "speed_gbps": 400}
        ),
        "leaf01.gpunet_ports[3].name",
    ),
    (
        "a lane count the SerDes can carry the speed on",
        lambda inv: inv["host_vars"]["leaf01"]["gpunet_ports"].append(
            {"name": "Ethernet9/1", "speed_gbps": 400, "lanes": 8}
        ),
        lambda inv: inv["host_vars"]["leaf01"]["gpunet_ports"].append(
            {"name": "Ethernet9/1", "speed_gbps": 400, "lanes": 2}
        ),
        "leaf01.gpunet_ports[3].lanes",
    ),
    (
        "port speed the model can run",
        lambda inv: (
            inv["host_vars"]["leaf01"].update(gpunet_switch_model="7800R3"),
            inv["host_vars"]["leaf01"]["gpunet_ports"].append({"name": "Ethernet4/1", "speed_gbps": 400}),
        ),
        lambda inv: (
            inv["host_vars"]["leaf01"].update(gpunet_switch_model="7800R3"),
            inv["host_vars"]["leaf01"]["gpunet_ports"].append({"name": "Ethernet4/1", "speed_gbps": 800}),
        ),
        "leaf01.gpunet_ports[3].speed_gbps",
    ),
    (
        "ecn min below max",
        lambda inv: qos(inv).update(ecn={"min_threshold_kb": 999, "max_threshold_kb": 1000}),
        lambda inv: qos(inv).update(ecn={"min_threshold_kb": 1000, "max_threshold_kb": 1000}),
        "gpunet_fabric.qos.ecn.min_threshold_kb",
    ),
    (
        "ecn plausible",
        lambda inv: qos(inv).update(ecn={"min_threshold_kb": 9, "max_threshold_kb": 32768}),
        lambda inv: qos(inv).update(ecn={"min_threshold_kb": 8, "max_threshold_kb": 32768}),
        "gpunet_fabric.qos.ecn.min_threshold_kb",
    ),
    (
        "dscp range",
        lambda inv: qos(inv).update(roce_dscp=63),
        lambda inv: qos(inv).update(roce_dscp=64),
        "gpunet_fabric.qos.roce_dscp",
    ),
    (
        "priority range",
        lambda inv: qos(inv).update(cnp_priority=6),
        lambda inv: qos(inv).update(cnp_priority=8),
        "gpunet_fabric.qos.cnp_priority",
    ),
    (
        "roce dscp differs from cnp",
        lambda inv: qos(inv).update(cnp_dscp=27),
        lambda inv: qos(inv).update(cnp_dscp=26),
        "gpunet_fabric.qos.cnp_dscp",
    ),
    (
        "lossless queue exists",
        lambda inv: qos(inv).update(
            lossless_priority=4,
            queues=[
                {"name": "default", "traffic_class": 0, "bandwidth_percent": 50},
                {"name": "roce", "traffic_class": 4, "bandwidth_percent": 50},
                {"name": "cnp", "traffic_class": 6, "strict": True},
            ],
        ),
        lambda inv: qos(inv).update(lossless_priority=4),
        "gpunet_fabric.qos.lossless_priority",
    ),
    (
        "shares sum to 100",
        lambda inv: qos(inv).update(
            queues=[
                {"name": "default", "traffic_class": 0, "bandwidth_percent": 30},
                {"name": "roce", "traffic_class": 3, "bandwidth_percent": 70},
                {"name": "cnp", "traffic_class": 6, "strict": True},
            ]
        ),
        lambda inv: qos(inv).update(
            queues=[
                {"name": "default", "traffic_class": 0, "bandwidth_percent": 30},
                {"name": "roce", "traffic_class": 3, "bandwidth_percent": 69},
                {"name": "cnp", "traffic_class": 6, "strict": True},
            ]
        ),
        "gpunet_fabric.qos.queues",
    ),
    (
        "host mtu fits",
        lambda inv: fabric(inv).update(mtu=9000, host_mtu=9000),
        lambda inv: fabric(inv).update(mtu=9000, host_mtu=9001),
        "gpunet_fabric.host_mtu",
    ),
    (
        "nccl port range",
        # perftest listens on 18515 + rail, and the incast stage on up to 4 ports a rail: 18515-18522
        # for the two rails of the minimal inventory
        lambda inv: fabric(inv)["firewall"].update(nccl_port_range=[18523, 65535]),
        lambda inv: fabric(inv)["firewall"].update(nccl_port_range=[18522, 65535]),
        "gpunet_fabric.firewall.nccl_port_range",
    ),
    (
        "nic speed matches port",
        lambda inv: (
            nic(inv, "gpu01", 0).update(speed_gbps=200),
            port(inv, "leaf01", 0).update(speed_gbps=200),
        ),
        lambda inv: nic(inv, "gpu01", 0).update(speed_gbps=200),
        "gpu01.gpunet_nics[0].speed_gbps",
    ),
    (
        "nic address unique",
        lambda inv: nic(inv, "gpu02", 0).update(ip="198.51.100.14/28"),
        lambda inv: nic(inv, "gpu02", 0).update(ip="198.51.100.1/28"),
        "gpu02.gpunet_nics[0].ip",
    ),
    (
        "management address unique (per SSH port)",
        lambda inv: inv["host_vars"]["leaf02"].update(ansible_host="192.0.2.11", ansible_port=2222),
        lambda inv: inv["host_vars"]["leaf02"].update(ansible_host="192.0.2.11"),
        "leaf02.ansible_host",
    ),
    (
        "gpunet_switch_asics on SONiC only",
        lambda inv: inv["host_vars"]["spine01"].update(gpunet_switch_asics=2),
        lambda inv: inv["host_vars"]["leaf01"].update(gpunet_switch_asics=2),
        "leaf01.gpunet_switch_asics",
    ),
    (
        "gpunet_switch_asics on SONiC only, even one ASIC",
        lambda inv: inv["host_vars"]["spine01"].update(gpunet_switch_asics=1),
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_switch_asics=1),
        "leaf02.gpunet_switch_asics",
    ),
    (
        "platform known",
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_platform="cumulus"),
        lambda inv: inv["host_vars"]["leaf02"].update(gpunet_platform="onyx"),
        "leaf02.gpunet_platform",
    ),
    (
        "cabling agrees from both ends",
        lambda inv: (
            nic(inv, "gpu01", 0).update(switch_port="Ethernet9/1"),
            port(inv, "leaf01", 0).update(name="Ethernet9/1"),
        ),
        lambda inv: nic(inv, "gpu01", 0).update(switch_port="Ethernet2/1"),
        "gpu01.gpunet_nics[0].switch_port",
    ),
    (
        "unknown keys rejected",
        lambda inv: inv["host_vars"]["gpu01"].update(gpunet_hardware={"gpus": False, "reason": "lab"}),
        lambda inv: inv["host_vars"]["gpu01"].update(gpunet_hardware={"gpu": False}),
        "gpu01.gpunet_hardware.gpu",
    ),
]


@pytest.mark.parametrize(("rule", "passing", "failing", "path"), RULES, ids=[r[0] for r in RULES])
def test_rule(rule: str, passing: Mutation, failing: Mutation, path: str) -> None:
    build_fabric(raw_inventory(passing))  # must not raise

    with pytest.raises(InventoryInvalidError) as caught:
        build_fabric(raw_inventory(failing))
    assert path in [p.path for p in caught.value.problems], "\n".join(map(str, caught.value.problems))


def test_every_problem_is_reported_not_just_the_first() -> None:
    def three_mistakes(inv: dict[str, Any]) -> None:
        qos(inv).update(cnp_dscp=26)
        nic(inv, "gpu02", 1).update(speed_gbps=200)
        inv["host_vars"]["leaf02"].update(gpunet_platform="onyx")

    with pytest.raises(InventoryInvalidError) as caught:
        build_fabric(raw_inventory(three_mistakes))
    assert {p.path for p in caught.value.problems} == {
        "gpunet_fabric.qos.cnp_dscp",
        "gpu02.gpunet_nics[1].speed_gbps",
        "leaf02.gpunet_platform",
    }


def test_problem_line_names_path_value_and_expectation() -> None:
    with pytest.raises(InventoryInvalidError) as caught:
        build_fabric(raw_inventory(lambda inv: qos(inv).update(roce_dscp=64)))
    assert str(caught.value.problems[0]) == "gpunet_fabric.qos.roce_dscp: too large (got 64, expected <= 63)"


def test_defaults_fill_what_the_operator_leaves_out() -> None:
    built = build_fabric(raw_inventory())
    assert (built.mtu, built.host_mtu, built.transport) == (9216, 9000, "roce")
    assert (built.qos.roce_dscp, built.qos.cnp_dscp, built.qos.lossless_priority, built.qos.cnp_priority) == (
        26,
        48,
        3,
        6,
    )
    assert built.qos.roce_traffic_class_byte == 106
    assert [q.traffic_class for q in built.qos.queues] == [0, 3, 6]
    assert built.firewall.nccl_port_range == (50000, 51000)


def test_ports_resolve_cable_mtu_and_lossless() -> None:
    def tweak(inv: dict[str, Any]) -> None:
        port(inv, "leaf01", 1).pop("cable_length_m")
        port(inv, "leaf01", 0).update(mtu=9100)
        inv["host_vars"]["leaf01"]["gpunet_ports"].append({"name": "Ethernet9/1", "speed_gbps": 100})

    leaf = build_fabric(raw_inventory(tweak)).switches["leaf01"]
    assert leaf.ports[0].mtu == 9100 and leaf.ports[0].cable_length_m == 3
    assert leaf.ports[1].mtu == 9216 and leaf.ports[1].cable_length_m == 100  # fabric defaults
    assert leaf.ports[0].peer is not None and leaf.ports[0].peer.kind == "host"
    assert leaf.ports[2].peer is not None and leaf.ports[2].peer.kind == "switch"
    unused = leaf.port("Ethernet9/1")
    assert unused is not None and unused.peer is None and not unused.lossless


def test_role_variables_are_allowed_beside_model_keys() -> None:
    from dataclasses import replace

    raw = raw_inventory(lambda inv: inv["host_vars"]["gpu01"].update(gpunet_chrony_makestep="1 3"))
    with pytest.raises(InventoryInvalidError):
        build_fabric(raw)
    build_fabric(
        replace(
            raw,
            role_variables=frozenset({"gpunet_chrony_makestep"}),
            hostvars={
                name: {k: v for k, v in hv.items() if k != "gpunet_chrony_makestep"}
                for name, hv in raw.hostvars.items()
            },
        )
    )
