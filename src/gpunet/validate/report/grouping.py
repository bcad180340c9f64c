"""Ordering shared by the reports: by device, then check; problems first within a device."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from gpunet.validate.results import Result, Status, check_of, status_of

_RANK = {Status.FAIL: 0, Status.ERROR: 1, Status.NOT_CHECKED: 2, Status.SKIPPED: 3, Status.PASS: 4}


def by_group(results: list[Result]) -> list[tuple[str, list[Result]]]:
    ordered = sorted(results, key=lambda r: (r.group, _RANK[r.status], r.check, r.target))
    return [(group, list(members)) for group, members in groupby(ordered, key=lambda r: r.group)]


def summary_line(results: list[Result]) -> str:
    from gpunet.validate.results import counts

    totals = counts(results)
    return ", ".join(f"{count} {status}" for status, count in totals.items())


def counts_per_check(results: list[Result]) -> dict[str, dict[Status, int]]:
    """Check -> results per status (every status, zeros included), checks in order of first
    result. One count of (check, status) pairs: 600,000 results, but a few dozen pairs."""
    tally = Counter(zip(map(check_of, results), map(status_of, results), strict=True))
    per_check: dict[str, dict[Status, int]] = {}
    for (check, status), number in tally.items():
        per_check.setdefault(check, dict.fromkeys(Status, 0))[status] = number
    return per_check
