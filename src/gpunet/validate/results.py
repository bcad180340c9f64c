"""The one result model every check returns, and the exit code a set of results maps to."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from operator import attrgetter


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"  # the check ran and the fabric is not as designed
    ERROR = "error"  # the check could not run: input missing or unreadable
    SKIPPED = "skipped"  # the inventory says this environment has no such hardware
    NOT_CHECKED = "not checked"  # a device of the inventory no selected check applies to


@dataclass
class Result:
    """One verdict on one target. A value: build a changed copy with dataclasses.replace, never
    assign to a field. Not declared frozen because a frozen dataclass sets each field through
    object.__setattr__, which made building one three times slower (a judgement builds 600,000);
    not slotted because orjson writes a slotted one 3.5 times slower (0.87 against 0.24 s for
    600,000 in the JSON report)."""

    check: str
    target: str  # what was judged: "gpu01", "gpu01:mlx5_0", "gpu01:mlx5_0<->gpu02:mlx5_0", "leaf01:Ethernet0"
    status: Status
    expected: str
    actual: str
    message: str = ""
    category: str = ""

    @property
    def group(self) -> str:
        """The device a result belongs to, for grouping reports by host or switch."""
        return self.target.split(":", 1)[0].split("<->", 1)[0]

    def as_dict(self) -> dict[str, str]:
        return {**asdict(self), "status": str(self.status)}


# A result as the judging processes send it back: its fields in order. A list of tuples pickles
# and unpickles about three times faster than the dataclasses themselves (600,000 at 4,096 hosts).
ResultRow = tuple[str, str, Status, str, str, str, str]


def as_rows(results: list[Result]) -> list[ResultRow]:
    return [(r.check, r.target, r.status, r.expected, r.actual, r.message, r.category) for r in results]


def from_rows(rows: list[ResultRow]) -> list[Result]:
    return [Result(*row) for row in rows]


# A result's status, check, target: read in C when counting hundreds of thousands of results.
status_of = attrgetter("status")
check_of = attrgetter("check")
target_of = attrgetter("target")


# A number a check read while judging, in base units (seconds, bytes per second, packets), for
# the reports that carry values (Prometheus): (check, target as in its Result, quantity such as
# "offset_seconds" or "rx_pause_frames", value). Kept beside the results, not in them, so the
# other reports stay as they are; recorded only when asked (`judge(..., measure=True)`). A plain
# tuple: 500,000 of them travel back from the judging processes, and a NamedTuple pickles 3.5
# times slower.
Measurement = tuple[str, str, str, float]


EXIT_PASSED = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_COULD_NOT_RUN = 3
EXIT_FAILED = 4


def exit_code(results: Iterable[Result]) -> int:
    """0 all passed (skips allowed); 4 any check failed; 3 otherwise if any check could not run,
    or if no check produced a result at all ("nothing was checked" is never a pass)."""
    statuses = set(map(status_of, results))
    if Status.FAIL in statuses:
        return EXIT_FAILED
    if Status.ERROR in statuses or not statuses - {Status.NOT_CHECKED}:
        return EXIT_COULD_NOT_RUN
    return EXIT_PASSED


def counts(results: Iterable[Result]) -> dict[str, int]:
    """Results per status, every status (zeros included), in Status order."""
    # Counted in C (Counter over attrgetter): every report asks, and a fabric has 600,000 results.
    tally = Counter(map(status_of, results))
    return {str(status): tally[status] for status in Status}
