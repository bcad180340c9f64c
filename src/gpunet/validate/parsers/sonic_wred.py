"""SONiC `show queue wredcounters`: WRED drops and ECN marks per port and queue.

sonic-utilities `scripts/wredstat` (at 691b1bb) prints one `tabulate` simple table per port, each
followed by a blank line: header `Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts
EcnMarked/bytes` (`Voq` for `--voq`), a dashed rule, then a row per queue (UC<n>, MC<n>, ALL<n>,
VOQ<n>) with four counts or N/A (the SAI_QUEUE_STAT_WRED_DROPPED_* and
SAI_QUEUE_STAT_WRED_ECN_MARKED_* counters); after `sonic-clear queue wredcounters` a `<port> Last
cached time was ...` line comes before the port's table (the counts are then since the clear).
The expected output in sonic-utilities `tests/wred_queue_counter_test.py` is this layout.

EcnMarked/pkts of the lossless queue is the counter that proves the switch marked.
A row with other than six fields, a queue name or count that is not one, a port and queue listed
twice, or a header with no rows under it is a cut or garbled capture: an error naming the line.
So is one of the messages wredstat prints before `sys.exit(1)` (scripts/wredstat at 691b1bb: an
empty COUNTERS_PORT_NAME_MAP or COUNTERS_QUEUE_NAME_MAP, a port or queue missing from them, a queue
of no known type, `-p` naming no port): the ports after it were never printed, and on a multi-ASIC
switch one namespace's empty map ends the whole command, so the error names the message.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError

_HEADERS = {
    ("Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"),
    ("Port", "Voq", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"),
}
_KEYS = ("wred_drop_pkts", "wred_drop_bytes", "ecn_marked_pkts", "ecn_marked_bytes")
_QUEUE = re.compile(r"^(UC|MC|ALL|VOQ)\d+$")
_RULE = re.compile(r"^-+(\s+-+){5}$")
# wredstat's fatal messages, each printed just before sys.exit(1) (scripts/wredstat at 691b1bb).
_FATAL = (
    "Port is not available!",
    "COUNTERS_PORT_NAME_MAP is empty!",
    "COUNTERS_QUEUE_NAME_MAP is empty!",
    "Queue index is not available!",
    "Queue Type is not available!",
    "Queue Type is invalid:",
    "Port does not exist!",
)


def parse_show_queue_wredcounters(text: str) -> dict[str, Any]:
    """{"queues": [{port, queue, wred_drop_pkts, wred_drop_bytes, ecn_marked_pkts, ecn_marked_bytes}]}
    (None where SONiC prints N/A)."""
    queues: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    in_table = False
    header_at = 0  # the line of the open table's header while no row is under it
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split()
        fatal = next((m for m in _FATAL if raw.strip().startswith(m)), None)
        if fatal:
            raise ParseError(
                f"line {number}: wredstat stopped with {raw.strip()[:80]!r}, so nothing after it was printed"
            )
        if not tokens:
            if header_at:
                raise ParseError(f"line {header_at}: a wredcounters header with no rows under it")
            in_table = False
            continue
        if tuple(tokens) in _HEADERS:
            if header_at:
                raise ParseError(f"line {header_at}: a wredcounters header with no rows under it")
            in_table, header_at = True, number
            continue
        if not in_table:
            # A header of other columns, or a row with no header above it (a capture cut at its top).
            row_like = len(tokens) > 1 and _QUEUE.match(tokens[1]) is not None
            if tokens[0] == "Port" or tokens[0].startswith("-") or row_like:
                raise ParseError(f"line {number}: outside a wredcounters table: {raw.strip()[:80]!r}")
            continue  # "For namespace ...:", "<port> Last cached time was ...", a prompt
        if _RULE.match(raw.strip()):
            continue
        if len(tokens) != 6 or not _QUEUE.match(tokens[1]):
            raise ParseError(f"line {number}: not a row of port, queue and four counts: {raw.strip()[:80]!r}")
        counts = [None if t == "N/A" else t for t in tokens[2:]]
        if any(c is not None and not (c.isdigit() and c.isascii()) for c in counts):
            raise ParseError(f"line {number}: a count that is not a number: {raw.strip()[:80]!r}")
        key = (tokens[0], tokens[1])
        if key in seen:
            raise ParseError(f"line {number}: {tokens[0]} {tokens[1]} listed twice (two captures?)")
        seen.add(key)
        header_at = 0
        queues.append(
            {"port": tokens[0], "queue": tokens[1]}
            | {k: None if c is None else int(c) for k, c in zip(_KEYS, counts, strict=True)}
        )
    if header_at:
        raise ParseError(f"line {header_at}: a wredcounters header with no rows under it")
    if not seen:
        raise ParseError(
            "no `Port TxQ WredDrp/pkts ... EcnMarked/bytes` table: not `show queue wredcounters`"
        )
    return {"queues": queues}
