"""What a plan reports: bisection, hops, per-tier ports and the throttled collective expectation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpunet.plan.analysis import summarize
from gpunet.plan.collective import estimate_allreduce
from gpunet.plan.fattree import build_topology
from gpunet.plan.request import build_request


def plan(values: dict, tiers: int = 2, rail: bool = True):
    return summarize(build_topology(build_request(values), tiers, rail))


# request, tiers, rail -> bisection Gb/s: half of the smallest of NICs, leaf uplinks, spine uplinks
BISECTION = [
    ({"gpus": 256}, 2, True, 256 * 400 / 2),
    # 3:1 leaves: 128 nodes in SUs of 48 -> 24 leaves x 16 uplinks
    ({"gpus": 1024, "oversubscription": "3:1"}, 2, True, 24 * 16 * 400 / 2),
    # one top-of-rack leaf: no uplink is crossed, the NICs limit
    ({"gpus": 32}, 2, False, 32 * 400 / 2),
]


@pytest.mark.parametrize(("values", "tiers", "rail", "gbps"), BISECTION)
def test_bisection(values: dict, tiers: int, rail: bool, gbps: float) -> None:
    assert plan(values, tiers, rail).bisection_gbps == gbps


@pytest.mark.parametrize(
    ("values", "tiers", "rail", "hops"),
    [
        ({"gpus": 32}, 2, False, [0, 1]),
        ({"gpus": 256}, 2, True, [0, 1, 3]),
        ({"gpus": 256}, 3, True, [0, 1, 3]),  # one pod: the super-spines carry nothing yet
        ({"gpus": 4096}, 3, True, [0, 1, 3, 5]),
    ],
)
def test_hop_classes(values: dict, tiers: int, rail: bool, hops: list[int]) -> None:
    assert [hop.switch_hops for hop in plan(values, tiers, rail).hops] == hops


def test_tier_summary_groups_switches_by_port_use() -> None:
    summary = plan({"gpus": 512, "switch_radix": 32, "oversubscription": "3:1"}, 2, False)
    leaf = summary.tiers[0]
    assert leaf.tier == "leaf" and leaf.switches == 22
    assert [(p.down, p.up, p.free, p.switches) for p in leaf.ports] == [(24, 8, 0, 21), (8, 8, 16, 1)]
    assert leaf.oversubscription == Fraction(3)
    assert summary.tiers[1].oversubscription is None


def test_oversubscription_throttles_the_network_once_traffic_crosses_spines() -> None:
    one_su = plan({"gpus": 256, "oversubscription": "3:1"})  # 32 nodes fit one SU of 48
    several = plan({"gpus": 1024, "oversubscription": "3:1"})
    assert one_su.collective == estimate_allreduce(32, 8, 400, 8, 3600)
    assert several.collective == estimate_allreduce(128, 8, 400 / 3, 8, 3600)
    assert several.collective.preferred_busbw_gbps < one_su.collective.preferred_busbw_gbps
