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
    two_tier_gpus = max_nodes(request, 2, rail) * request.gpus_per_node
    if request.nodes <= max_nodes(request, 2, rail):
        reason = (
            f"{request.gpus} GPUs fit two tiers of radix {request.switch_radix} "
            f"(up to {two_tier_gpus} GPUs at {ratio}): fewer switches, optics and hops than three tiers"
        )
        return Recommendation(summarize(build_topology(request, 2, rail)), reason)
    reason = f"{request.gpus} GPUs exceed the two-tier limit of {two_tier_gpus} GPUs at {ratio}"
    return Recommendation(summarize(build_topology(request, 3, rail)), reason)


def compare(request: PlanRequest) -> list[Candidate]:
    """Two- and three-tier, rail-optimised and top-of-rack, for the same request."""
    candidates = []
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
