"""The inventory skeleton: it always passes the inventory check, on disk as in memory."""

from __future__ import annotations

from ipaddress import ip_interface, ip_network
from pathlib import Path

import pytest
import yaml

from gpunet.model.check import check_inventory
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import (
    InventoryOptions,
    build_skeleton,
    check_skeleton,
    write_skeleton,
)
from gpunet.plan.request import PlanInputError, build_request
from gpunet.platforms import known_platforms
from tests.unit.plan.test_fattree import PROPERTY_CASES


@pytest.mark.parametrize(("values", "tiers", "rail"), PROPERTY_CASES[:20])
def test_skeleton_of_any_design_passes_the_check(values: dict, tiers: int, rail: bool) -> None:
    topology = build_topology(build_request(values), tiers, rail)
    skeleton = build_skeleton(topology, InventoryOptions())
    assert check_skeleton(skeleton) == []
    # and it describes the plan: every NIC and every switch, with the planned cables
    nics = sum(len(own.get("gpunet_nics", [])) for own in skeleton.hostvars.values())
    assert nics == topology.request.nics
    assert set(skeleton.hostvars) == {n.name for n in topology.nodes} | set(topology.switches)
    peers = sum(1 for own in skeleton.hostvars.values() for p in own.get("gpunet_ports", []) if "peer" in p)
    assert peers == 2 * len(topology.links) - nics


@pytest.mark.parametrize("platform", known_platforms())
def test_every_platform_names_its_ports(platform: str) -> None:
    topology = build_topology(build_request({"gpus": 64}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions(platform=platform))
    assert check_skeleton(skeleton) == []
    names = [p["name"] for p in skeleton.hostvars["leaf001"]["gpunet_ports"]]
    assert len(names) == len(set(names)) == 64


def test_written_inventory_passes_gpunet_inventory_check(tmp_path: Path) -> None:
    """Through Ansible's own inventory loader, as `gpunet inventory check -i DIR` reads it."""
    topology = build_topology(build_request({"gpus": 64, "switch_radix": 16}), 3, False)
    written = write_skeleton(build_skeleton(topology, InventoryOptions(name="planned16")), tmp_path / "inv")
    assert len(written) == 3 + len(topology.nodes) + len(topology.switches)
    result = check_inventory(tmp_path / "inv")
    assert result.ok, [str(p) for p in result.problems]
    assert result.fabric is not None
    assert result.fabric.name == "planned16"
    assert (
        len(result.fabric.switches_in_role("superspine")) == len(topology.switches_in_tier("superspine")) > 0
    )
    assert sum(len(h.nics) for h in result.fabric.hosts.values()) == 64


def test_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "hosts.yml").write_text("all: {}\n")
    skeleton = build_skeleton(build_topology(build_request({"gpus": 8}), 2, True), InventoryOptions())
    with pytest.raises(PlanInputError, match="not empty"):
        write_skeleton(skeleton, tmp_path)
    assert (tmp_path / "hosts.yml").read_text() == "all: {}\n"


def _addresses(skeleton) -> tuple[set[str], set[str]]:
    mgmt = {own["ansible_host"] for own in skeleton.hostvars.values()}
    nics = {nic["ip"] for own in skeleton.hostvars.values() for nic in own.get("gpunet_nics", [])}
    return mgmt, nics


def test_documentation_ranges_ipv4_while_they_fit() -> None:
    topology = build_topology(build_request({"gpus": 16, "switch_radix": 16}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions())
    mgmt, nics = _addresses(skeleton)
    assert all(ip_interface(a).ip in ip_network("192.0.2.0/24") for a in mgmt)
    assert all(ip_interface(a).ip in ip_network("198.51.100.0/24") for a in nics)
    assert skeleton.fabric["firewall"]["mgmt_cidrs"] == ["192.0.2.0/24"]


def test_ipv6_documentation_range_beyond_ipv4() -> None:
    topology = build_topology(build_request({"gpus": 2048}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions())
    mgmt, nics = _addresses(skeleton)
    assert all(ip_interface(a).ip in ip_network("2001:db8::/32") for a in mgmt | nics)
    assert len(nics) == 2048


def test_operator_pools_are_used_or_rejected_when_too_small() -> None:
    topology = build_topology(build_request({"gpus": 256}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions(mgmt_pool="10.1.0.0/24", fabric_pool="10.2.0.0/16"))
    mgmt, nics = _addresses(skeleton)
    assert all(ip_interface(a).ip in ip_network("10.1.0.0/24") for a in mgmt)
    assert all(ip_interface(a).ip in ip_network("10.2.0.0/16") for a in nics)
    assert check_skeleton(skeleton) == []
    with pytest.raises(PlanInputError, match="cannot hold 8 leaf subnets"):
        build_skeleton(topology, InventoryOptions(fabric_pool="10.2.0.0/24"))
    with pytest.raises(PlanInputError, match="too small for 44 devices"):
        build_skeleton(topology, InventoryOptions(mgmt_pool="10.1.0.0/27"))
    with pytest.raises(PlanInputError, match="not a network"):
        build_skeleton(topology, InventoryOptions(mgmt_pool="10.1.0.1/24"))


def test_unknown_platform_is_an_error() -> None:
    topology = build_topology(build_request({"gpus": 8}), 2, True)
    with pytest.raises(PlanInputError, match="unknown platform"):
        build_skeleton(topology, InventoryOptions(platform="ios"))


def test_hosts_file_groups_switches_by_tier(tmp_path: Path) -> None:
    topology = build_topology(build_request({"gpus": 64, "switch_radix": 16}), 3, False)
    write_skeleton(build_skeleton(topology, InventoryOptions()), tmp_path)
    groups = yaml.safe_load((tmp_path / "hosts.yml").read_text())["all"]["children"]
    assert set(groups) == {"gpu_nodes", "switches"}
    assert set(groups["switches"]["children"]) == {"leaf", "spine", "superspine"}
    assert len(groups["gpu_nodes"]["hosts"]) == 8
