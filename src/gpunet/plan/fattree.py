"""Size a two- or three-tier fat-tree (folded Clos) and lay out every cable.

Conventions (docs/planner.md explains them with examples):
- Ports are counted at the NIC speed; uplinks run at the NIC speed too.
- A leaf splits its radix k into d downlinks and u uplinks with d/u <= the requested
  oversubscription (1:1 gives d = u = k/2). Downlinks take ports 1..d, uplinks d+1..d+u.
- Rail-optimised: a scalable unit (SU) is d nodes and one leaf per rail; NIC r of every node in the
  SU lands on the SU's rail-r leaf. Not rail-optimised: a leaf takes d // nics_per_node whole nodes.
- A partly filled cluster (one SU, not full) gets only the uplinks its fullest leaf needs at the
  ratio, two at least; free ports stay free for growth.
- One tier (a single switch): when every NIC of the cluster fits one switch, that switch is the
  whole fabric, rail-optimised or not: NIC r of node n on port n * nics_per_node + r + 1.
- Two tiers: every leaf connects to every spine with the same number of links (u / spines).
- Three tiers: pods of at most k/2 leaves (whole SUs when rail-optimised) with their own spines
  (k/2 down, as many up: the spine tier is non-blocking); spine j of every pod joins plane j of
  super-spines, again with the same number of links to each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from gpunet.model.errors import Problem
from gpunet.plan.request import Distances, PlanInputError, PlanRequest, format_ratio

HOST_LEAF = "host-leaf"
LEAF_SPINE = "leaf-spine"
SPINE_SUPERSPINE = "spine-superspine"


@dataclass(frozen=True)
class Endpoint:
    device: str
    port: int  # switch port number (1-based), or the NIC index on a GPU node (0-based, = rail)


@dataclass(frozen=True)
class Link:
    kind: str
    lower: Endpoint
    upper: Endpoint
    length_m: int
    reach: str  # dac, aoc or optics


@dataclass
class PlannedSwitch:
    name: str
    tier: str  # leaf, spine or superspine
    radix: int
    group: str  # SU, pod or plane it belongs to
    down_used: int = 0
    up_used: int = 0

    @property
    def free(self) -> int:
        return self.radix - self.down_used - self.up_used


@dataclass(frozen=True)
class PlannedNode:
    name: str
    rack: int


@dataclass
class Topology:
    request: PlanRequest
    tiers: int
    rail_optimised: bool
    leaf_down: int
    leaf_up: int
    scalable_units: int
    pods: int
    nodes: list[PlannedNode] = field(default_factory=list)
    switches: dict[str, PlannedSwitch] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    # Uplinks per switch of the lower tier of each kind of link, e.g. {LEAF_SPINE: 32}.
    uplinks: dict[str, int] = field(default_factory=dict)

    def uplinks_of(self, switch: str) -> int:
        tier = self.switches[switch].tier
        return self.uplinks[LEAF_SPINE if tier == "leaf" else SPINE_SUPERSPINE]

    def switches_in_tier(self, tier: str) -> list[PlannedSwitch]:
        return [s for s in self.switches.values() if s.tier == tier]

    @property
    def leaf_oversubscription(self) -> Fraction:
        """Downlink to uplink capacity of the fullest leaf; a single switch is non-blocking (1:1)."""
        ratios = [Fraction(s.down_used, s.up_used) for s in self.switches_in_tier("leaf") if s.up_used]
        return max(ratios, default=Fraction(1))


def split_leaf_ports(radix: int, oversubscription: Fraction) -> tuple[int, int]:
    """(downlinks, uplinks) of a leaf: as many downlinks as the ratio allows, never above it."""
    up = math.floor(radix / (1 + oversubscription))
    down = math.floor(up * oversubscription)
    return down, up


def stripe_width(lower_count: int, uplinks_each: int, capacity: int) -> int | None:
    """Fewest upper switches (two at least, for redundancy, where there are two uplinks) such that
    each lower switch reaches every one of them with the same number of links (so the count divides
    `uplinks_each`) and none takes more than `capacity`."""
    for width in range(min(2, uplinks_each), uplinks_each + 1):
        if uplinks_each % width == 0 and lower_count * (uplinks_each // width) <= capacity:
            return width
    return None


def economical_uplinks(needed: int, most: int, lower_count: int, capacity: int) -> int:
    """The uplink count from `needed` to `most` that stripes onto the fewest upper switches
    (then the fewest uplinks): 11 uplinks need 11 spines, 12 need two."""

    def upper_switches(uplinks: int) -> int:
        width = stripe_width(lower_count, uplinks, capacity)
        return width if width is not None else capacity + 1

    return min(range(needed, most + 1), key=lambda uplinks: (upper_switches(uplinks), uplinks))


def reach_class(length_m: int, distances: Distances) -> str:
    if length_m <= distances.dac_max_m:
        return "dac"
    if length_m <= distances.aoc_max_m:
        return "aoc"
    return "optics"


def _names(prefix: str, count: int) -> list[str]:
    width = max(2 if prefix == "gpu" else 3, len(str(count)))
    return [f"{prefix}{index:0{width}d}" for index in range(1, count + 1)]


def max_nodes(request: PlanRequest, tiers: int, rail_optimised: bool) -> int:
    """The most GPU nodes this radix, leaf split and tier count can hold."""
    k = request.switch_radix
    if tiers == 1:
        return k // request.nics_per_node
    down, _ = split_leaf_ports(k, request.oversubscription)
    rails = request.nics_per_node
    if rail_optimised:
        leaves_per_group, nodes_per_group = rails, down
    else:
        leaves_per_group, nodes_per_group = 1, down // rails
    if tiers == 2:
        # Each spine port reaches one leaf: at most k leaves (one link from each leaf to each of u spines).
        return (k // leaves_per_group) * nodes_per_group
    groups_per_pod = (k // 2) // leaves_per_group
    # Each super-spine port reaches one pod's spine: at most k pods.
    return k * groups_per_pod * nodes_per_group


def build_topology(request: PlanRequest, tiers: int, rail_optimised: bool) -> Topology:
    """Lay out the design; raise PlanInputError when this radix and tier count cannot hold it."""
    if tiers == 1:
        return build_single_switch(request, rail_optimised)
    k = request.switch_radix
    down, up = split_leaf_ports(k, request.oversubscription)
    rails = request.nics_per_node
    if rail_optimised:
        nodes_per_group, leaves_per_group = down, rails
    else:
        nodes_per_group, leaves_per_group = down // rails, 1
    if nodes_per_group < 1 or up < 1:
        fix = (
            "a lower oversubscription or more ports"
            if up < 1 or rail_optimised
            else f"more ports (a leaf needs {rails} downlinks and an uplink), or rail_optimised yes"
        )
        raise PlanInputError(
            [
                Problem(
                    "plan.switch_radix",
                    f"a leaf with {down} downlinks and {up} uplinks cannot hold one node's {rails} NICs",
                    k,
                    fix,
                )
            ]
        )
    capacity = max_nodes(request, tiers, rail_optimised)
    if capacity == 0:
        raise PlanInputError(
            [
                Problem(
                    "plan.switch_radix",
                    f"a scalable unit of {leaves_per_group} rail leaves does not fit under pod spines "
                    f"with {k // 2} downlinks",
                    k,
                    f">= {2 * leaves_per_group} ports, fewer NICs per node or rail_optimised no",
                )
            ]
        )
    if request.nodes > capacity:
        raise PlanInputError(
            [
                Problem(
                    "plan.gpus",
                    f"does not fit a {tiers}-tier fat-tree of radix {k} at "
                    f"{format_ratio(request.oversubscription)}{' rail-optimised' if rail_optimised else ''}",
                    request.gpus,
                    f"<= {capacity * request.gpus_per_node} GPUs, more tiers or a larger radix",
                )
            ]
        )
    groups = math.ceil(request.nodes / nodes_per_group)
    topology = Topology(
        request=request,
        tiers=tiers,
        rail_optimised=rail_optimised,
        leaf_down=down,
        leaf_up=up,
        scalable_units=groups,
        pods=1,
    )
    topology.nodes = [
        PlannedNode(name, index // request.rack_size)
        for index, name in enumerate(_names("gpu", request.nodes))
    ]
    leaves = _names("leaf", groups * leaves_per_group)
    for index, name in enumerate(leaves):
        topology.switches[name] = PlannedSwitch(name, "leaf", k, f"su{index // leaves_per_group + 1}")
    _cable_hosts(topology, leaves, nodes_per_group, leaves_per_group)
    # A partly filled cluster needs only the uplinks its fullest leaf uses at the ratio (at least
    # two, for redundancy); a full leaf gets all of them. The same count on every leaf keeps the
    # striping even.
    fullest = max(topology.switches[name].down_used for name in leaves)
    needed = min(up, max(math.ceil(fullest / request.oversubscription), 2))
    pod_leaves = ((k // 2) // leaves_per_group) * leaves_per_group
    if tiers == 2:
        topology.leaf_up = economical_uplinks(needed, up, len(leaves), k)
        _cable_two_tier(topology, leaves)
    else:
        topology.leaf_up = economical_uplinks(needed, up, min(pod_leaves, len(leaves)), k // 2)
        _cable_three_tier(topology, leaves, pod_leaves)
    return topology


def build_single_switch(request: PlanRequest, rail_optimised: bool) -> Topology:
    """Every NIC on one switch: no spines, one hop between any two GPUs on the fabric."""
    k = request.switch_radix
    if request.nics > k:
        raise PlanInputError(
            [
                Problem(
                    "plan.gpus",
                    f"needs {request.nics} switch ports, more than one switch of radix {k} has",
                    request.gpus,
                    f"<= {max_nodes(request, 1, rail_optimised) * request.gpus_per_node} GPUs, "
                    "2 tiers or a larger radix",
                )
            ]
        )
    topology = Topology(
        request=request,
        tiers=1,
        rail_optimised=rail_optimised,
        leaf_down=k,
        leaf_up=0,
        scalable_units=1,
        pods=1,
    )
    topology.nodes = [
        PlannedNode(name, index // request.rack_size)
        for index, name in enumerate(_names("gpu", request.nodes))
    ]
    (leaf,) = _names("leaf", 1)
    topology.switches[leaf] = PlannedSwitch(leaf, "leaf", k, "su1")
    racks = {node.rack for node in topology.nodes}
    leaf_rack = racks.pop() if len(racks) == 1 else None
    for slot, node in enumerate(topology.nodes):
        length = request.distances.in_rack_m if node.rack == leaf_rack else request.distances.cross_rack_m
        for nic in range(request.nics_per_node):
            port = slot * request.nics_per_node + nic + 1
            _add_link(topology, HOST_LEAF, Endpoint(node.name, nic), Endpoint(leaf, port), length)
            topology.switches[leaf].down_used += 1
    return topology


def _add_link(topology: Topology, kind: str, lower: Endpoint, upper: Endpoint, length_m: int) -> None:
    reach = reach_class(length_m, topology.request.distances)
    topology.links.append(Link(kind, lower, upper, length_m, reach))


def _cable_hosts(topology: Topology, leaves: list[str], nodes_per_group: int, leaves_per_group: int) -> None:
    request = topology.request
    distances = request.distances
    rails = request.nics_per_node
    for group_index in range(len(leaves) // leaves_per_group):
        members = topology.nodes[group_index * nodes_per_group : (group_index + 1) * nodes_per_group]
        # A leaf sits in its nodes' rack when they all share one; else in a network rack of the row.
        racks = {node.rack for node in members}
        leaf_rack = racks.pop() if len(racks) == 1 else None
        for slot, node in enumerate(members):
            for nic in range(rails):
                if topology.rail_optimised:
                    leaf, port = leaves[group_index * rails + nic], slot + 1
                else:
                    leaf, port = leaves[group_index], slot * rails + nic + 1
                length = distances.in_rack_m if node.rack == leaf_rack else distances.cross_rack_m
                _add_link(topology, HOST_LEAF, Endpoint(node.name, nic), Endpoint(leaf, port), length)
                topology.switches[leaf].down_used += 1


def _stripe(
    topology: Topology, kind: str, lower: list[str], upper: list[str], first_up_port: int, length_m: int
) -> None:
    """Connect every lower switch to every upper switch with the same number of links; the lower
    switches' uplinks start at `first_up_port`, the upper switches' downlinks at port 1."""
    per_pair = topology.uplinks_of(lower[0]) // len(upper)
    for lower_index, lower_name in enumerate(lower):
        for upper_index, upper_name in enumerate(upper):
            for link in range(per_pair):
                lower_port = first_up_port + upper_index * per_pair + link
                upper_port = lower_index * per_pair + link + 1
                _add_link(
                    topology,
                    kind,
                    Endpoint(lower_name, lower_port),
                    Endpoint(upper_name, upper_port),
                    length_m,
                )
                topology.switches[lower_name].up_used += 1
                topology.switches[upper_name].down_used += 1


def _no_striping(tier: str, lower: int, uplinks: int, capacity: int) -> PlanInputError:
    # max_nodes() rules this out; kept so a future sizing change fails loudly, not silently.
    return PlanInputError(
        [
            Problem(
                "plan",
                f"cannot stripe {lower} switches with {uplinks} uplinks onto {tier} of {capacity} ports",
            )
        ]
    )


def _cable_two_tier(topology: Topology, leaves: list[str]) -> None:
    k = topology.request.switch_radix
    width = stripe_width(len(leaves), topology.leaf_up, k)
    if width is None:
        raise _no_striping("spines", len(leaves), topology.leaf_up, k)
    spines = _names("spine", width)
    for name in spines:
        topology.switches[name] = PlannedSwitch(name, "spine", k, "spine")
    topology.uplinks[LEAF_SPINE] = topology.leaf_up
    distance = topology.request.distances.leaf_spine_m
    _stripe(topology, LEAF_SPINE, leaves, spines, topology.leaf_down + 1, distance)


def _cable_three_tier(topology: Topology, leaves: list[str], pod_leaves: int) -> None:
    k = topology.request.switch_radix
    distances = topology.request.distances
    pods = math.ceil(len(leaves) / pod_leaves)
    full_pod = min(pod_leaves, len(leaves))
    spines_per_pod = stripe_width(full_pod, topology.leaf_up, k // 2)
    if spines_per_pod is None:
        raise _no_striping("pod spines", full_pod, topology.leaf_up, k // 2)
    # Non-blocking spine tier: as many uplinks as a full pod's leaves send down to it.
    spine_up = full_pod * (topology.leaf_up // spines_per_pod)
    per_plane = stripe_width(pods, spine_up, k)
    if per_plane is None:
        raise _no_striping("super-spines", pods, spine_up, k)
    topology.pods = pods
    topology.uplinks[LEAF_SPINE] = topology.leaf_up
    topology.uplinks[SPINE_SUPERSPINE] = spine_up
    spines = _names("spine", pods * spines_per_pod)
    superspines = _names("superspine", spines_per_pod * per_plane)
    for pod in range(pods):
        pod_spines = spines[pod * spines_per_pod : (pod + 1) * spines_per_pod]
        for name in pod_spines:
            topology.switches[name] = PlannedSwitch(name, "spine", k, f"pod{pod + 1}")
        pod_members = leaves[pod * pod_leaves : (pod + 1) * pod_leaves]
        _stripe(topology, LEAF_SPINE, pod_members, pod_spines, topology.leaf_down + 1, distances.leaf_spine_m)
    for plane in range(spines_per_pod):
        plane_superspines = superspines[plane * per_plane : (plane + 1) * per_plane]
        for name in plane_superspines:
            topology.switches[name] = PlannedSwitch(name, "superspine", k, f"plane{plane + 1}")
        plane_spines = spines[plane::spines_per_pod]
        _stripe(
            topology,
            SPINE_SUPERSPINE,
            plane_spines,
            plane_superspines,
            k // 2 + 1,
            distances.spine_superspine_m,
        )
