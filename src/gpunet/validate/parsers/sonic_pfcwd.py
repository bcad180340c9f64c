"""SONiC `show pfcwd stats`: the PFC watchdog's storm and packet counts per port and queue.

sonic-utilities `pfcwd/main.py` (at 691b1bb) `show_stats` prints one `tabulate` simple table
(stralign and numalign right): header `QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP RX OK/DROP
TX LAST OK/DROP RX LAST OK/DROP`, a dashed rule, then a row per queue the watchdog watches, named
`<port>:<queue>`, with its status (`operational`, `stormed`, N/A) and five `<a>/<b>` pairs from
COUNTERS_DB (PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED / _RESTORED first). A queue whose counts are all
zero is left out (unless `--empty`), so an absent queue had no storm. The expected outputs in
sonic-utilities `tests/pfcwd_input/pfcwd_test_vectors.py` are this layout.

A row with other than the seven fields, a count pair that is not `<n>/<n>`, a queue listed twice,
or text without the header is a cut or garbled capture: an error naming the line.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError

_HEADER = [
    "QUEUE",
    "STATUS",
    "STORM",
    "DETECTED/RESTORED",
    "TX",
    "OK/DROP",
    "RX",
    "OK/DROP",
    "TX",
    "LAST",
    "OK/DROP",
    "RX",
    "LAST",
    "OK/DROP",
]
_RULE = re.compile(r"^-+(\s+-+){6}$")
_QUEUE = re.compile(r"^(?P<port>[A-Za-z][\w./-]*):(?P<queue>\d+)$")
_PAIR = re.compile(r"^(\d+)/(\d+)$")
_PAIRS = (
    ("storm_detected", "storm_restored"),
    ("tx_ok", "tx_drop"),
    ("rx_ok", "rx_drop"),
    ("tx_last_ok", "tx_last_drop"),
    ("rx_last_ok", "rx_last_drop"),
)


def parse_show_pfcwd_stats(text: str) -> dict[str, Any]:
    """{"queues": [{port, queue, status, storm_detected, storm_restored, tx_ok, tx_drop, ...}],
    "zero_rows_omitted": true}."""
    queues: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    header = False
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split()
        if not tokens:
            continue
        if tokens == _HEADER:
            if header:
                raise ParseError(f"line {number}: a second `show pfcwd stats` header (two captures)")
            header = True
            continue
        if not header:
            if tokens[0] == "QUEUE" or _QUEUE.match(tokens[0]):
                raise ParseError(f"line {number}: before the `show pfcwd stats` header: {raw.strip()[:80]!r}")
            continue  # a prompt or the command line
        if _RULE.match(raw.strip()):
            continue
        name = _QUEUE.match(tokens[0])
        pairs = [_PAIR.match(token) for token in tokens[2:]]
        if len(tokens) != 7 or name is None or not all(pairs):
            raise ParseError(
                f"line {number}: not a row of queue, status and five counts: {raw.strip()[:80]!r}"
            )
        key = (name["port"], int(name["queue"]))
        if key in seen:
            raise ParseError(f"line {number}: {tokens[0]} listed twice")
        seen.add(key)
        row: dict[str, Any] = {"port": key[0], "queue": key[1], "status": tokens[1]}
        for (first, second), token in zip(_PAIRS, tokens[2:], strict=True):
            left, right = token.split("/")
            row[first], row[second] = int(left), int(right)
        queues.append(row)
    if not header:
        raise ParseError("no `QUEUE STATUS STORM DETECTED/RESTORED ...` header: not `show pfcwd stats`")
    return {"queues": queues, "zero_rows_omitted": True}
