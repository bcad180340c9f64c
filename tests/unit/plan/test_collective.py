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

H100_NVLINK_GBPS = 3600.0  # 450 GB/s per direction per GPU (NVLink 4, 18 links)


A100_NVLINK_GBPS = 2400.0  # 300 GB/s per direction per GPU (NVLink 3, 12 links)

# nodes, gpus/node, nic Gb/s, nics/node, intra Gb/s -> ring, tree, hierarchical, preferred
CASES = [
    # one node: NVLink only, network speed irrelevant
    ((1, 8, 400, 8, H100_NVLINK_GBPS), (3600.0, 3150.0, 3600.0, RING)),
    # 2 x DGX H100 (8 x 400G): ring limited by the NICs, hierarchical by NVLink; small -> ring
    ((2, 8, 400, 8, H100_NVLINK_GBPS), (3200.0, 3000.0, 3600.0 * 8 / 7 * 15 / 16, RING)),
    # 2 x DGX A100 (8 x 200G)
    ((2, 8, 200, 8, A100_NVLINK_GBPS), (1600.0, 1500.0, 2400.0 * 8 / 7 * 15 / 16, RING)),
    # 8 x DGX H100: still small
    ((RING_MAX_NODES, 8, 400, 8, H100_NVLINK_GBPS), (3200.0, 3150.0, 3200.0 * 8 / 7 * 63 / 64, RING)),
    # 16 x DGX H100: hierarchical, its bound within 16/15 of the ring's
    (
        (16, 8, 400, 8, H100_NVLINK_GBPS),
        (3200.0, 3200.0 * 127 / 128, 3200.0 * 16 / 15 * 127 / 128, HIERARCHICAL),
    ),
    # 2 NICs shared by 8 GPUs: the network is the bottleneck everywhere
    (
        (32, 8, 200, 2, H100_NVLINK_GBPS),
        (400.0, 400.0 * 255 / 256, 400.0 * 32 / 31 * 255 / 256, HIERARCHICAL),
    ),
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
    data = estimate_allreduce(16, 8, 400, 8, H100_NVLINK_GBPS).as_dict()
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
def test_recorded_runs_meet_the_expectation_and_stay_under_the_upper_bound(
    samples_dir: Path, name: str, nodes: int, gpus: int, nic: float, nics: int
) -> None:
    path = samples_dir / name
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    measured = _max_busbw_gbytes(path)
    estimate = estimate_allreduce(nodes, gpus, nic, nics, H100_NVLINK_GBPS)
    upper = gbps_to_gbytes_per_s(max(estimate.ring_busbw_gbps, estimate.hierarchical_busbw_gbps))
    expected = gbps_to_gbytes_per_s(allreduce_busbw_bound_gbps(nodes, gpus, nic, nics, H100_NVLINK_GBPS))
    assert measured > 0
    assert measured <= upper, f"measured {measured} GB/s above the model's upper bound {upper:.1f}"
    # gpunet-validate's default: at least 80 % of the preferred pattern's bound on a healthy cluster
    assert measured >= 0.8 * expected, f"measured {measured} GB/s under 80 % of {expected:.1f}"
    assert measured >= 0.8 * upper, f"the upper bound {upper:.1f} is far above reality ({measured})"
