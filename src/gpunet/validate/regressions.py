"""What got worse between two gpunet-validate JSON reports of the same fabric: the before/after
comparison a canary gate makes around a change, so a problem the fabric already had before the
push (a slow NIC, a cable) does not hold back every later rollout, while any new one does.

A result is keyed by its check and target. A problem is a `fail` or `error`; a regression is a
problem in the after report whose key was not a problem before (passed, skipped, not checked, or
absent). Where a key has several results, its worst status counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROBLEMS = ("fail", "error")
# Worst first: the status a key takes where several results share it.
SEVERITY = ("fail", "error", "not checked", "skipped", "pass")


class ReportError(ValueError):
    """A report that is not a gpunet-validate JSON report."""


@dataclass(frozen=True)
class Comparison:
    regressions: list[dict[str, Any]]  # the after report's results that are new problems
    known: list[dict[str, Any]]  # problems the before report already had
    fixed: list[tuple[str, str]]  # keys that were problems before and are not now

    @property
    def exit_code(self) -> int:
        return 4 if self.regressions else 0


def load_report(path: Path) -> dict[str, Any]:
    try:
        report = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ReportError(f"{path}: not readable as JSON ({error})") from None
    results = report.get("results") if isinstance(report, dict) else None
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and {"check", "target", "status"} <= r.keys() for r in results
    ):
        raise ReportError(
            f"{path}: no results list of check, target and status: not a gpunet-validate JSON report"
        )
    return report


def _worst(results: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    worst: dict[tuple[str, str], str] = {}
    for result in results:
        key = (str(result["check"]), str(result["target"]))
        status = str(result["status"])
        rank = SEVERITY.index(status) if status in SEVERITY else 0  # an unknown status counts as a problem
        if key not in worst or rank < SEVERITY.index(worst[key]):
            worst[key] = SEVERITY[rank] if status in SEVERITY else "error"
    return worst


def compare(before: Mapping[str, Any], after: Mapping[str, Any]) -> Comparison:
    if before.get("fabric") != after.get("fabric"):
        raise ReportError(f"the reports are of fabrics {before.get('fabric')!r} and {after.get('fabric')!r}")
    was = _worst(before["results"])
    now = _worst(after["results"])
    regressions, known = [], []
    for result in after["results"]:
        status = str(result["status"])
        if status in SEVERITY and status not in PROBLEMS:
            continue
        key = (str(result["check"]), str(result["target"]))
        (known if was.get(key) in PROBLEMS else regressions).append(dict(result))
    fixed = sorted(key for key, status in was.items() if status in PROBLEMS and now.get(key) not in PROBLEMS)
    return Comparison(regressions, known, fixed)


def describe(comparison: Comparison) -> str:
    lines = [
        f"{len(comparison.regressions)} new problem(s), {len(comparison.known)} already there before, "
        f"{len(comparison.fixed)} fixed"
    ]
    for result in comparison.regressions:
        lines.append(
            f"  NEW {result['status']}: {result['check']} {result['target']}: "
            f"expected {result.get('expected', '')}, got {result.get('actual', '')}"
        )
    for result in comparison.known:
        lines.append(f"  known {result['status']}: {result['check']} {result['target']}")
    return "\n".join(lines)
