"""Markdown report for a pull request: summary, the incast evidence per rail (when the incast
checks ran), one row per device, problems, per-check counts.

Every host and switch of the manifest gets a row (pass, fail, error, skipped or not checked, with
its counts and its first problem or the reason it was not checked), devices with problems first.
At thousands of hosts the passing devices' rows go into a collapsed `<details>` block, and the
problem detail is cut at MAX_PROBLEM_ROWS (the device rows still name every failing device).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gpunet.validate.coverage import devices_of
from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import counts_per_check, summary_line
from gpunet.validate.report.incast_view import incast_view
from gpunet.validate.report.jinja import render_section
from gpunet.validate.report.safe_text import markdown_code, markdown_text
from gpunet.validate.results import Result, Status, exit_code, status_of, target_of

_ICON = {Status.FAIL: "❌ fail", Status.ERROR: "⚠️ error", Status.SKIPPED: "⏭️ skipped", Status.PASS: "✅ pass"}
_ICON[Status.NOT_CHECKED] = "🔲 not checked"
# A device's verdict is its worst result; skipped only counts when nothing passed.
_DEVICE_RANK = {Status.FAIL: 0, Status.ERROR: 1, Status.NOT_CHECKED: 2, Status.SKIPPED: 3, Status.PASS: 4}
_PROBLEM_RANK = {Status.FAIL: 0, Status.ERROR: 1, Status.NOT_CHECKED: 2, Status.SKIPPED: 3}
# Passing devices beyond this many are listed in a collapsed block, so the page opens on the problems.
MAX_OPEN_PASS_ROWS = 64
MAX_PROBLEM_ROWS = 200
_DEVICE_HEADER = [
    "| device | kind | verdict | pass | fail | error | skipped | first problem or reason |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |",
]


@dataclass
class DeviceRow:
    name: str
    kind: str
    tally: Counter[Status] = field(default_factory=Counter)
    first_problem: Result | None = None

    @property
    def verdict(self) -> Status:
        for status in (Status.FAIL, Status.ERROR, Status.PASS, Status.SKIPPED):
            if self.tally[status]:
                return status
        return Status.NOT_CHECKED

    def note_problem(self, result: Result) -> None:
        """Keep `result` (not a pass) as the device's first problem unless an earlier one ranks as high."""
        if (
            self.first_problem is None
            or _PROBLEM_RANK[result.status] < _PROBLEM_RANK[self.first_problem.status]
        ):
            self.first_problem = result


def _cell(text: str) -> str:
    return markdown_text(text)


def device_rows(verdict: Verdict) -> list[DeviceRow]:
    """One row per manifest host and switch: problems first (fail, error, not checked, skipped),
    within a verdict the device with the most failed and errored results first, then by name."""
    manifest = verdict.manifest
    rows = {name: DeviceRow(name, "host") for name in manifest.hosts}
    rows |= {name: DeviceRow(name, f"switch ({s.platform})") for name, s in manifest.switches.items()}
    results = verdict.results
    # Counted per (target, status) first: 600,000 results at 4,096 hosts share far fewer targets.
    for (target, status), number in Counter(
        zip(map(target_of, results), map(status_of, results), strict=True)
    ).items():
        for device in devices_of(target, manifest):
            if device in rows:
                rows[device].tally[status] += number
    for result in results:  # the first problem of each device, in result order
        if result.status in _PROBLEM_RANK:
            for device in devices_of(result.target, manifest):
                if device in rows:
                    rows[device].note_problem(result)
    return sorted(
        rows.values(),
        key=lambda row: (
            _DEVICE_RANK[row.verdict],
            -row.tally[Status.FAIL] - row.tally[Status.ERROR],
            row.name,
        ),
    )


def _device_line(row: DeviceRow) -> str:
    problem = row.first_problem
    detail = ""
    if problem is not None:
        extra = sum(row.tally[s] for s in _PROBLEM_RANK) - 1
        what = problem.message if problem.status == Status.NOT_CHECKED else problem.actual
        if problem.message and problem.status != Status.NOT_CHECKED:
            what += f" ({problem.message})"
        detail = f"{_cell(problem.check)} {markdown_code(problem.target)}: {_cell(what)}"
        detail += f" (+{extra} more)" if extra > 0 else ""
    counts = (
        row.tally[Status.PASS],
        row.tally[Status.FAIL],
        row.tally[Status.ERROR],
        row.tally[Status.SKIPPED],
    )
    return (
        f"| {markdown_code(row.name)} | {_cell(row.kind)} | {_ICON[row.verdict]} | "
        + " | ".join(map(str, counts))
        + f" | {detail} |"
    )


def _devices_section(verdict: Verdict) -> list[str]:
    rows = device_rows(verdict)
    verdicts = Counter(row.verdict for row in rows)
    summary = ", ".join(f"{verdicts[s]} {s}" for s in _DEVICE_RANK if verdicts[s])
    lines = [f"### Devices ({len(rows)}: {summary})", "", *_DEVICE_HEADER]
    passing = [row for row in rows if row.verdict == Status.PASS]
    others = [row for row in rows if row.verdict != Status.PASS]
    lines += [_device_line(row) for row in others]
    if len(passing) <= MAX_OPEN_PASS_ROWS:
        lines += [_device_line(row) for row in passing]
        return [*lines, ""]
    lines += ["", f"<details><summary>{len(passing)} devices pass</summary>", "", *_DEVICE_HEADER]
    lines += [_device_line(row) for row in passing]
    return [*lines, "", "</details>", ""]


def _problems_section(results: list[Result]) -> list[str]:
    problems = sorted(
        (r for r in results if r.status in (Status.FAIL, Status.ERROR)),
        key=lambda r: (r.status != Status.FAIL, r.check, r.target),
    )
    if not problems:
        return []
    lines = [
        "### Problems",
        "",
        "| status | check | target | expected | actual | message |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {_ICON[r.status]} | {_cell(r.check)} | {markdown_code(r.target)} | {_cell(r.expected)} "
        f"| {_cell(r.actual)} | {_cell(r.message)} |"
        for r in problems[:MAX_PROBLEM_ROWS]
    ]
    if len(problems) > MAX_PROBLEM_ROWS:
        lines += [
            "",
            f"... and {len(problems) - MAX_PROBLEM_ROWS} more: `--format json` or `html` lists them all.",
        ]
    return [*lines, ""]


def _per_check_section(results: list[Result]) -> list[str]:
    lines = [
        "### Per check",
        "",
        "| check | pass | fail | error | skipped | not checked |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for check, tally in counts_per_check(results).items():
        columns = (Status.PASS, Status.FAIL, Status.ERROR, Status.SKIPPED, Status.NOT_CHECKED)
        lines.append(f"| {check} | " + " | ".join(str(tally[s]) for s in columns) + " |")
    return lines


def _incast_section(verdict: Verdict) -> list[str]:
    """The incast evidence per rail, before the devices: a rollout's go or stop is read there."""
    rails = incast_view(verdict)
    if not rails:
        return []
    icons = {str(status): icon for status, icon in _ICON.items()} | {"": ""}
    return render_section("incast.md.j2", markdown_text, rails=rails, icons=icons).splitlines()


def render_markdown(verdict: Verdict) -> str:
    results = verdict.results
    lines = [
        f"## gpunet-validate: fabric `{verdict.manifest.fabric}`",
        "",
        f"**{summary_line(results)}** (exit code {exit_code(results)})",
        "",
        *_incast_section(verdict),
        *_devices_section(verdict),
        *_problems_section(results),
        *_per_check_section(results),
    ]
    return "\n".join(lines) + "\n"
