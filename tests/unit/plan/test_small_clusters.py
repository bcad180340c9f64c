"""Small clusters get the smallest honest fabric, and skeletons take IPv4 addresses from the
documentation range they claim whenever the cabled NICs fit it."""

from __future__ import annotations

from ipaddress import ip_interface, ip_network

import pytest

from gpunet.plan.designs import compare, recommend
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton, check_skeleton
from gpunet.plan.request import PlanInputError, build_request

# (request, design, switches, a phrase the reason must hold)
SIZES = [
    ({"gpus": 8}, "single switch", 1, "with one node the GPUs all-reduce over NVLink"),
    ({"gpus": 16}, "single switch", 1, "back-to-back"),
    ({"gpus": 64}, "single switch", 1, "all 64 NICs fit one switch of radix 64"),
    ({"gpus": 72}, "2-tier rail-optimised", 10, "fit two tiers"),
    ({"gpus": 32, "switch_radix": 16}, "2-tier rail-optimised", 10, "fit two tiers"),
    ({"gpus": 16, "switch_radix": 16}, "single switch", 1, "all 16 NICs fit one switch of radix 16"),
]


@pytest.mark.parametrize(("values", "design", "switches", "phrase"), SIZES)
def test_the_smallest_sensible_fabric_is_recommended(
    values: dict, design: str, switches: int, phrase: str
) -> None:
    recommendation = recommend(build_request(values))
    assert (recommendation.summary.design, recommendation.summary.switches) == (design, switches)
    assert phrase in recommendation.reason


def test_one_switch_cables_every_nic_and_passes_the_inventory_check() -> None:
    topology = build_topology(build_request({"gpus": 24}), 1, True)
    ports = sorted(link.upper.port for link in topology.links)
    assert ports == list(range(1, 25))
    assert check_skeleton(build_skeleton(topology, InventoryOptions())) == []


def test_a_cluster_beyond_one_switch_is_refused_as_single_switch() -> None:
    with pytest.raises(PlanInputError, match="needs 72 switch ports, more than one switch of radix 64"):
        build_topology(build_request({"gpus": 72}), 1, True)


def test_tiers_1_is_a_valid_request_value() -> None:
    assert build_request({"gpus": 8, "tiers": 1}).tiers == "1"


# (request, tiers, the pool every NIC address falls in)
POOLS = [
    ({"gpus": 8}, 1, "198.51.100.0/24"),
    ({"gpus": 72}, 2, "198.51.100.0/24"),  # 8 leaves of /26 would not fit; sized for cabled NICs
    ({"gpus": 128}, 2, "198.51.100.0/24"),
    ({"gpus": 256}, 2, "2001:db8:f::/48"),  # 256 NICs plus gateways exceed a /24
]


@pytest.mark.parametrize(("values", "tiers", "pool"), POOLS)
def test_nic_addresses_come_from_the_claimed_default_pool(values: dict, tiers: int, pool: str) -> None:
    skeleton = build_skeleton(build_topology(build_request(values), tiers, True), InventoryOptions())
    addresses = [nic["ip"] for own in skeleton.hostvars.values() for nic in own.get("gpunet_nics", [])]
    assert all(ip_interface(a).ip in ip_network(pool) for a in addresses)
    (cidr,) = skeleton.fabric["firewall"]["fabric_cidrs"]
    assert ip_network(cidr).subnet_of(ip_network(pool))  # type: ignore[arg-type]
    assert check_skeleton(skeleton) == []


def test_an_operator_pool_too_small_for_full_leaves_is_sized_for_cabled_nics() -> None:
    topology = build_topology(build_request({"gpus": 72}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions(fabric_pool="10.9.0.0/24"))
    addresses = [nic["ip"] for own in skeleton.hostvars.values() for nic in own.get("gpunet_nics", [])]
    # 8 leaves x /26 (32 downlinks) would need 512 addresses; 9 NICs + 3 per leaf fit a /28
    assert {ip_interface(a).network.prefixlen for a in addresses} == {28}


def test_compare_puts_the_single_switch_first_only_where_it_fits() -> None:
    small = compare(build_request({"gpus": 16}))
    assert [c.name for c in small][:2] == ["single switch", "2-tier rail-optimised"]
    assert small[0].summary is not None and small[0].summary.switches == 1
    assert "single switch" not in [c.name for c in compare(build_request({"gpus": 256}))]
