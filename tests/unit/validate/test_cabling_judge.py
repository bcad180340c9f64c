"""The cabling judge, table-driven: small fabrics built with the model's own constructors, LLDP
neighbour captures in the `lldpctl-json` parse's shape, one case per finding class."""

from __future__ import annotations

from ipaddress import IPv4Interface
from typing import Any

import pytest

from gpunet.model import Ecn, Fabric, Firewall, GpuHost, Gpus, Nic, Ntp, Peer, Pfc, Qos, Switch, SwitchPort
from gpunet.validate.cabling import intended_links, judge_cabling

# Two rail leaves (rail 0: leaf0, rail 1: leaf1), one spine; gpu01 and gpu02 with a NIC per rail.
# leafN Ethernet0 -> gpu01, Ethernet4 -> gpu02, Ethernet8 unused, Ethernet48 -> spine01 EthernetN.
HOSTS = ("gpu01", "gpu02")
HOST_PORT = {"gpu01": "Ethernet0", "gpu02": "Ethernet4"}


def fabric() -> Fabric:
    switches = {}
    for rail in (0, 1):
        ports = [
            SwitchPort(HOST_PORT[host], 400, Peer("host", host, f"mlx5_{rail}"), 5, 9100, True)
            for host in HOSTS
        ]
        ports.append(SwitchPort("Ethernet8", 400, None, 5, 9100, True))
        ports.append(
            SwitchPort("Ethernet48", 400, Peer("switch", "spine01", f"Ethernet{rail}"), 5, 9100, True)
        )
        switches[f"leaf{rail}"] = Switch(f"leaf{rail}", "sonic", "leaf", "192.0.2.1", 22, tuple(ports))
    switches["spine01"] = Switch(
        "spine01",
        "sonic",
        "spine",
        "192.0.2.9",
        22,
        tuple(
            SwitchPort(f"Ethernet{r}", 400, Peer("switch", f"leaf{r}", "Ethernet48"), 5, 9100, True)
            for r in (0, 1)
        ),
    )
    hosts = {
        host: GpuHost(
            host,
            "192.0.2.100",
            Gpus(8, "H100"),
            tuple(
                Nic(
                    f"mlx5_{rail}",
                    f"ens{rail}np0",
                    400,
                    rail,
                    f"leaf{rail}",
                    HOST_PORT[host],
                    IPv4Interface(f"10.{rail}.0.{number}/24"),
                )
                for rail in (0, 1)
            ),
        )
        for number, host in enumerate(HOSTS, 1)
    }
    qos = Qos("dscp", 26, 48, 3, 6, Ecn(150, 1500, 5), Pfc(True, 200, 400, 5), ())
    return Fabric(
        "t", "roce", 9100, 9000, qos, Ntp((), 1.0), Firewall((), (), (50000, 51000)), switches, hosts
    )


def neighbour(
    interface: str, sysname: str | None, port: str, *, port_by_descr: bool = False, port_type: str = "ifname"
) -> dict[str, Any]:
    """One entry as parse_lldpctl_json returns it: host lldpd advertises MAC + ifname description."""
    if port_by_descr:
        port_entry = {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}, "descr": port}
    else:
        port_entry = {"id": {"type": port_type, "value": port}, "descr": None}
    return {
        "interface": interface,
        "via": "LLDP",
        "rid": "1",
        "age": None,
        "chassis": {"name": sysname, "id": {"type": "mac", "value": "0c:42:a1:00:00:01"}, "descr": None},
        "port": port_entry,
    }


# The plan, as each device's lldpctl sees it: (device, local interface, far device, far port).
PLAN = [
    *[(h, f"ens{r}np0", f"leaf{r}", HOST_PORT[h]) for h in HOSTS for r in (0, 1)],
    *[(f"leaf{r}", HOST_PORT[h], h, f"ens{r}np0") for h in HOSTS for r in (0, 1)],
    *[(f"leaf{r}", "Ethernet48", "spine01", f"Ethernet{r}") for r in (0, 1)],
    *[("spine01", f"Ethernet{r}", f"leaf{r}", "Ethernet48") for r in (0, 1)],
]


def captures(rows: list[tuple[str, str, str, str]], *, absent: tuple[str, ...] = ()) -> dict[str, Any]:
    result: dict[str, Any] = {
        device: {"form": "json", "neighbours": []} for device in (*HOSTS, "leaf0", "leaf1", "spine01")
    }
    for device, local, far, far_port, *port_type in rows:
        by_descr = far in HOSTS
        entry = neighbour(
            local, far, far_port, port_by_descr=by_descr, port_type=(port_type or ["ifname"])[0]
        )
        result[device]["neighbours"].append(entry)
    for device in absent:
        result[device] = None
    return result


def without(rows, *drop):
    return [row for row in rows if row[:2] not in drop]


def replaced(rows, changes: dict[tuple[str, str], tuple[str, str]]):
    return [(d, local, *changes.get((d, local), rest)) for d, local, *rest in rows]


