"""roles/lldpd: the interfaces lldpd runs on, its drop-in, and when the role skips."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from ansible.errors import AnsibleError

from gpunet.hosts.lldpd import interface_pattern
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_role_template, render_value, role_defaults

ROLE = REPO_ROOT / "roles/lldpd"
NICS = [{"name": f"mlx5_{i}", "netdev": f"rail{i}"} for i in range(3)]


@pytest.mark.parametrize(
    ("nics", "pattern"),
    [
        (NICS, "rail0,rail1,rail2"),
        (
            [{"name": "mlx5_1", "netdev": "ens1f1np1"}, {"name": "mlx5_0", "netdev": "ens1f0np0"}],
            "ens1f1np1,ens1f0np0",
        ),
        ([{"name": "mlx5_0", "netdev": "eth2"}, {"name": "mlx5_0b", "netdev": "eth2"}], "eth2"),
        ([], ""),
    ],
)
def test_the_pattern_is_the_netdevs_in_inventory_order_each_once(nics: list[dict], pattern: str) -> None:
    assert interface_pattern(nics) == pattern


@pytest.mark.parametrize(
    ("netdev", "why"),
    [
        ("eth*", "holds *"),
        ("eth1,eth2", "holds ,"),
        ("!eth0", "holds !"),
        ("eth[0]", "holds [ ]"),
        ("eth 0", "whitespace"),
        ("vlan:5", "':'"),
        ("", "no netdev"),
        ("enp1s0f0np0vlan100", "longer than the kernel's 15"),
    ],
)
def test_a_netdev_the_pattern_cannot_hold_is_refused_by_name(netdev: str, why: str) -> None:
    nics = [NICS[0], {"name": "mlx5_7", "netdev": netdev}]
    with pytest.raises(ValueError, match=r"gpunet_nics\[1\]\.netdev") as error:
        interface_pattern(nics)
    assert why in str(error.value) and "mlx5_7" in str(error.value)


def host(**overrides: Any) -> dict[str, Any]:
    return role_defaults(ROLE) | {"gpunet_nics": NICS, "ansible_managed": "managed"} | overrides


def test_the_drop_in_restricts_lldpd_to_the_fabric_nics_and_names_ports_by_ifname() -> None:
    values = host()
    values["lldpd_interface_pattern"] = render_value(values["lldpd_interface_pattern"], values)
    text = render_role_template(ROLE / "templates/gpunet.conf.j2", values | {"lldpd_extra_config": ["x y"]})
    commands = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert commands == [
        "configure system interface pattern rail0,rail1,rail2",
        "configure lldp portidsubtype ifname",
        "x y",
    ]


def test_a_bad_netdev_fails_the_default_through_the_collection_filter() -> None:
    values = host(gpunet_nics=[{"name": "mlx5_0", "netdev": "eth*"}])
    with pytest.raises(AnsibleError, match=r"gpunet_nics\[0\]\.netdev 'eth\*' \(NIC mlx5_0\)"):
        render_value(values["lldpd_interface_pattern"], values)


def tasks(name: str) -> list[dict[str, Any]]:
    return yaml.safe_load((ROLE / "tasks" / name).read_text())


@pytest.mark.parametrize(
    ("overrides", "configured", "reason"),
    [
        ({}, True, None),
        ({"lldpd_enabled": False}, False, "lldpd_enabled is false"),
        ({"gpunet_hardware": {"rdma_nics": False, "reason": "lab container"}}, False, "lab container"),
        ({"gpunet_nics": []}, False, "gpunet_nics lists no NIC"),
    ],
)
def test_the_role_configures_or_says_why_it_skips(
    overrides: dict, configured: bool, reason: str | None
) -> None:
    values = host(inventory_hostname="gpu01", **overrides)
    report, configure = tasks("main.yml")
    assert configure["ansible.builtin.include_tasks"] == "configure.yml"
    runs = [render_value("{{ (" + task["when"] + ") | bool }}", values) for task in (report, configure)]
    assert runs == [not configured, configured]
    if reason:
        message = render_value(report["ansible.builtin.debug"]["msg"], values)
        assert reason in message and "gpu01" in message
