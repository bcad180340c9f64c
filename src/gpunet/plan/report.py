"""Print a plan: a text table for people, JSON for tools, CSV of the bill of materials."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from gpunet.plan.analysis import PlanSummary
from gpunet.plan.collective import gbps_to_gbytes_per_s
from gpunet.plan.designs import Candidate, Recommendation
from gpunet.plan.request import format_ratio

BOM_COLUMNS = (
    "design",
    "reach",
    "links",
    "total_length_m",
    "transceivers",
    "cost_factor",
    "relative_cost",
    "used_for",
)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [["-" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _tbps(gbps: float) -> str:
    return f"{gbps / 1000:g} Tb/s"


def _gbytes(gbps: float) -> str:
    return f"{gbps_to_gbytes_per_s(gbps):.1f} GB/s"


def plan_text(recommendation: Recommendation) -> str:
    summary = recommendation.summary
    topology, request = summary.topology, summary.topology.request
    out = [
        f"Design: {summary.design}  ({recommendation.reason})",
        f"{request.gpus} GPUs in {request.nodes} nodes x {request.gpus_per_node}; {request.nics} NICs at "
        f"{request.nic_speed_gbps}G ({request.nics_per_node} per node); switch radix {request.switch_radix}",
        f"Leaf ports: {topology.leaf_down} down / {topology.leaf_up} up; scalable units: "
        f"{topology.scalable_units}; pods: {topology.pods}; switches: {summary.switches}",
        "",
        format_table(
            ("tier", "switches", "down", "up", "free", "of them", "oversubscription"),
            [
                (
                    tier.tier if index == 0 else "",
                    tier.switches if index == 0 else "",
                    use.down,
                    use.up,
                    use.free,
                    use.switches,
                    (format_ratio(tier.oversubscription) if tier.oversubscription else None)
                    if index == 0
                    else "",
                )
                for tier in summary.tiers
                for index, use in enumerate(tier.ports)
            ],
        ),
        "",
        f"Bisection bandwidth: {_tbps(summary.bisection_gbps)}",
        f"Largest cluster on radix {request.switch_radix} with {_tiers(topology.tiers)}: "
        f"{summary.largest_non_blocking_gpus} GPUs non-blocking, "
        f"{summary.largest_at_oversubscription_gpus} at {format_ratio(request.oversubscription)}",
        "",
        format_table(("between two GPUs on", "switch hops"), [(h.pair, h.switch_hops) for h in summary.hops]),
        "",
        bom_text(summary),
        "",
        collective_text(summary),
    ]
    return "\n".join(out)


def _tiers(count: int) -> str:
    return f"{count} tier{'s' if count > 1 else ''}"


def bom_text(summary: PlanSummary) -> str:
    bom = summary.bom
    rows = [
        (
            r.reach,
            r.links,
            r.total_length_m,
            r.transceivers,
            r.cost_factor,
            f"{r.relative_cost:g}",
            " ".join(r.used_for),
        )
        for r in bom.rows
    ]
    rows.append(
        (
            "total",
            bom.links,
            sum(r.total_length_m for r in bom.rows),
            sum(r.transceivers for r in bom.rows),
            "",
            f"{bom.relative_cost:g}",
            "",
        )
    )
    table = format_table(
        ("cabling", "links", "length m", "transceivers", "cost factor", "relative cost", "used for"), rows
    )
    return (
        f"{table}\nSwitch ports: {bom.switch_ports_used} used of {bom.switch_ports_total}; "
        f"NIC ports: {bom.nic_ports}"
    )


def collective_text(summary: PlanSummary) -> str:
    c = summary.collective
    request = summary.topology.request
    node_nic = request.nics_per_node * request.nic_speed_gbps
    throttled = (
        f"; {c.node_nic_gbps:.0f} Gb/s of it across the spines at "
        f"{format_ratio(summary.topology.leaf_oversubscription)}"
        if c.node_nic_gbps < node_nic
        else ""
    )
    return (
        f"Per-node NIC bandwidth: {node_nic} Gb/s ({_gbytes(node_nic)}){throttled}\n"
        f"All-reduce busbw bound (nccl-tests): ring {_gbytes(c.ring_busbw_gbps)}, "
        f"tree {_gbytes(c.tree_busbw_gbps)}, hierarchical {_gbytes(c.hierarchical_busbw_gbps)}\n"
        f"Prefer {c.preferred} ({c.reason}); expect up to {_gbytes(c.preferred_busbw_gbps)} busbw"
    )


COMPARISON_ROWS = (
    ("leaf switches", lambda s: len(s.topology.switches_in_tier("leaf"))),
    ("spine switches", lambda s: len(s.topology.switches_in_tier("spine"))),
    ("super-spine switches", lambda s: len(s.topology.switches_in_tier("superspine"))),
    ("switch ports used", lambda s: s.bom.switch_ports_used),
    ("DAC links", lambda s: _links(s, "dac")),
    ("AOC links", lambda s: _links(s, "aoc")),
    ("optics links", lambda s: _links(s, "optics")),
    ("relative cabling cost", lambda s: f"{s.bom.relative_cost:g}"),
    ("max switch hops", lambda s: s.max_hops),
    ("nodes one hop apart", lambda s: s.one_hop_nodes),
    ("leaf oversubscription", lambda s: format_ratio(s.topology.leaf_oversubscription)),
    ("bisection", lambda s: _tbps(s.bisection_gbps)),
    ("largest non-blocking GPUs", lambda s: s.largest_non_blocking_gpus),
    ("expected busbw", lambda s: _gbytes(s.collective.preferred_busbw_gbps)),
)


def _links(summary: PlanSummary, reach: str) -> int:
    return sum(row.links for row in summary.bom.rows if row.reach == reach)


def comparison_text(candidates: Sequence[Candidate]) -> str:
    rows = []
    for label, value in COMPARISON_ROWS:
        rows.append([label] + [value(c.summary) if c.summary else "does not fit" for c in candidates])
    table = format_table(["", *(c.name for c in candidates)], rows)
    notes = [f"{c.name}: {c.problem}" for c in candidates if c.problem]
    return "\n".join([table, *notes])


def plan_json(recommendation: Recommendation, candidates: Sequence[Candidate] | None) -> str:
    data: dict[str, object] = {
        "recommended": {**recommendation.summary.as_dict(), "reason": recommendation.reason}
    }
    if candidates is not None:
        data["candidates"] = [
            {"design": c.name, "plan": c.summary.as_dict() if c.summary else None, "problem": c.problem}
            for c in candidates
        ]
    return json.dumps(data, indent=2)


def bom_csv(summaries: Sequence[PlanSummary]) -> str:
    """One row per reach class and design, then a total row per design."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(BOM_COLUMNS)
    for summary in summaries:
        for row in summary.bom.rows:
            data = row.as_dict()
            writer.writerow([summary.design, *(data[column] for column in BOM_COLUMNS[1:])])
        bom = summary.bom
        writer.writerow(
            [
                summary.design,
                "total",
                bom.links,
                sum(r.total_length_m for r in bom.rows),
                sum(r.transceivers for r in bom.rows),
                "",
                round(bom.relative_cost, 2),
                "",
            ]
        )
    return buffer.getvalue()
