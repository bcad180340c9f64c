"""The all-reduce cost model: formulas per pattern, the pattern rules, and recorded nccl-tests runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpunet.plan.collective import (
    HIERARCHICAL,
    RING,
    RING_MAX_NODES,
    TREE,
    allreduce_busbw_bound_gbps,
    estimate_allreduce,
    gbps_to_gbytes_per_s,
)
from tests.conftest import SAMPLES_DIR

H100_NVLINK_GBPS = 3600.0  # 450 GB/s per direction per GPU (NVLink 4, 18 links)


# nodes, gpus/node, nic Gb/s, nics/node, intra Gb/s -> ring, tree, hierarchical, preferred
CASES = [
    # one node: NVLink only, network speed irrelevant
    ((1, 8, 400, 8, H100_NVLINK_GBPS), (3600.0, 3150.0, 3600.0, RING)),
    # 2 x DGX H100 (8 x 400G): ring limited by the NICs, hierarchical by NVLink
    ((2, 8, 400, 8, H100_NVLINK_GBPS), (3200.0, 3000.0, 3600.0 * 8 / 7 * 15 / 16, HIERARCHICAL)),
    # 8 x DGX H100: hierarchical limited by the network again
    ((8, 8, 400, 8, H100_NVLINK_GBPS), (3200.0, 3150.0, 3200.0 * 8 / 7 * 63 / 64, HIERARCHICAL)),
    # 2 NICs shared by 8 GPUs: the network is the bottleneck everywhere
    ((4, 8, 200, 2, H100_NVLINK_GBPS), (400.0, 387.5, 400.0 * 4 / 3 * 31 / 32, HIERARCHICAL)),
    # one GPU per node: no NVLink step; small -> ring, large -> tree
    ((4, 1, 100, 1, 1.0), (100.0, 75.0, 100.0, RING)),
    ((RING_MAX_NODES + 1, 1, 100, 1, 1.0), (100.0, 100.0 * 8 / 9, 100.0, TREE)),
]


@pytest.mark.parametrize(("shape", "expected"), CASES)
def test_bounds_and_pattern(shape: tuple, expected: tuple) -> None:
    estimate = estimate_allreduce(*shape)
    ring, tree, hierarchical, preferred = expected
    assert estimate.ring_busbw_gbps == pytest.approx(ring)
    assert estimate.tree_busbw_gbps == pytest.approx(tree)
    assert estimate.hierarchical_busbw_gbps == pytest.approx(hierarchical)
    assert estimate.preferred == preferred
    assert allreduce_busbw_bound_gbps(*shape) == pytest.approx(
        {RING: ring, TREE: tree, HIERARCHICAL: hierarchical}[preferred]
    )


def test_one_rank_exchanges_nothing() -> None:
    assert allreduce_busbw_bound_gbps(1, 1, 400, 1, 3600) == 0.0


@pytest.mark.parametrize("field", ["nodes", "gpus_per_node", "nic_gbps", "nics_per_node", "intra_node_gbps"])
def test_rejects_non_positive_inputs(field: str) -> None:
    values = {"nodes": 2, "gpus_per_node": 8, "nic_gbps": 400, "nics_per_node": 8, "intra_node_gbps": 3600}
    values[field] = 0
    with pytest.raises(ValueError, match=field):
        estimate_allreduce(**values)


def test_as_dict_names_the_preferred_bound() -> None:
    data = estimate_allreduce(2, 8, 400, 8, H100_NVLINK_GBPS).as_dict()
    assert data["preferred_pattern"] == HIERARCHICAL
    assert data["preferred_busbw_gbps"] == data["hierarchical_busbw_gbps"]
    assert gbps_to_gbytes_per_s(3200) == 400


def _max_busbw_gbytes(path: Path) -> float:
    """Largest busbw (GB/s, out-of-place or in-place) in an nccl-tests all_reduce_perf table."""
    best = 0.0
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 13 and fields[0].isdigit():
            best = max(best, float(fields[7]), float(fields[11]))
    return best


# Recorded runs whose cluster shape the source names: (file, nodes, gpus/node, nic Gb/s, nics/node)
RECORDED_RUNS = [
    ("all_reduce_perf_skypilot_5.txt", 2, 8, 400, 8),  # 2-node H100, InfiniBand 8 x 400G
    ("all_reduce_perf_coreweave_2.txt", 8, 8, 400, 8),  # 64 x H100 (8 nodes), 8 x 400G
]


@pytest.mark.parametrize(("name", "nodes", "gpus", "nic", "nics"), RECORDED_RUNS)
def test_recorded_runs_stay_under_and_near_the_bound(
    name: str, nodes: int, gpus: int, nic: float, nics: int
) -> None:
    path = SAMPLES_DIR / name
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    measured = _max_busbw_gbytes(path)
    bound = gbps_to_gbytes_per_s(allreduce_busbw_bound_gbps(nodes, gpus, nic, nics, H100_NVLINK_GBPS))
    assert measured > 0
    assert measured <= bound, f"measured {measured} GB/s above the modelled bound {bound:.1f}"
    # A bound far above reality would be a useless default expectation for gpunet-validate.
    assert measured >= 0.8 * bound, f"measured {measured} GB/s under 80 % of the bound {bound:.1f}"