# gpu01's and gpu02's rail-0 cables swapped at leaf0 (each lands in the other's port).
SWAP_AT_LEAF = replaced(
    PLAN,
    {
        ("gpu01", "ens0np0"): ("leaf0", "Ethernet4"),
        ("gpu02", "ens0np0"): ("leaf0", "Ethernet0"),
        ("leaf0", "Ethernet0"): ("gpu02", "ens0np0"),
        ("leaf0", "Ethernet4"): ("gpu01", "ens0np0"),
    },
)
# gpu01's two NICs' cables swapped at the host: rail 0 NIC on leaf1, rail 1 NIC on leaf0.
SWAP_AT_HOST = replaced(
    PLAN,
    {
        ("gpu01", "ens0np0"): ("leaf1", "Ethernet0"),
        ("gpu01", "ens1np0"): ("leaf0", "Ethernet0"),
        ("leaf0", "Ethernet0"): ("gpu01", "ens1np0"),
        ("leaf1", "Ethernet0"): ("gpu01", "ens0np0"),
    },
)
# gpu01 rail 0 into leaf1's free port (the wrong rail); leaf0 Ethernet0 dark.
WRONG_RAIL = [
    *replaced(without(PLAN, ("leaf0", "Ethernet0")), {("gpu01", "ens0np0"): ("leaf1", "Ethernet8")}),
    ("leaf1", "Ethernet8", "gpu01", "ens0np0"),
]
# gpu01 rail 0 into leaf0's free port Ethernet8 (right leaf, wrong port).
WRONG_PORT = [
    *replaced(without(PLAN, ("leaf0", "Ethernet0")), {("gpu01", "ens0np0"): ("leaf0", "Ethernet8")}),
    ("leaf0", "Ethernet8", "gpu01", "ens0np0"),
]


def finding_classes(rows, **kwargs) -> list[str]:
    return sorted(f.kind for f in judge_cabling(fabric(), captures(rows, **kwargs)).findings)


CASES = [
    ("cabled as planned", PLAN, {}, []),
    (
        "missing: gpu02 rail 1 dark at both ends",
        without(PLAN, ("gpu02", "ens1np0"), ("leaf1", "Ethernet4")),
        {},
        ["missing"],
    ),
    (
        "missing: spine uplink dark",
        without(PLAN, ("leaf1", "Ethernet48"), ("spine01", "Ethernet1")),
        {},
        ["missing"],
    ),
    ("swapped at the leaf", SWAP_AT_LEAF, {}, ["swapped"]),
    ("swapped at the host", SWAP_AT_HOST, {}, ["swapped"]),
    ("swapped at the leaf, hosts not captured", SWAP_AT_LEAF, {"absent": HOSTS}, ["swapped"]),
    ("NIC on the wrong rail", WRONG_RAIL, {}, ["nic_wrong_rail"]),
    ("wrong port on its leaf", WRONG_PORT, {}, ["wrong_neighbour"]),
    (
        "spine uplink in the wrong spine port",
        replaced(PLAN, {("leaf0", "Ethernet48"): ("spine01", "Ethernet7")}),
        {},
        ["wrong_neighbour"],
    ),
    (
        "extra neighbour on a free port",
        [*PLAN, ("leaf0", "Ethernet8", "gpu09", "eth0")],
        {},
        ["extra_neighbour"],
    ),
    (
        "a second neighbour beside the right one",
        [*PLAN, ("leaf0", "Ethernet0", "spine01", "Ethernet5")],
        {},
        ["extra_neighbour"],
    ),
    (
        "management neighbours are not judged",
        [*PLAN, ("gpu01", "eno1", "mgmt-sw", "ge-0/0/1"), ("leaf0", "eth0", "mgmt-sw", "ge-0/0/2")],
        {},
        [],
    ),
]


@pytest.mark.parametrize(("case", "rows", "kwargs", "classes"), CASES, ids=[c[0] for c in CASES])
def test_finding_classes(case: str, rows, kwargs, classes: list[str]) -> None:
    assert finding_classes(rows, **kwargs) == classes


def test_the_plan_counts_every_cable_once() -> None:
    links = intended_links(fabric())
    assert len(links) == 6  # 4 NICs, 2 uplinks
    verdict = judge_cabling(fabric(), captures(PLAN))
    assert (verdict.as_planned, verdict.one_end, verdict.not_checked) == (6, [], [])


def test_a_swap_names_both_cables_and_the_swap_that_fixes_them() -> None:
    (finding,) = judge_cabling(fabric(), captures(SWAP_AT_LEAF)).findings
    assert "gpu01 mlx5_0 (ens0np0) reaches leaf0 Ethernet4" in finding.message
    assert "gpu02 mlx5_0 (ens0np0) reaches leaf0 Ethernet0" in finding.message
    assert finding.fix.startswith("swap the cables in leaf0 Ethernet0 and leaf0 Ethernet4")
    assert finding.seen_from == "both ends"
    (at_host,) = judge_cabling(fabric(), captures(SWAP_AT_HOST)).findings
    assert at_host.fix.startswith("swap the cables in gpu01 mlx5_0 (ens0np0) and gpu01 mlx5_1 (ens1np0)")


