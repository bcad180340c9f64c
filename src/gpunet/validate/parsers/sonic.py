"""SONiC `show` commands (click CLI; tables printed by tabulate).

A table's rows are read only under its own header: another table's header (a newer release's
extra table, a watermark table after the counters) ends it, so its rows never leak in. A port
listed twice in one table is a duplicated capture.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import is_rule, number

_PFC_HEADER = re.compile(r"^\s*Port (?P<direction>Rx|Tx)\s+PFC0")
_PROFILE = re.compile(r"^Profile:\s*\**(?P<name>[^*]+?)\**\s*$")
_PORT = re.compile(r"^Ethernet\d+|^PortChannel\d+")


def parse_show_pfc_counters(text: str) -> dict[str, Any]:
    """{"rx": {port: [pfc0..pfc7]}, "tx": {...}}."""
    counters: dict[str, dict[str, list[int | None]]] = {}
    direction: str | None = None
    # Read for every switch of a fabric when its counters are exported (a row per port): split
    # lines as they are (trailing blanks change no token), a row of plain digits is converted in
    # one pass, each distinct count once (most are 0).
    as_int = _Integers().__getitem__
    ports: dict[str, bool] = {}
    for line in text.splitlines():
        if "PFC0" in line and (match := _PFC_HEADER.match(line)):
            direction = match["direction"].lower()
            if direction in counters:
                raise ParseError(f"two 'Port {match['direction']}' tables (a duplicated capture)")
            counters[direction] = {}
            continue
        tokens = line.split()
        if _is_other_header(tokens):
            direction = None
        elif direction and len(tokens) == 9 and _is_port(tokens[0], ports):
            values = tokens[1:]
            digits = "".join(values).isdigit()
            counters[direction][tokens[0]] = (
                list(map(as_int, values)) if digits else [number(t) for t in values]
            )
    if not counters:
        raise ParseError("no 'Port Rx/Tx PFC0 ...' table found: not `show pfc counters` output")
    return counters


def parse_show_pfc_priority(text: str) -> dict[str, Any]:
    """{"interfaces": {port: [lossless priorities]}}; repeated tables are merged."""
    interfaces: dict[str, list[int]] = {}
    seen_header = reading = False
    for line in content_lines(text):
        if line.strip().startswith("Interface") and "Lossless priorities" in line:
            seen_header = reading = True
            continue
        tokens = line.split()
        if _is_other_header(tokens):
            reading = False
        elif seen_header and reading and tokens and _PORT.match(tokens[0]):
            priorities = tokens[1] if len(tokens) > 1 else ""
            interfaces[tokens[0]] = [int(p) for p in priorities.split(",") if p.isdigit()]
    if not seen_header:
        raise ParseError("no 'Interface  Lossless priorities' table: not `show pfc priority` output")
    return {"interfaces": interfaces}


def parse_show_queue_counters(text: str, queue: str | None = None) -> dict[str, Any]:
    """{"queues": [{port, queue, counter_pkts, counter_bytes, drop_pkts, drop_bytes}]}; with
    `queue` ("UC3"), only that queue's rows, as the whole table lists them, read from the lines
    that name the queue or a table header alone: a port listed twice for that queue is refused,
    a repeated row of another queue goes unread."""
    queues: list[dict[str, Any]] = []
    seen_header = reading = False
    seen: set[tuple[str, str]] = set()
    ports: dict[str, bool] = {}  # name -> a port's name: each port has a row per queue
    lines = text.splitlines()
    if queue is not None:
        # The largest capture of a fabric: a row per port and queue (1,024 for 128 ports and 8
        # queues, 2,560 with SONiC's usual 10 unicast and 10 multicast), of which the drop check
        # reads one per port. A line that names neither the queue nor a header (TxQ, Port,
        # Interface) is no row of the queue and changes no table state.
        lines = [
            line for line in lines if queue in line or "TxQ" in line or "Port" in line or "Interface" in line
        ]
    # Lines split as they are (trailing blanks change no token).
    for line in lines:
        if "TxQ" in line and "Drop/pkts" in line:
            seen_header = reading = True
            continue
        tokens = line.split()
        if not tokens:
            continue
        first = tokens[0]
        if first in _OTHER_HEADERS:
            reading = False
            continue
        if reading and len(tokens) == 6 and _is_port(first, ports):
            key = (first, tokens[1])
            if key in seen:
                raise ParseError(f"{first} {tokens[1]} is listed twice (a duplicated capture)")
            seen.add(key)
            if queue is None or tokens[1] == queue:
                queues.append(_queue_row(tokens))
    if not seen_header:
        raise ParseError("no 'Port TxQ Counter/pkts ...' table: not `show queue counters` output")
    return {"queues": queues}


def _queue_row(tokens: list[str]) -> dict[str, Any]:
    port, queue, pkts, octets, drop_pkts, drop_bytes = tokens
    return {
        "port": port,
        "queue": queue,
        "counter_pkts": int(pkts) if pkts.isdigit() else number(pkts),
        "counter_bytes": int(octets) if octets.isdigit() else number(octets),
        "drop_pkts": int(drop_pkts) if drop_pkts.isdigit() else number(drop_pkts),
        "drop_bytes": int(drop_bytes) if drop_bytes.isdigit() else number(drop_bytes),
    }


def parse_show_ecn(text: str) -> dict[str, Any]:
    """{"profiles": {name: {key: value}}} (WRED/ECN profiles; markdown bold markers dropped)."""
    profiles: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in content_lines(text):
        if match := _PROFILE.match(line.strip()):
            current = profiles.setdefault(match["name"].strip(), {})
            continue
        tokens = line.split()
        if current is not None and len(tokens) == 2 and not is_rule(line):
            key, value = tokens
            current[key] = int(value) if value.isdigit() else value
    if not profiles:
        raise ParseError("no 'Profile:' block found: not `show ecn` output")
    return {"profiles": profiles}


def _is_port(name: str, known: dict[str, bool]) -> bool:
    """Whether `name` is a port's (each name matched once: a table lists a port on many rows)."""
    found = known.get(name)
    if found is None:
        found = known[name] = bool(_PORT.match(name))
    return found


# The first word of another table's header line (`Port ...`, `Interface ...`): never a port name.
_OTHER_HEADERS = frozenset({"Port", "Interface"})


class _Integers(dict):
    """A string of digits -> its int, each converted once (int() is most of a counter row's cost)."""

    def __missing__(self, digits: str) -> int:
        value = self[digits] = int(digits)
        return value


def _is_other_header(tokens: list[str]) -> bool:
    """The header line of a table the caller is not reading (`Port ...`, `Interface ...`)."""
    return bool(tokens) and tokens[0] in _OTHER_HEADERS
