"""A simple, documented cost model for all-reduce bus bandwidth on a GPU cluster.

Units: every bandwidth is in Gb/s (gigabits per second, one direction). nccl-tests prints GB/s;
`gbps_to_gbytes_per_s` divides by 8.

The model counts bytes per link for large messages (the bandwidth term only: latency decides the
pattern, not the bound). nccl-tests reports `busbw = algbw * 2(n-1)/n` for all-reduce over n ranks,
which makes its number comparable to the speed of the bottleneck link; the bounds below are in
that unit. Symbols: n = nodes * gpus_per_node ranks, N = nodes, G = gpus_per_node,
node_nic = nics_per_node * nic_gbps (the node's network bandwidth), intra = intra_node_gbps (one
GPU's NVLink/NVSwitch or PCIe bandwidth inside its node, one direction).

ring
    One ring through every rank. NCCL runs one ring per NIC, each carrying a share of the data and
    leaving each node once, so every link carries 2(n-1)/n of its share:
    busbw <= min(node_nic, intra). Latency grows with 2(n-1) steps.

tree (NCCL's double binary tree between nodes, a chain inside each node)
    Each node is an inner node of one tree and a leaf of the other, so it sends and receives 2S in
    total: algbw <= min(node_nic, intra) / 2, busbw <= (n-1)/n * min(node_nic, intra).
    Latency grows with log2(N).

hierarchical (reduce-scatter over NVLink, all-reduce across nodes per rail, all-gather over NVLink)
    The network carries only 2(N-1)/N * S per node instead of 2(n-1)/n * S, and NVLink carries
    2(G-1)/G * S per GPU; with the steps pipelined:
    busbw <= (n-1)/n * min(intra * G/(G-1), node_nic * N/(N-1)).
    This is the upper bound of all three. NCCL reaches it only with in-switch reduction (NVLS on
    NVSwitch systems from H100 on, or CollNet/SHARP): a 2-node H100 nccl-tests run in
    ../shared/samples reaches 467 GB/s busbw over 8 x 400G NICs per node, above the ring's
    400 GB/s. Without it (e.g. A100) NCCL runs ring or tree and stays near the ring bound.
    For many nodes the hierarchical bound comes within N/(N-1) of the ring's.

Pattern rules (`preferred_pattern`), "small clusters ring, larger hierarchical":

1. one node: ring (NVLink only; the hierarchical bound equals the ring bound there);
2. up to RING_MAX_NODES nodes: ring. Its 2(n-1) steps cost little, every NCCL build on every GPU
   generation runs it, and its bound is what any healthy small cluster reaches (NVLS may beat it);
3. more nodes of several GPUs: hierarchical (NVLink first cuts the bytes the network carries,
   and each GPU's rail carries its own slice; latency grows with the node count, not the ranks);
4. more single-GPU nodes: tree (latency log2(N) instead of n, bandwidth within (n-1)/n).

`allreduce_busbw_bound_gbps` is the bound of the preferred pattern; gpunet-validate uses it as its
default nccl-tests busbw expectation (times an efficiency factor that gpunet-validate owns). It is
a bound for that pattern: a small NVLS-capable cluster may measure more, never a healthy one less.
"""

from __future__ import annotations

from dataclasses import dataclass

RING = "ring"
TREE = "tree"
HIERARCHICAL = "hierarchical"
RING_MAX_NODES = 8


@dataclass(frozen=True)
class CollectiveEstimate:
    """Bus bandwidth bounds (Gb/s) of each pattern at one cluster size, and the pattern to prefer."""

    ranks: int
    node_nic_gbps: float
    ring_busbw_gbps: float
    tree_busbw_gbps: float
    hierarchical_busbw_gbps: float
    preferred: str
    reason: str

    @property
    def preferred_busbw_gbps(self) -> float:
        return {
            RING: self.ring_busbw_gbps,
            TREE: self.tree_busbw_gbps,
            HIERARCHICAL: self.hierarchical_busbw_gbps,
        }[self.preferred]

    def as_dict(self) -> dict[str, object]:
        return {
            "ranks": self.ranks,
            "node_nic_gbps": self.node_nic_gbps,
            "ring_busbw_gbps": round(self.ring_busbw_gbps, 1),
            "tree_busbw_gbps": round(self.tree_busbw_gbps, 1),
            "hierarchical_busbw_gbps": round(self.hierarchical_busbw_gbps, 1),
            "preferred_pattern": self.preferred,
            "preferred_busbw_gbps": round(self.preferred_busbw_gbps, 1),
            "reason": self.reason,
        }


def _require_positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")


def preferred_pattern(nodes: int, gpus_per_node: int) -> tuple[str, str]:
    """The pattern to prefer for this cluster shape, and why (rules in the module docstring)."""
    if nodes == 1:
        return RING, "one node: all-reduce runs over NVLink only"
    if nodes <= RING_MAX_NODES:
        return RING, f"{nodes} nodes <= {RING_MAX_NODES}: a flat ring's 2(n-1) steps cost little"
    if gpus_per_node > 1:
        return HIERARCHICAL, f"{nodes} nodes > {RING_MAX_NODES}: NVLink first, then one slice per rail"
    return TREE, f"{nodes} single-GPU nodes > {RING_MAX_NODES}: tree latency grows with log2(nodes)"


def estimate_allreduce(
    nodes: int, gpus_per_node: int, nic_gbps: float, nics_per_node: int, intra_node_gbps: float
) -> CollectiveEstimate:
    """Ring, tree and hierarchical busbw bounds (Gb/s) and the preferred pattern for this cluster."""
    _require_positive(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        nic_gbps=nic_gbps,
        nics_per_node=nics_per_node,
        intra_node_gbps=intra_node_gbps,
    )
    ranks = nodes * gpus_per_node
    node_nic = nics_per_node * nic_gbps
    pattern, reason = preferred_pattern(nodes, gpus_per_node)
    if ranks == 1:
        # nccl-tests reports busbw 0 for one rank: 2(n-1)/n is 0 and nothing crosses a link.
        return CollectiveEstimate(1, node_nic, 0.0, 0.0, 0.0, pattern, "one rank: nothing to exchange")
    # Only the links a pattern really crosses limit it: NVLink when G > 1, the network when N > 1.
    flat_links: list[float] = []
    hierarchical_links: list[float] = []
    if gpus_per_node > 1:
        flat_links.append(intra_node_gbps)
        hierarchical_links.append(intra_node_gbps * gpus_per_node / (gpus_per_node - 1))
    if nodes > 1:
        flat_links.append(node_nic)
        hierarchical_links.append(node_nic * nodes / (nodes - 1))
    ring = min(flat_links)
    tree = ring * (ranks - 1) / ranks
    hierarchical = min(hierarchical_links) * (ranks - 1) / ranks
    return CollectiveEstimate(ranks, node_nic, ring, tree, hierarchical, pattern, reason)


def allreduce_busbw_bound_gbps(
    nodes: int, gpus_per_node: int, nic_gbps: float, nics_per_node: int, intra_node_gbps: float
) -> float:
    """Upper bound (Gb/s) of nccl-tests all_reduce_perf busbw for the preferred pattern."""
    estimate = estimate_allreduce(nodes, gpus_per_node, nic_gbps, nics_per_node, intra_node_gbps)
    return estimate.preferred_busbw_gbps


def gbps_to_gbytes_per_s(gbps: float) -> float:
    """Gb/s to GB/s, the unit nccl-tests prints."""
    return gbps / 8
