"""A self-contained HTML page for a person who has to find the broken link. No network assets.

Top to bottom: the summary; every problem with where to look (host, NIC, switch, port); passes
counted per check; a pair view of one cell per NIC (hosts x rails, the worst pair bandwidth as a
share of line rate, coloured against the pass threshold; failing cells link to their problem row);
a fabric view of the leaves and the other switches with the ones whose ports or checks failed
marked; with the cabling check, its links per rail and each problem under its switch port. With
the incast checks, their evidence per rail comes right after the summary (report/incast_view.py). Every
result as a row made 13 MB at 512 hosts; the page now grows with the problems, and
the pair view by one small cell per NIC (an empty element the browser places, about 38 bytes:
see pair_view), and it fits 1,400 px without horizontal scrolling. No SVG and no script.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from html import escape as html_escape

from gpunet.validate.checks.traffic import PairMeasurement
from gpunet.validate.judge import Verdict
from gpunet.validate.manifest import Manifest
from gpunet.validate.report.cabling_view import cabling_section
from gpunet.validate.report.grouping import by_group, counts_per_check, summary_line
from gpunet.validate.report.incast_view import incast_view
from gpunet.validate.report.jinja import render_section
from gpunet.validate.report.safe_text import visible
from gpunet.validate.results import Result, Status, exit_code

PAGE_WIDTH = 1400
VIEW_WIDTH = 1280  # pixels for cells within the page's margins
RAIL_LABEL = 34
_PROBLEMS = (Status.FAIL, Status.ERROR)
# Problems of one check shown at the top; the rest follow at the end of the page, so that 300
# hosts with the same clock problem do not push the pair and fabric views out of sight.
TOP_ROWS_PER_CHECK = 10


def escape(text: str) -> str:
    """`text` for HTML: markup characters escaped, control characters written visibly."""
    return html_escape(visible(text))


_CSS = f"""
body {{ font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: {PAGE_WIDTH - 60}px;
  color: #222; padding: 0 1em; }}
table {{ border-collapse: collapse; margin: 0.5em 0; font-size: 0.85em; width: 100%;
  table-layout: fixed; }}
th, td {{ border: 1px solid #ccc; padding: 0.2em 0.4em; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }}
td.fail {{ background: #f8d0d0; }} td.error {{ background: #fbeec0; }} td.pass {{ background: #d8efd8; }}
span.fail {{ background: #f8d0d0; }} span.error {{ background: #fbeec0; }}
table.counts {{ width: auto; }} table.counts td.n {{ text-align: right; }}
.legend span {{ display: inline-block; width: 1.2em; height: 0.9em; margin: 0 0.2em 0 0.8em;
  vertical-align: middle; }}
h2 {{ margin-top: 1.4em; }} .note {{ font-size: 0.85em; color: #555; }}
:target {{ outline: 3px solid #1060d0; }}
.pv {{ font-size: var(--label); line-height: var(--cell); }}
.pv p {{ margin: 0.6em 0 0.2em {RAIL_LABEL}px; font-size: 10px; line-height: 1.2; }}
.pv div {{ display: flex; height: var(--cell); }}
.pv span {{ flex: none; width: {RAIL_LABEL}px; white-space: nowrap; }}
.pv i, .pv a {{ flex: none; width: calc(var(--cell) - 1px); height: calc(var(--cell) - 1px);
  margin-right: 1px; }}
.sw {{ display: flex; flex-wrap: wrap; }}
.sw i {{ width: calc(var(--size) - 2px); height: calc(var(--size) - 2px); margin: 0 2px 2px 0;
  background: #7cbf7c; }}
.sw i.bad {{ background: #c02020; }}
"""


def render_html(verdict: Verdict) -> str:
    results = verdict.results
    problems = [r for r in results if r.status in _PROBLEMS]
    threshold = verdict.manifest.thresholds.perftest_min_fraction
    top, rest = _split_problems(problems)
    anchored: set[str] = set()
    pair_css, pair_cells = pair_view(verdict.pairs, verdict.manifest, threshold)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>gpunet-validate {escape(verdict.manifest.fabric)}</title>",
        f"<style>{_CSS}{pair_css}\n</style></head><body>",
        f"<h1>gpunet-validate: fabric {escape(verdict.manifest.fabric)}</h1>",
        f"<p><strong>{escape(summary_line(results))}</strong> (exit code {exit_code(results)})</p>",
        _incast_section(verdict),
        f"<h2>Problems ({len(problems)})</h2>",
        _problems_table(top, verdict.manifest, anchored),
        _more_note(rest),
        "<h2>Checks</h2>",
        _counts_table(results),
        "<h2>Pair bandwidth per NIC</h2>",
        _legend(threshold),
        pair_cells,
        "<h2>Fabric</h2>",
        _fabric_view(problems, verdict.manifest),
        cabling_section(results, verdict.manifest, escape),
    ]
    if rest:
        parts += [
            '<h2 id="more-problems">More problems</h2>',
            _problems_table(rest, verdict.manifest, anchored),
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _incast_section(verdict: Verdict) -> str:
    """The incast evidence per rail, near the top: whether a rollout may continue is read there."""
    rails = incast_view(verdict)
    return render_section("incast.html.j2", escape, rails=rails) if rails else ""


def where_to_look(result: Result, manifest: Manifest) -> list[tuple[str, str, str, str]]:
    """(host, NIC, switch, port) for each end a result's target names; switch-only for switches."""
    places = []
    for end in result.target.split("<->"):
        device, _, item = end.partition(":")
        host = manifest.hosts.get(device)
        if host is not None:
            nic = next((n for n in host.nics if n.name == item), None)
            places.append((device, item, nic.switch if nic else "", nic.switch_port if nic else ""))
        elif device in manifest.switches:
            places.append(("", "", device, item))
        else:
            places.append((device, item, "", ""))
    return places


def nic_anchor(host: str, nic: str) -> str:
    return f"nic-{host}-{nic}"


def _split_problems(problems: list[Result]) -> tuple[list[Result], list[Result]]:
    shown: dict[str, int] = defaultdict(int)
    top, rest = [], []
    for result in problems:
        shown[result.check] += 1
        (top if shown[result.check] <= TOP_ROWS_PER_CHECK else rest).append(result)
    return top, rest


def _more_note(rest: list[Result]) -> str:
    if not rest:
        return ""
    per_check: dict[str, int] = defaultdict(int)
    for result in rest:
        per_check[result.check] += 1
    counts = ", ".join(f"{count} {escape(check)}" for check, count in sorted(per_check.items()))
    link = '<a href="#more-problems">at the end of the page</a>'
    return f'<p class="note">{len(rest)} more ({counts}): {link}.</p>'


def _problems_table(problems: list[Result], manifest: Manifest, anchored: set[str]) -> str:
    if not problems:
        return "<p>None: every check passed or was skipped.</p>"
    rows = [
        '<table><colgroup><col style="width:6%"><col style="width:13%"><col style="width:9%">'
        '<col style="width:8%"><col style="width:9%"><col style="width:10%"><col style="width:17%">'
        '<col style="width:28%"></colgroup>',
        "<tr><th>status</th><th>check</th><th>host</th><th>NIC</th><th>switch</th><th>port</th>"
        "<th>expected</th><th>actual / message</th></tr>",
    ]
    for _, members in by_group(problems):
        for result in members:
            places = where_to_look(result, manifest)
            ids = []
            for host, nic, _, _ in places:
                anchor = nic_anchor(host, nic)
                if host and nic and anchor not in anchored:
                    anchored.add(anchor)
                    ids.append(anchor)
            # The first row of a NIC carries its anchor; any further ends of the row get spans.
            row_id = f' id="{ids[0]}"' if ids else ""
            extra = "".join(f'<span id="{i}"></span>' for i in ids[1:])
            detail = result.actual + (f" ({result.message})" if result.message else "")
            columns = ["<br>".join(escape(place[i]) for place in places) for i in range(4)]
            rows.append(
                f'<tr{row_id}><td class="{result.status}">{result.status}{extra}</td>'
                f"<td>{escape(result.check)}</td>" + "".join(f"<td>{c}</td>" for c in columns) + f"<td>"
                f"{escape(result.expected)}</td><td>{escape(detail)}</td></tr>"
            )
    rows.append("</table>")
    return "\n".join(rows)


def _counts_table(results: list[Result]) -> str:
    per_check = counts_per_check(results)
    ordered = sorted(per_check.items(), key=lambda item: (-sum(item[1][s] for s in _PROBLEMS), item[0]))
    rows = ['<table class="counts"><tr><th>check</th>' + "".join(f"<th>{s}</th>" for s in Status) + "</tr>"]
    for check, counts in ordered:
        cells = "".join(
            f'<td class="n{" " + str(s) if counts[s] and s in _PROBLEMS else ""}">{counts[s]}</td>'
            for s in Status
        )
        rows.append(f"<tr><td>{escape(check)}</td>{cells}</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def worst_share_per_nic(
    pairs: list[PairMeasurement], manifest: Manifest
) -> dict[tuple[str, int], float | None]:
    """(host, rail) -> the lowest measured share of line rate over the pairs that NIC took part in;
    None where it was scheduled but never measured."""
    shares: dict[tuple[str, int], list[float]] = defaultdict(list)
    scheduled: set[tuple[str, int]] = set()
    for pair in pairs:
        for host in (pair.client, pair.server):
            scheduled.add((host, pair.rail))
            if pair.gbps is not None:
                shares[(host, pair.rail)].append(pair.gbps / pair.line_rate_gbps)
    return {key: min(shares[key]) if shares.get(key) else None for key in scheduled}


def pair_view(pairs: list[PairMeasurement], manifest: Manifest, threshold: float) -> tuple[str, str]:
    """(CSS rules for the page's head, markup): the pair view as HTML blocks, one `<i>` per NIC.

    At 16,384 hosts the view is 131,072 cells, nearly the whole page. An SVG `<rect>` with its
    position, size, fill and `<title>` was 114 bytes a cell (15 MiB a page). Here the browser places
    the cells (a flex row per rail and band), one CSS rule gives their size, a class per colour in
    use their fill (none for the most common colour), and the hover title names host, NIC and the
    share of line rate (the legend says so): about 38 bytes a cell. Failing cells are `<a>`s to their
    problem row."""
    if not pairs:
        return "", "<p>No pair tests were scheduled.</p>"
    worst = worst_share_per_nic(pairs, manifest)
    rails = _rails(manifest)  # once: it walks every NIC of the fabric (was once per host)
    hosts = [name for name in manifest.hosts if any((name, rail) in worst for rail in rails)]
    cell = max(8, min(28, (VIEW_WIDTH - RAIL_LABEL) // max(1, len(hosts))))
    per_band = max(1, (VIEW_WIDTH - RAIL_LABEL) // cell)
    bands = [hosts[i : i + per_band] for i in range(0, len(hosts), per_band)]
    nic_names = {(h, n.rail): n.name for h in hosts for n in manifest.hosts[h].nics}
    fills = {(h, rail): _colour(worst.get((h, rail)), threshold) for h in hosts for rail in rails}
    # The most common colour is the cells' own background; each other colour gets a class.
    in_use = Counter(fills.values()).most_common()
    classes = {fill: f"k{index}" for index, (fill, _) in enumerate(in_use) if index}
    css = [
        f".pv {{ width: {RAIL_LABEL + per_band * cell}px; --cell: {cell}px; --label: {min(10, cell)}px; }}",
        f".pv i, .pv a {{ background: {in_use[0][0]}; }}",
        *(f".pv .{name} {{ background: {fill}; }}" for fill, name in classes.items()),
    ]
    html = ['<div class="pv">']
    for band in bands:
        html.append(f"<p>{escape(band[0])} .. {escape(band[-1])}</p>")
        for rail in rails:
            row = [f"<div><span>rail {rail}</span>"]
            for host in band:
                share = worst.get((host, rail))
                nic = nic_names.get((host, rail), f"rail{rail}")
                label = "not measured" if share is None else f"{share * 100:.0f}%"
                name = classes.get(fills[(host, rail)])
                attributes = f' class={name} title="' if name else ' title="'
                attributes += f'{escape(host)} {escape(nic)}: {label}"'
                if share is not None and share < threshold:
                    row.append(f'<a href="#{nic_anchor(host, nic)}"{attributes}></a>')
                else:
                    row.append(f"<i{attributes}></i>")
            html.append("".join(row) + "</div>")
    html.append("</div>")
    return "\n".join(css), "\n".join(html)


def _rails(manifest: Manifest) -> list[int]:
    return sorted({nic.rail for host in manifest.hosts.values() for nic in host.nics})


def _legend(threshold: float) -> str:
    steps = [(threshold - 0.4, "far below"), (threshold - 0.05, "just below"), (threshold, "at threshold")]
    swatches = "".join(
        f'<span style="background:{_colour(v, threshold)}"></span>{label}' for v, label in steps
    )
    return (
        '<p class="legend">One cell per NIC: the worst pair (ib_write_bw average) it took part in, '
        f"as a share of line rate; pass threshold {threshold * 100:.0f}%.{swatches}"
        f'<span style="background:{_colour(1.0, threshold)}"></span>line rate'
        f'<span style="background:{_colour(None, threshold)}"></span>not measured. '
        "Failing cells link to their problem row; hover a cell for its host, NIC and share.</p>"
    )


def _colour(share: float | None, threshold: float) -> str:
    """Green from the pass threshold up (lighter to darker); below it red, darkest far below;
    grey when not measured. The hue flips exactly at the threshold."""
    if share is None:
        return "#c8c8c8"
    if share >= threshold:
        depth = min(1.0, (share - threshold) / max(1e-9, 1.0 - threshold))
        return f"#{int(150 - 110 * depth):02x}{int(210 - 50 * depth):02x}{int(150 - 90 * depth):02x}"
    depth = min(1.0, (threshold - share) / max(1e-9, threshold))
    return f"#{int(245 - 95 * depth):02x}{int(160 - 150 * depth):02x}{int(140 - 130 * depth):02x}"


def _fabric_view(problems: list[Result], manifest: Manifest) -> str:
    """Leaves (the switches NICs attach to) and the other switches, one square each; red where a
    NIC on one of its ports or one of its own checks failed, with the ports named."""
    leaves = sorted({nic.switch for host in manifest.hosts.values() for nic in host.nics})
    others = sorted(set(manifest.switches) - set(leaves))
    failing_ports: dict[str, set[str]] = defaultdict(set)
    for result in problems:
        for host, nic, switch, port in where_to_look(result, manifest):
            if switch:
                failing_ports[switch].add(f"{port} ({host}:{nic})" if host else port or result.check)
    parts = []
    for title, names in (("leaves", leaves), ("spines and above", others)):
        if not names:
            continue
        marked = [n for n in names if n in failing_ports]
        parts.append(f"<h3>{len(names)} {title}, {len(marked)} with problems</h3>")
        parts.append(_switch_squares(names, failing_ports))
    listed = [
        f"<li>{escape(s)}: {escape(', '.join(sorted(p)))}</li>" for s, p in sorted(failing_ports.items())
    ]
    if listed:
        parts.append("<p>Ports to look at:</p><ul>" + "".join(listed) + "</ul>")
    return "\n".join(parts)


def _switch_squares(names: list[str], failing_ports: dict[str, set[str]]) -> str:
    """One square per switch, placed by the browser like the pair view's cells (was an SVG
    `<rect>` each)."""
    size = max(8, min(24, VIEW_WIDTH // max(1, len(names))))
    per_row = VIEW_WIDTH // size
    squares = []
    for name in names:
        ports = failing_ports.get(name)
        title = escape(f"{name}: " + (", ".join(sorted(ports)) if ports else "no problems"))
        squares.append(f'<i class=bad title="{title}"></i>' if ports else f'<i title="{title}"></i>')
    style = f"--size:{size}px;width:{min(len(names), per_row) * size}px"
    return f'<div class="sw" style="{style}">' + "".join(squares) + "</div>"
