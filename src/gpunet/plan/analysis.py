"""What a planned topology gives: ports per tier, oversubscription, bisection, hops, scale limits
and the expected all-reduce bandwidth."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from gpunet.plan.cabling import Bom, bill_of_materials
from gpunet.plan.collective import CollectiveEstimate, estimate_allreduce
from gpunet.plan.fattree import Topology, max_nodes
from gpunet.plan.request import format_ratio

TIERS = ("leaf", "spine", "superspine")


@dataclass(frozen=True)
class PortUse:
    down: int
    up: int
    free: int
    switches: int


@dataclass(frozen=True)
class TierSummary:
    tier: str
    switches: int
    ports: tuple[PortUse, ...]  # distinct (down, up, free) splits, fullest first
    oversubscription: Fraction | None  # of the fullest switch; None at the top tier

    def as_dict(self) -> dict[str, object]:
        return {
            "tier": self.tier,
            "switches": self.switches,
            "ports": [dataclasses.asdict(p) for p in self.ports],
            "oversubscription": format_ratio(self.oversubscription) if self.oversubscription else None,
        }


@dataclass(frozen=True)
class HopClass:
    pair: str
    switch_hops: int


@dataclass(frozen=True)
class PlanSummary:
    design: str
    topology: Topology
    tiers: tuple[TierSummary, ...]
    bisection_gbps: float
    largest_non_blocking_gpus: int
    largest_at_oversubscription_gpus: int
    hops: tuple[HopClass, ...]
    collective: CollectiveEstimate
    bom: Bom

    @property
    def switches(self) -> int:
        return len(self.topology.switches)

    @property
    def one_hop_nodes(self) -> int:
        """Nodes whose same-rail GPUs are one switch apart: an SU, or one top-of-rack leaf."""
        topology = self.topology
        if topology.rail_optimised:
            return min(topology.leaf_down, topology.request.nodes)
        return min(topology.leaf_down // topology.request.nics_per_node, topology.request.nodes)

    @property
    def max_hops(self) -> int:
        return max(hop.switch_hops for hop in self.hops)

    def as_dict(self) -> dict[str, object]:
        topology, request = self.topology, self.topology.request
        return {
            "design": self.design,
            "gpus": request.gpus,
            "nodes": request.nodes,
            "nics": request.nics,
            "nic_speed_gbps": request.nic_speed_gbps,
            "node_nic_gbps": request.nics_per_node * request.nic_speed_gbps,
            "switch_radix": request.switch_radix,
            "tiers": topology.tiers,
            "rail_optimised": topology.rail_optimised,
            "scalable_units": topology.scalable_units,
            "pods": topology.pods,
            "leaf_downlinks": topology.leaf_down,
            "leaf_uplinks": topology.leaf_up,
            "switches": self.switches,
            "tier_summary": [tier.as_dict() for tier in self.tiers],
            "switch_ports": [
                {
                    "name": s.name,
                    "tier": s.tier,
                    "group": s.group,
                    "down": s.down_used,
                    "up": s.up_used,
                    "free": s.free,
                }
                for s in topology.switches.values()
            ],
            "bisection_gbps": self.bisection_gbps,
            "largest_non_blocking_gpus": self.largest_non_blocking_gpus,
            "largest_at_oversubscription_gpus": self.largest_at_oversubscription_gpus,
            "hops": [dataclasses.asdict(hop) for hop in self.hops],
            "max_switch_hops": self.max_hops,
            "one_hop_nodes": self.one_hop_nodes,
            "collective": self.collective.as_dict(),
            "bom": self.bom.as_dict(),
        }


def design_name(tiers: int, rail_optimised: bool) -> str:
    if tiers == 1:
        return "single switch"
    return f"{tiers}-tier {'rail-optimised' if rail_optimised else 'top-of-rack'}"


def summarize(topology: Topology) -> PlanSummary:
    request = topology.request
    non_blocking = dataclasses.replace(request, oversubscription=Fraction(1))
    return PlanSummary(
        design=design_name(topology.tiers, topology.rail_optimised),
        topology=topology,
        tiers=tuple(_tier(topology, tier) for tier in TIERS if topology.switches_in_tier(tier)),
        bisection_gbps=bisection_gbps(topology),
        largest_non_blocking_gpus=max_nodes(non_blocking, topology.tiers, topology.rail_optimised)
        * request.gpus_per_node,
        largest_at_oversubscription_gpus=max_nodes(request, topology.tiers, topology.rail_optimised)
        * request.gpus_per_node,
        hops=hop_classes(topology),
        collective=expected_collective(topology),
        bom=bill_of_materials(topology),
    )


def _tier(topology: Topology, tier: str) -> TierSummary:
    switches = topology.switches_in_tier(tier)
    splits = Counter((s.down_used, s.up_used, s.free) for s in switches)
    ports = tuple(
        PortUse(down, up, free, count)
        for (down, up, free), count in sorted(splits.items(), key=lambda item: (-item[0][0], item[0]))
    )
    ratios = [Fraction(s.down_used, s.up_used) for s in switches if s.up_used]
    return TierSummary(tier, len(switches), ports, max(ratios) if ratios else None)


def bisection_gbps(topology: Topology) -> float:
    """Half the smallest total capacity among the layers a half/half split of the GPUs crosses:
    the NICs, the leaf uplinks (more than one leaf) and the spine uplinks (more than one pod)."""
    speed = topology.request.nic_speed_gbps
    layers = [topology.request.nics]
    leaves = topology.switches_in_tier("leaf")
    if len(leaves) > 1:
        layers.append(sum(s.up_used for s in leaves))
    if topology.pods > 1:
        layers.append(sum(s.up_used for s in topology.switches_in_tier("spine")))
    return min(layers) * speed / 2


def hop_classes(topology: Topology) -> tuple[HopClass, ...]:
    """Switches a packet crosses between two GPUs, per kind of pair present in this design."""
    if topology.tiers == 1:
        same_leaf = "nodes on the switch"
    else:
        same_leaf = "same rail in one SU" if topology.rail_optimised else "nodes on one leaf"
    hops = [HopClass("same node (NVLink)", 0), HopClass(same_leaf, 1)]
    if len(topology.switches_in_tier("leaf")) > 1:
        other = "other rail or SU" if topology.rail_optimised else "nodes on other leaves"
        if topology.tiers == 3:
            other += " in one pod"
        hops.append(HopClass(other, 3))
    if topology.pods > 1:
        hops.append(HopClass("other pod", 5))
    return tuple(hops)


def expected_collective(topology: Topology) -> CollectiveEstimate:
    """The all-reduce model at this size. Oversubscription throttles the network term once the job
    spans more than one leaf group (SU, or leaf when not rail-optimised): traffic then crosses spines."""
    request = topology.request
    nic = float(request.nic_speed_gbps)
    if topology.scalable_units > 1:
        nic = nic / float(topology.leaf_oversubscription)
    return estimate_allreduce(
        request.nodes, request.gpus_per_node, nic, request.nics_per_node, request.intra_node_gbps
    )
