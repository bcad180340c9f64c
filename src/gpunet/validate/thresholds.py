"""Thresholds derived from the topology; each one can be overridden in a checks catalog file.

perftest is judged against the line rate of the slower NIC of a pair; nccl-tests busbw against
the planner's bound (gpunet.plan.collective) for that run's node count, NICs and GPU links.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from gpunet.plan.collective import allreduce_busbw_bound_gbps, gbps_to_gbytes_per_s

# One GPU's NVLink bandwidth, one direction, in Gb/s, by model name prefix (vendor datasheets:
# H100/H200 SXM 900 GB/s and A100 SXM 600 GB/s bidirectional, B200 1.8 TB/s).
GPU_LINK_GBPS: tuple[tuple[str, float], ...] = (
    ("B200", 7200.0),
    ("GB200", 7200.0),
    ("H200", 3600.0),
    ("H100-SXM", 3600.0),
    ("A100-SXM", 2400.0),
)
# Anything else (PCIe cards): one PCIe Gen5 x16 direction, about 64 GB/s.
DEFAULT_GPU_LINK_GBPS = 512.0


# Valid range (exclusive low, inclusive high) per threshold, checked when a catalog loads: a
# fraction of line rate above 1 could never pass, a non-positive limit never fail.
THRESHOLD_RANGES: dict[str, tuple[float, float, str]] = {
    "perftest_min_fraction": (0.0, 1.0, "a fraction of line rate"),
    "perftest_max_latency_us": (0.0, 1_000_000.0, "a latency in microseconds"),
    "nccl_min_fraction": (0.0, 1.0, "a fraction of the busbw bound"),
    "iperf3_min_gbps": (0.0, 10_000.0, "a throughput in Gb/s"),
    "intra_node_gbps": (0.0, 100_000.0, "one GPU's link bandwidth in Gb/s"),
    # The incast stage (gpunet.validate.incast, checks/incast.py).
    "incast_senders": (1.0, 4096.0, "a number of senders (at least 2)"),
    "incast_seconds": (0.0, 3600.0, "a duration in seconds"),
    "incast_oversubscription": (1.0, 64.0, "a ratio of the senders' line rates to the receiver's"),
    "incast_min_fraction": (0.0, 1.0, "a fraction of the receiver's line rate"),
    "incast_alltoall_bytes": (1023.0, float(1 << 36), "an alltoall message size in bytes (1 KiB to 64 GiB)"),
    "incast_alltoall_min_fraction": (0.0, 1.0, "a fraction of the rail NICs' line rate"),
}


@dataclass(frozen=True)
class Thresholds:
    perftest_min_fraction: float = 0.90  # of the slower NIC's line rate
    perftest_max_latency_us: float = 5.0  # typical ib_read_lat, small messages, same rail
    nccl_min_fraction: float = 0.80  # of the planner's busbw bound
    iperf3_min_gbps: float = 1.0  # host network; the lab's veths and real NICs both exceed it
    intra_node_gbps: float | None = None  # None: from the GPU model (GPU_LINK_GBPS)
    # Incast: None senders is the fewest whose line rates reach incast_oversubscription x the
    # receiver's (gpunet.validate.incast explains the 2x); the receiver's summed bandwidth floor is
    # below the pair tests' because DCQCN's rate cuts under a sustained incast leave the port
    # under-filled part of the time.
    incast_senders: float | None = None
    incast_seconds: float = 10.0
    incast_oversubscription: float = 2.0
    incast_min_fraction: float = 0.8
    # The alltoall pattern: 1 GiB per rank and pass (large enough that per-pass setup is noise);
    # its busbw (per-rank NIC throughput) floor is lower than perftest's because NCCL's alltoall
    # also waits on the slowest peer each pass.
    incast_alltoall_bytes: float = float(1 << 30)
    incast_alltoall_min_fraction: float = 0.7

    @classmethod
    def from_mapping(cls, values: dict[str, Any], where: str) -> Thresholds:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"{where}: unknown threshold(s) {unknown} (known: {sorted(known)})")
        for name, value in values.items():
            low, high, meaning = THRESHOLD_RANGES[name]
            if not isinstance(value, int | float) or isinstance(value, bool) or not low < value <= high:
                raise ValueError(f"{where}.{name}: expected {meaning} in ({low:g}, {high:g}], got {value!r}")
        return replace(cls(), **{name: float(value) for name, value in values.items()})


def gpu_link_gbps(model: str) -> float:
    return next(
        (gbps for prefix, gbps in GPU_LINK_GBPS if model.upper().startswith(prefix)), DEFAULT_GPU_LINK_GBPS
    )


def nccl_busbw_bound_gbytes(
    nodes: int, gpus_per_node: int, nic_gbps: float, nics_per_node: int, intra_node_gbps: float
) -> float:
    """The all-reduce busbw bound in GB/s (the unit nccl-tests prints)."""
    bound = allreduce_busbw_bound_gbps(nodes, gpus_per_node, nic_gbps, nics_per_node, intra_node_gbps)
    return gbps_to_gbytes_per_s(bound)
