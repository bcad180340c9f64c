"""Choose the design for a request (`--tiers auto`) and lay out the candidates side by side."""

from __future__ import annotations

from dataclasses import dataclass

from gpunet.plan.analysis import PlanSummary, design_name, summarize
from gpunet.plan.fattree import build_topology, max_nodes
from gpunet.plan.request import PlanInputError, PlanRequest, format_ratio


@dataclass(frozen=True)
class Recommendation:
    summary: PlanSummary
    reason: str


@dataclass(frozen=True)
class Candidate:
    name: str
    summary: PlanSummary | None
    problem: str | None  # why this design cannot hold the request


def recommend(request: PlanRequest) -> Recommendation:
    """The design the request asks for; with tiers auto, the fewest tiers that hold it.
    Raises PlanInputError when none does."""
    rail = request.rail_optimised
    ratio = format_ratio(request.oversubscription)
    if request.tiers != "auto":
        tiers = int(request.tiers)
        return Recommendation(summarize(build_topology(request, tiers, rail)), f"{tiers} tiers as requested")
    if request.nics <= request.switch_radix:
        return Recommendation(summarize(build_topology(request, 1, rail)), _single_switch_reason(request))
    two_tier_gpus = max_nodes(request, 2, rail) * request.gpus_per_node
    if request.nodes <= max_nodes(request, 2, rail):
        reason = (
            f"{request.gpus} GPUs fit two tiers of radix {request.switch_radix} "
            f"(up to {two_tier_gpus} GPUs at {ratio}): fewer switches, optics and hops than three tiers"
        )
        return Recommendation(summarize(build_topology(request, 2, rail)), reason)
    reason = f"{request.gpus} GPUs exceed the two-tier limit of {two_tier_gpus} GPUs at {ratio}"
    return Recommendation(summarize(build_topology(request, 3, rail)), reason)


def _single_switch_reason(request: PlanRequest) -> str:
    """Why one switch is the honest answer, and when even that is more than needed."""
    reason = (
        f"all {request.nics} NICs fit one switch of radix {request.switch_radix}: no spines, one hop; "
        "a second switch would add only redundancy (--tiers 2: rail leaves and spines)"
    )
    if request.nodes == 1:
        reason += "; with one node the GPUs all-reduce over NVLink, so the switch only serves nodes to come"
    elif request.nodes == 2:
        reason += (
            "; two nodes could even be cabled NIC to NIC (back-to-back) without a switch, "
            "which gpunet's inventory does not model"
        )
    return reason


def compare(request: PlanRequest) -> list[Candidate]:
    """Two- and three-tier, rail-optimised and top-of-rack, for the same request; first a single
    switch when every NIC fits one (only then: a column of 'does not fit' would say nothing)."""
    candidates = []
    if request.nics <= request.switch_radix:
        candidates.append(Candidate(design_name(1, True), summarize(build_topology(request, 1, True)), None))
    for tiers in (2, 3):
        for rail in (True, False):
            name = design_name(tiers, rail)
            try:
                summary = summarize(build_topology(request, tiers, rail))
            except PlanInputError as error:
                candidates.append(Candidate(name, None, "; ".join(p.message for p in error.problems)))
            else:
                candidates.append(Candidate(name, summary, None))
    return candidates
