"""A self-contained HTML page: summary, problems, every result, and an inline-SVG heatmap of the
pair bandwidth matrix (share of line rate, worst rail per host pair). No network assets."""

from __future__ import annotations

from collections import defaultdict
from html import escape

from gpunet.validate.checks.traffic import PairMeasurement
from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import by_group, summary_line
from gpunet.validate.results import exit_code

CELL = 28
LABEL = 90

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
tr.fail td.status { background: #f8d0d0; } tr.error td.status { background: #fbeec0; }
tr.skipped td.status { color: #777; } tr.pass td.status { background: #d8f0d8; }
h2 { margin-top: 1.5em; } .legend { font-size: 0.85em; color: #555; }
"""


def render_html(verdict: Verdict) -> str:
    results = verdict.results
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>gpunet-validate {escape(verdict.manifest.fabric)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>gpunet-validate: fabric {escape(verdict.manifest.fabric)}</h1>",
        f"<p><strong>{escape(summary_line(results))}</strong> (exit code {exit_code(results)})</p>",
        "<h2>Pair bandwidth (ib_write_bw, share of line rate)</h2>",
        heatmap_svg(verdict.pairs),
        '<p class="legend">Each cell: the worst rail of that client/server pair; hover for every rail. '
        "Grey: not measured.</p>",
        "<h2>Results by device</h2>",
    ]
    for group, members in by_group(results):
        parts.append(f"<h3>{escape(group)}</h3><table><tr><th>check</th><th>target</th><th>status</th>")
        parts.append("<th>expected</th><th>actual</th><th>message</th></tr>")
        for r in members:
            parts.append(
                f'<tr class="{r.status}"><td>{escape(r.check)}</td><td>{escape(r.target)}</td>'
                f'<td class="status">{r.status}</td><td>{escape(r.expected)}</td><td>{escape(r.actual)}</td>'
                f"<td>{escape(r.message)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def heatmap_svg(pairs: list[PairMeasurement]) -> str:
    if not pairs:
        return "<p>No pair tests were scheduled.</p>"
    hosts = sorted({p.client for p in pairs} | {p.server for p in pairs})
    cells: dict[tuple[str, str], list[PairMeasurement]] = defaultdict(list)
    for pair in pairs:
        # A pair test measures the link both ways' worth: show it on both sides of the diagonal.
        cells[(pair.client, pair.server)].append(pair)
        cells[(pair.server, pair.client)].append(pair)
    size = LABEL + CELL * len(hosts)
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 10}" height="{size + 10}" '
        f'role="img" aria-label="pair bandwidth heatmap" font-size="11" font-family="sans-serif">'
    ]
    for index, host in enumerate(hosts):
        offset = LABEL + index * CELL
        svg.append(
            f'<text x="{LABEL - 4}" y="{offset + CELL * 0.65:.0f}" text-anchor="end">{escape(host)}</text>'
        )
        svg.append(
            f'<text x="{offset + CELL / 2:.0f}" y="{LABEL - 4}" text-anchor="start" '
            f'transform="rotate(-60 {offset + CELL / 2:.0f} {LABEL - 4})">{escape(host)}</text>'
        )
    for row, client in enumerate(hosts):
        for column, server in enumerate(hosts):
            measured = cells.get((client, server))
            if not measured:
                continue
            ratios = [p.gbps / p.line_rate_gbps for p in measured if p.gbps is not None]
            worst = min(ratios) if ratios else None
            tooltip = f"{client} -> {server}: " + "; ".join(
                _rail_text(p) for p in sorted(measured, key=lambda p: p.rail)
            )
            x, y = LABEL + column * CELL, LABEL + row * CELL
            svg.append(
                f'<rect x="{x}" y="{y}" width="{CELL - 1}" height="{CELL - 1}" '
                f'fill="{_colour(worst)}"><title>{escape(tooltip)}</title></rect>'
            )
            if worst is not None:
                svg.append(
                    f'<text x="{x + CELL / 2:.0f}" y="{y + CELL * 0.65:.0f}" '
                    f'text-anchor="middle" font-size="9">{worst * 100:.0f}</text>'
                )
    svg.append("</svg>")
    return "\n".join(svg)


def _rail_text(pair: PairMeasurement) -> str:
    measured = "not measured" if pair.gbps is None else f"{pair.gbps:.1f}/{pair.line_rate_gbps} Gb/s"
    return f"rail {pair.rail}: {measured}"


def _colour(ratio: float | None) -> str:
    """Red (<= 50 % of line rate) through yellow to green (>= 95 %); grey when not measured."""
    if ratio is None:
        return "#cccccc"
    share = max(0.0, min(1.0, (ratio - 0.5) / 0.45))
    red = int(220 * min(1.0, 2 * (1 - share)))
    green = int(190 * min(1.0, 2 * share))
    return f"#{red:02x}{green:02x}40"