def test_every_finding_names_both_ends_and_a_fix() -> None:
    for _, rows, kwargs, _classes in CASES:
        for finding in judge_cabling(fabric(), captures(rows, **kwargs)).findings:
            assert len(finding.ends) >= 2 and finding.fix and finding.message
            assert {"host", "switch"} & {key for end in finding.as_dict()["ends"] for key in end}


def test_wrong_rail_names_the_nic_the_leaf_and_the_move() -> None:
    (finding,) = judge_cabling(fabric(), captures(WRONG_RAIL)).findings
    assert "rail 0 NIC gpu01 mlx5_0 (ens0np0) is on leaf1, a leaf of rail 1" in finding.message
    assert finding.fix == "move the cable of gpu01 mlx5_0 (ens0np0) from leaf1 Ethernet8 to leaf0 Ethernet0"
    assert [end.as_dict() for end in finding.ends][:2] == [
        {"host": "gpu01", "nic": "mlx5_0", "netdev": "ens0np0"},
        {"switch": "leaf0", "port": "Ethernet0"},
    ]


def test_a_link_seen_from_one_end_is_judged_from_that_end_and_says_so() -> None:
    verdict = judge_cabling(fabric(), captures(PLAN, absent=("gpu01",)))
    assert verdict.findings == [] and verdict.as_planned == 6
    assert [reason for _, reason in verdict.one_end] == ["judged from one end: gpu01 was not captured"] * 2
    # The host sends no LLDP: the leaf sees nothing, the host sees its leaf.
    rows = without(PLAN, ("leaf0", "Ethernet0"))
    (only,) = judge_cabling(fabric(), captures(rows)).one_end
    assert "leaf0 Ethernet0 sees no neighbour" in only[1]
    missing = judge_cabling(fabric(), captures(without(PLAN, ("leaf0", "Ethernet0")), absent=("gpu01",)))
    (finding,) = missing.findings
    assert finding.kind == "missing" and "gpu01 not captured, judged from the other end" in finding.seen_from


def test_links_with_neither_end_captured_are_not_checked() -> None:
    verdict = judge_cabling(fabric(), captures(PLAN, absent=("gpu01", "leaf0")))
    assert [str(link) for link, _ in verdict.not_checked] == ["gpu01 mlx5_0 (ens0np0) <-> leaf0 Ethernet0"]


def test_sysnames_resolve_case_insensitively_and_by_first_label() -> None:
    rows = replaced(PLAN, {("gpu01", "ens0np0"): ("LEAF0.dc1.example", "Ethernet0")})
    assert finding_classes(rows) == []


def test_a_port_name_the_inventory_does_not_hold_is_judged_from_the_other_end() -> None:
    # SONiC's lldpmgrd advertises the port alias as a locally assigned port id: the host sees
    # leaf0 'etp1', and the leaf's own capture (its kernel port name) carries the judgement.
    aliased = [*without(PLAN, ("gpu01", "ens0np0")), ("gpu01", "ens0np0", "leaf0", "etp1", "local")]
    verdict = judge_cabling(fabric(), captures(aliased))
    assert verdict.findings == [] and verdict.as_planned == 6
    ((link, reason),) = verdict.one_end
    assert str(link) == "gpu01 mlx5_0 (ens0np0) <-> leaf0 Ethernet0"
    assert reason == (
        "judged from one end: gpu01 mlx5_0 (ens0np0) sees leaf0 port 'etp1', a name the inventory does not "
        "hold for leaf0"
    )
    # With the leaf not captured there is nothing to judge the port by.
    alone = judge_cabling(fabric(), captures(aliased, absent=("leaf0",)))
    assert [str(link) for link, _ in alone.not_checked] == ["gpu01 mlx5_0 (ens0np0) <-> leaf0 Ethernet0"]
    assert alone.not_checked[0][1].startswith("not judged: gpu01 mlx5_0 (ens0np0) sees leaf0 port 'etp1'")
    # An interface name outside the inventory is another port: a wrong neighbour.
    other_port = replaced(PLAN, {("gpu01", "ens0np0"): ("leaf0", "Ethernet96")})
    assert [f.kind for f in judge_cabling(fabric(), captures(other_port)).findings] == ["wrong_neighbour"]
    # The leaf seeing another host there is still a wrong neighbour.
    crossed = replaced(aliased, {("leaf0", "Ethernet0"): ("gpu02", "ens1np0")})
    assert [f.kind for f in judge_cabling(fabric(), captures(crossed)).findings] == ["wrong_neighbour"]
