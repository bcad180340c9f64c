"""Fat-tree sizing: reference designs from the literature, and properties over many requests."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from gpunet.plan.analysis import summarize
from gpunet.plan.designs import compare, recommend
from gpunet.plan.fattree import (
    HOST_LEAF,
    build_topology,
    economical_uplinks,
    max_nodes,
    split_leaf_ports,
    stripe_width,
)
from gpunet.plan.request import PlanInputError, build_request


def hosts(gpus: int, radix: int, **extra) -> dict:
    """A request of single-GPU, single-NIC hosts: the textbook fat-tree unit."""
    return {"gpus": gpus, "gpus_per_node": 1, "nics_per_node": 1, "switch_radix": radix, **extra}


def test_256_gpus_on_64_port_switches_need_two_tiers_of_12_switches() -> None:
    """The classic three-level answer (32 x 32-port access, 8 x 64-port aggregation, 2 x 128-port
    core: 42 switches, 5 switch hops) is more than 256 GPUs need when every switch has 64 ports:
    they fit one two-tier fat-tree, non-blocking, 3 hops at most."""
    recommendation = recommend(build_request({"gpus": 256, "switch_radix": 64}))
    summary = recommendation.summary
    counts = Counter(s.tier for s in summary.topology.switches.values())
    assert summary.topology.tiers == 2
    assert counts == {"leaf": 8, "spine": 4}
    assert summary.max_hops == 3
    assert summary.topology.leaf_oversubscription == 1
    assert summary.bom.switch_ports_used == summary.bom.switch_ports_total == 12 * 64
    assert summary.switches < 32 + 8 + 2
    assert "fit two tiers" in recommendation.reason
    # Forcing three tiers costs switches and optics and buys nothing at this size.
    three = summarize(build_topology(summary.topology.request, 3, True))
    assert three.switches > summary.switches
    assert three.bom.relative_cost > summary.bom.relative_cost


@pytest.mark.parametrize("radix", [32, 64, 128])
def test_two_tier_non_blocking_limit_is_k_squared_over_two(radix: int) -> None:
    limit = radix**2 // 2
    request = build_request(hosts(limit, radix))
    assert max_nodes(request, 2, rail_optimised=False) == limit
    topology = build_topology(request, 2, rail_optimised=False)
    assert Counter(s.tier for s in topology.switches.values()) == {"leaf": radix, "spine": radix // 2}
    with pytest.raises(PlanInputError, match=f"<= {limit} GPUs"):
        build_topology(build_request(hosts(limit + 1, radix)), 2, rail_optimised=False)


@pytest.mark.parametrize("radix", [8, 16, 32])
def test_three_tier_non_blocking_limit_is_k_cubed_over_four(radix: int) -> None:
    limit = radix**3 // 4
    request = build_request(hosts(limit, radix))
    assert max_nodes(request, 3, rail_optimised=False) == limit
    topology = build_topology(request, 3, rail_optimised=False)
    # k pods of k/2 leaves and k/2 spines, (k/2)^2 super-spines
    assert Counter(s.tier for s in topology.switches.values()) == {
        "leaf": radix**2 // 2,
        "spine": radix**2 // 2,
        "superspine": radix**2 // 4,
    }
    assert max(s.down_used + s.up_used for s in topology.switches.values()) == radix


def test_rail_optimised_scalable_unit_is_one_leaf_per_rail() -> None:
    """DGX-style SU: 32 nodes x 8 rails on 64-port leaves; rail r of every node on leaf r."""
    topology = build_topology(build_request({"gpus": 512, "switch_radix": 64}), 2, rail_optimised=True)
    assert topology.scalable_units == 2
    leaf_of = {(link.lower.device, link.lower.port): link.upper.device for link in topology.links}
    assert leaf_of[("gpu01", 0)] == leaf_of[("gpu32", 0)] == "leaf001"
    assert leaf_of[("gpu01", 7)] == "leaf008"
    assert leaf_of[("gpu33", 0)] == "leaf009"


@pytest.mark.parametrize(
    ("radix", "ratio", "down", "up"),
    [
        (64, "1:1", 32, 32),
        (64, "3:1", 48, 16),
        (64, "2:1", 42, 21),
        (32, "3:2", 18, 12),
        (128, "7:1", 112, 16),
    ],
)
def test_leaf_split_never_exceeds_the_ratio(radix: int, ratio: str, down: int, up: int) -> None:
    request = build_request({"gpus": 8, "switch_radix": radix, "oversubscription": ratio})
    assert split_leaf_ports(radix, request.oversubscription) == (down, up)
    assert Fraction(down, up) <= request.oversubscription
    assert down + up <= radix


@pytest.mark.parametrize(
    ("lower", "uplinks", "capacity", "width"),
    [(8, 32, 64, 4), (64, 32, 64, 32), (9, 32, 64, 8), (65, 32, 64, None), (1, 32, 32, 2), (1, 1, 4, 1)],
)
def test_stripe_width(lower: int, uplinks: int, capacity: int, width: int | None) -> None:
    assert stripe_width(lower, uplinks, capacity) == width


@pytest.mark.parametrize(
    ("needed", "most", "lower", "capacity", "uplinks"),
    [(11, 16, 8, 64, 12), (32, 32, 8, 64, 32), (2, 32, 1, 64, 2), (3, 4, 4, 8, 4)],
)
def test_economical_uplinks(needed: int, most: int, lower: int, capacity: int, uplinks: int) -> None:
    assert economical_uplinks(needed, most, lower, capacity) == uplinks


def test_partly_filled_su_gets_the_uplinks_it_needs_on_two_spines() -> None:
    topology = build_topology(build_request({"gpus": 256, "oversubscription": "3:1"}), 2, True)
    assert {s.up_used for s in topology.switches_in_tier("leaf")} == {12}  # 32 nodes need 11 at 3:1
    assert len(topology.switches_in_tier("spine")) == 2


def test_auto_picks_three_tiers_beyond_the_two_tier_limit() -> None:
    recommendation = recommend(build_request({"gpus": 4096, "switch_radix": 64}))
    assert recommendation.summary.topology.tiers == 3
    assert "exceed the two-tier limit of 2048" in recommendation.reason
    assert recommendation.summary.max_hops == 5


def test_comparison_lists_every_candidate_and_why_one_does_not_fit() -> None:
    candidates = compare(build_request({"gpus": 4096, "switch_radix": 64}))
    assert [c.name for c in candidates] == [
        "2-tier rail-optimised",
        "2-tier top-of-rack",
        "3-tier rail-optimised",
        "3-tier top-of-rack",
    ]
    assert candidates[0].summary is None and "does not fit" in candidates[0].problem
    assert all(c.summary is not None for c in candidates[2:])


def test_rail_optimised_su_too_wide_for_a_pod_is_an_error() -> None:
    with pytest.raises(PlanInputError, match="scalable unit of 8 rail leaves"):
        build_topology(build_request({"gpus": 64, "switch_radix": 8}), 3, rail_optimised=True)


def _random_requests(count: int) -> list[tuple[dict, int, bool]]:
    """Deterministic sample of shapes across radix, NICs, ratio and size, each within its capacity."""
    generator = random.Random(8)
    cases = []
    while len(cases) < count:
        values = {
            "switch_radix": generator.choice([8, 16, 32, 64]),
            "gpus_per_node": generator.choice([1, 2, 4, 8]),
            "oversubscription": generator.choice(["1:1", "2:1", "3:1", "5:3"]),
            "rack_size": generator.choice([1, 2, 4, 16]),
        }
        values["nics_per_node"] = generator.choice([1, values["gpus_per_node"]])
        tiers, rail = generator.choice([2, 3]), generator.choice([True, False])
        probe = build_request({**values, "gpus": values["gpus_per_node"]})
        try:
            capacity = max_nodes(probe, tiers, rail)
            build_topology(probe, tiers, rail)
        except PlanInputError:
            continue
        nodes = generator.randint(1, min(capacity, 600))
        cases.append(({**values, "gpus": nodes * values["gpus_per_node"]}, tiers, rail))
    return cases


PROPERTY_CASES = _random_requests(40)


@pytest.mark.parametrize(("values", "tiers", "rail"), PROPERTY_CASES)
def test_properties(values: dict, tiers: int, rail: bool) -> None:
    request = build_request(values)
    topology = build_topology(request, tiers, rail)
    host_links = [link for link in topology.links if link.kind == HOST_LEAF]
    # Every GPU NIC has exactly one leaf port.
    nic_ends = Counter((link.lower.device, link.lower.port) for link in host_links)
    assert len(nic_ends) == request.nics and set(nic_ends.values()) == {1}
    assert all(topology.switches[link.upper.device].tier == "leaf" for link in host_links)
    # No switch port carries two cables, and no switch goes beyond its radix.
    ends = Counter(
        end for link in topology.links for end in (link.lower, link.upper) if end.device in topology.switches
    )
    assert set(ends.values()) == {1}
    assert all(1 <= end.port <= request.switch_radix for end in ends)
    for switch in topology.switches.values():
        assert switch.down_used + switch.up_used <= switch.radix
        assert switch.down_used + switch.up_used == sum(1 for end in ends if end.device == switch.name)
    # Each tier below the top is provisioned at (or under) the ratio; non-blocking tiers above the leaf.
    for switch in topology.switches.values():
        if switch.tier == "leaf":
            assert switch.down_used <= switch.up_used * request.oversubscription
        elif switch.tier == "spine" and tiers == 3:
            assert switch.down_used <= switch.up_used


@pytest.mark.parametrize(
    ("radix", "tiers", "rail", "nics"), [(64, 2, True, 8), (16, 3, False, 1), (32, 3, True, 4)]
)
def test_full_non_blocking_designs_have_equal_up_and_down_capacity(
    radix: int, tiers: int, rail: bool, nics: int
) -> None:
    probe = build_request({"gpus": nics, "gpus_per_node": nics, "nics_per_node": nics, "switch_radix": radix})
    nodes = max_nodes(probe, tiers, rail)
    topology = build_topology(
        build_request(
            {"gpus": nodes * nics, "gpus_per_node": nics, "nics_per_node": nics, "switch_radix": radix}
        ),
        tiers,
        rail,
    )
    for tier in ("leaf", "spine") if tiers == 3 else ("leaf",):
        switches = topology.switches_in_tier(tier)
        assert sum(s.down_used for s in switches) == sum(s.up_used for s in switches) > 0
    assert all(s.free == 0 for s in topology.switches.values())
