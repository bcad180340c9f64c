"""Pair scheduling and the topology-derived thresholds."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from gpunet.model.check import load_fabric
from gpunet.validate.manifest import build_manifest
from gpunet.validate.pairs import ALL_PAIRS, RING, all_pairs_rounds, ring_rounds, schedule
from gpunet.validate.thresholds import Thresholds, gpu_link_gbps, nccl_busbw_bound_gbytes
from tests.conftest import REPO_ROOT


def hosts(count: int) -> list[str]:
    return [f"h{i:03d}" for i in range(count)]


@pytest.mark.parametrize(("count", "rounds"), [(2, 1), (3, 3), (4, 2), (5, 3), (8, 2), (9, 3)])
def test_ring_tests_every_nic_twice_in_disjoint_rounds(count: int, rounds: int) -> None:
    plan = ring_rounds(hosts(count))
    assert len(plan) == rounds
    for round_ in plan:
        members = [host for pair in round_ for host in pair]
        assert len(members) == len(set(members)), "a host appears twice in one round"
    appearances = Counter(host for round_ in plan for pair in round_ for host in pair)
    assert set(appearances.values()) == ({1} if count == 2 else {2})


@pytest.mark.parametrize("count", [2, 3, 4, 7, 10])
def test_all_pairs_meets_everyone_once(count: int) -> None:
    plan = list(all_pairs_rounds(hosts(count)))
    assert len(plan) == (count - 1 if count % 2 == 0 else count)
    met = [frozenset(pair) for round_ in plan for pair in round_]
    assert sorted(met, key=sorted) == sorted(map(frozenset, combinations(hosts(count), 2)), key=sorted)
    for round_ in plan:
        members = [host for pair in round_ for host in pair]
        assert len(members) == len(set(members))


def test_schedule_runs_rails_in_the_same_rounds() -> None:
    plan = schedule({0: hosts(4), 1: hosts(4)}, RING)
    assert len(plan) == 2
    assert Counter(pair.rail for pair in plan[0]) == {0: 2, 1: 2}
    assert len(schedule({0: hosts(6)}, ALL_PAIRS)) == 5
    with pytest.raises(ValueError, match="unknown pair mode"):
        schedule({0: hosts(2)}, "mesh")


@pytest.mark.parametrize(
    ("model", "gbps"),
    [("H100-SXM5-80GB", 3600.0), ("A100-SXM4-80GB", 2400.0), ("L40S", 512.0), ("B200", 7200.0)],
)
def test_gpu_link_bandwidth_by_model(model: str, gbps: float) -> None:
    assert gpu_link_gbps(model) == gbps


def test_prod_manifest_thresholds_follow_the_topology() -> None:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    manifest = build_manifest(fabric, Thresholds(), RING)
    assert manifest.nccl_runs["all-nodes"].bound_busbw_gbs == round(
        nccl_busbw_bound_gbytes(8, 8, 400, 8, 3600), 3
    )
    assert manifest.nccl_runs["single-gpu01"].bound_busbw_gbs == 450.0
    assert manifest.traffic_class == 106
    # 8 hosts in a ring, 8 rails: two rounds of 4 host pairs per rail.
    assert [len(round_) for round_ in manifest.pair_rounds] == [32, 32]
    halved = build_manifest(fabric, Thresholds(intra_node_gbps=1800.0), RING, limit={"gpu01", "gpu02"})
    assert halved.nccl_runs["all-nodes"].bound_busbw_gbs < manifest.nccl_runs["all-nodes"].bound_busbw_gbs
    assert set(halved.hosts) == {"gpu01", "gpu02"}
