"""SONiC `show pfcwd stats` (sonic-utilities pfcwd/main.py at 691b1bb): one tabulate "simple" table
(right-aligned; a column as wide as its header plus tabulate's two characters of padding or its
widest value) of `<port>:<queue>`, status and five `<a>/<b>` counts, read strictly."""

from __future__ import annotations

import pytest

from gpunet.validate.parsers import ParseError, parse

HEADER = (
    "QUEUE",
    "STATUS",
    "STORM DETECTED/RESTORED",
    "TX OK/DROP",
    "RX OK/DROP",
    "TX LAST OK/DROP",
    "RX LAST OK/DROP",
)


def pfcwd_stats(rows: list[tuple[str, str, int, int, int]]) -> str:
    """What `show pfcwd stats` prints for (queue, status, storms detected, restored, tx ok) rows."""
    table = [
        (queue, status, f"{det}/{res}", f"{ok}/0", f"{ok}/0", "0/0", "0/0")
        for queue, status, det, res, ok in rows
    ]
    widths = [
        max(len(h) + 2, *(len(r[i]) for r in table)) if table else len(h) + 2 for i, h in enumerate(HEADER)
    ]
    lines = ["  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in table]
    return "\n".join(lines) + "\n"


CAPTURE = pfcwd_stats(
    [("Ethernet0:3", "stormed", 2, 1, 7_300_000), ("Ethernet8:3", "operational", 0, 0, 1200)]
)


def test_storms_are_read_per_port_and_queue() -> None:
    queues = {(q["port"], q["queue"]): q for q in parse("sonic-show-pfcwd-stats", CAPTURE)["queues"]}
    assert queues[("Ethernet0", 3)]["storm_detected"] == 2 and queues[("Ethernet0", 3)]["storm_restored"] == 1
    assert queues[("Ethernet0", 3)]["status"] == "stormed"
    assert queues[("Ethernet8", 3)]["tx_ok"] == 1200 and queues[("Ethernet8", 3)]["storm_detected"] == 0
    assert parse("sonic-show-pfcwd-stats", pfcwd_stats([]))["queues"] == []  # no queue counted anything


@pytest.mark.parametrize(
    ("case", "change", "reason"),
    [
        ("cut mid-row", lambda t: t[: t.rindex("/")], "line 4: not a row"),
        ("garbled pair", lambda t: t.replace("2/1", "2-1", 1), "line 3: not a row"),
        ("a queue twice", lambda t: t + t.splitlines()[2] + "\n", "line 5: Ethernet0:3 listed twice"),
        ("two captures", lambda t: t + t.splitlines()[0] + "\n", "line 5: a second"),
        ("cut at its top", lambda t: "\n".join(t.splitlines()[2:]), "line 1: before the"),
        ("not the command", lambda t: "SKIPPED: PFC is not enabled on port: Ethernet8\n", "no `QUEUE STATUS"),
    ],
)
def test_a_damaged_capture_is_refused_naming_the_line(case: str, change, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("sonic-show-pfcwd-stats", change(CAPTURE))
    assert reason in str(caught.value), case
