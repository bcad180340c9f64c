"""Markdown report for a pull request: summary, then problems, then a per-check pass count."""

from __future__ import annotations

from collections import Counter

from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import summary_line
from gpunet.validate.results import Status, exit_code

_ICON = {Status.FAIL: "❌ fail", Status.ERROR: "⚠️ error", Status.SKIPPED: "⏭️ skipped", Status.PASS: "✅ pass"}
_ICON[Status.NOT_CHECKED] = "🔲 not checked"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(verdict: Verdict) -> str:
    results = verdict.results
    lines = [
        f"## gpunet-validate: fabric `{verdict.manifest.fabric}`",
        "",
        f"**{summary_line(results)}** (exit code {exit_code(results)})",
        "",
    ]
    problems = [r for r in results if r.status != Status.PASS]
    if problems:
        lines += [
            "| status | check | target | expected | actual | message |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| {_ICON[r.status]} | {r.check} | `{_cell(r.target)}` | {_cell(r.expected)} "
            f"| {_cell(r.actual)} | {_cell(r.message)} |"
            for r in sorted(problems, key=lambda r: (r.status != Status.FAIL, r.check, r.target))
        ]
        lines.append("")
    lines += ["| check | pass | fail | error | skipped |", "| --- | ---: | ---: | ---: | ---: |"]
    per_check: dict[str, Counter[Status]] = {}
    for result in results:
        per_check.setdefault(result.check, Counter())[result.status] += 1
    for check, tally in per_check.items():
        columns = (tally[Status.PASS], tally[Status.FAIL], tally[Status.ERROR], tally[Status.SKIPPED])
        lines.append(f"| {check} | " + " | ".join(map(str, columns)) + " |")
    return "\n".join(lines) + "\n"
