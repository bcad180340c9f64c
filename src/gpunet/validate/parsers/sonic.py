"""SONiC `show` commands (click CLI; tables printed by tabulate).

A table's rows are read only under its own header: another table's header (a newer release's
extra table, a watermark table after the counters) ends it, so its rows never leak in. A port
listed twice in one table is a duplicated capture.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import is_rule, number

_PFC_HEADER = re.compile(r"^\s*Port (?P<direction>Rx|Tx)\s+PFC0")
_PROFILE = re.compile(r"^Profile:\s*\**(?P<name>[^*]+?)\**\s*$")
# A front-panel port, a multi-ASIC backplane port (`Ethernet-BP0`: sonic-utilities
# utilities_common/intf_filter.py SONIC_BACK_PORT_NAME_PREFIX; `show pfc counters -d all` and
# `show queue counters -d all` list them, tests/pfcstat_test.py and
# tests/multi_asic_queue_counter_test.py at 691b1bb), or a port channel.
_PORT = re.compile(r"^Ethernet(?:-BP)?\d+|^PortChannel\d+")


def parse_show_pfc_counters(text: str) -> dict[str, Any]:
    """{"rx": {port: [pfc0..pfc7]}, "tx": {...}} (sonic-utilities `scripts/pfcstat` at 691b1bb:
    a `Port Rx` and then a `Port Tx` table, each `tabulate` simple: header, rule, a row of 8
    counts or N/A per port, both over the same ports; a `Last cached time was ...` line before
    each after `sonic-clear pfccounters`). A line inside a table (between its header and the
    blank line after it) that is not a row of 9 fields, a table with no rows, a port listed twice
    in a table, a missing `Port Tx` table or one that lists fewer ports than the `Port Rx` table
    (a capture cut at a line's end) makes the capture unreadable: an error naming the line.

    A capture that starts with `{` is the COUNTERS_DB form gpunet collects first (see
    `_pfc_counters_db`), read into the same result."""
    if text.lstrip().startswith("{"):
        return _pfc_counters_db(text)
    counters: dict[str, dict[str, list[int | None]]] = {}
    direction: str | None = None
    # Read for every switch of a fabric when its counters are exported (a row per port): split
    # lines as they are (trailing blanks change no token), a row of plain digits is converted in
    # one pass, each distinct count once (most are 0).
    as_int = _Integers().__getitem__
    ports: dict[str, bool] = {}
    header_line = 0
    last_row = {"rx": 0, "tx": 0}  # the line of each table's last row
    tx_lines: dict[str, int] = {}  # port -> its line in the Tx table
    for number_, line in enumerate(text.splitlines(), 1):
        if "PFC0" in line and (match := _PFC_HEADER.match(line)):
            _refuse_empty_table(counters, direction, header_line, "show pfc counters")
            direction = match["direction"].lower()
            if direction in counters:
                raise ParseError(
                    f"line {number_}: two 'Port {match['direction']}' tables (a duplicated capture)"
                )
            if direction == "tx" and "rx" not in counters:
                raise ParseError(
                    f"line {number_}: a 'Port Tx' table without the 'Port Rx' table pfcstat prints "
                    "before it (a cut or damaged capture)"
                )
            counters[direction] = {}
            header_line = number_
            continue
        tokens = line.split()
        if direction is None:
            continue
        if len(tokens) == 9 and _is_port(tokens[0], ports):
            values = tokens[1:]
            digits = "".join(values).isdigit()
            row = list(map(as_int, values)) if digits else [number(t) for t in values]
            if (
                not digits
                and None in row
                and any(v is None and t != "N/A" for v, t in zip(row, values, strict=True))
            ):
                raise ParseError(f"line {number_}: {tokens[0]}: a PFC count is neither a number nor N/A")
            table = counters[direction]
            if tokens[0] in table:
                raise ParseError(
                    f"line {number_}: {tokens[0]} is listed twice in the 'Port {direction.title()}' "
                    "table (a duplicated capture)"
                )
            table[tokens[0]] = row
            last_row[direction] = number_
            if direction == "tx":
                tx_lines[tokens[0]] = number_
        elif not tokens or _is_other_header(tokens):
            _refuse_empty_table(counters, direction, header_line, "show pfc counters")
            direction = None
        elif not is_rule(line):
            raise ParseError(
                f"line {number_}: expected a row of the 'Port {direction.title()}' table "
                f"(a port and 8 PFC counts), found {' '.join(tokens)!r} (a cut or damaged capture)"
            )
    _refuse_empty_table(counters, direction, header_line, "show pfc counters")
    if not counters:
        raise ParseError("no 'Port Rx/Tx PFC0 ...' table found: not `show pfc counters` output")
    _refuse_cut_tx_table(counters, last_row, tx_lines)
    return counters


# COUNTERS_DB, as sonic-utilities `scripts/pfcstat` reads it (at 691b1bb): the port -> object id
# map COUNTERS_PORT_NAME_MAP, and per port the hash `COUNTERS:<oid>` with the fields of
# counter_bucket_rx_dict / counter_bucket_tx_dict; a field that is absent prints N/A.
PFC_NAME_MAP = "COUNTERS_PORT_NAME_MAP"
PFC_COUNTERS_PREFIX = "COUNTERS:"
PFC_DB_FIELDS = {
    "rx": tuple(f"SAI_PORT_STAT_PFC_{prio}_RX_PKTS" for prio in range(8)),
    "tx": tuple(f"SAI_PORT_STAT_PFC_{prio}_TX_PKTS" for prio in range(8)),
}
_OID = re.compile(r"^oid:0x[0-9a-fA-F]+$")


def _pfc_counters_db(text: str) -> dict[str, Any]:
    """The COUNTERS_DB capture: one JSON object of each Redis key read and what
    `sonic-db-cli -j COUNTERS_DB HGETALL <key>` answered for it (sonic-net/sonic-swss-common
    `common/redisreply.cpp` to_json_string at 85a39d8, PR #1205: HGETALL as an object of
    strings; or its redis-py dict answer without `-j`, saved as the same object by the
    collection): COUNTERS_PORT_NAME_MAP first, then `COUNTERS:<oid>` of each port it maps. The
    counts are the switch's raw ones, as pfcstat prints them before any `sonic-clear
    pfccounters`. Errors: cut JSON, a map that is not ports to object ids, a port whose hash is
    missing (a cut capture), a key the map does not lead to, a count that is not digits."""
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ParseError(
            f"COUNTERS_DB capture: not JSON (a cut capture?): {error.msg} at line {error.lineno}"
        ) from None
    if not isinstance(document, dict):
        raise ParseError("COUNTERS_DB capture: not an object of Redis keys")
    name_map = document.get(PFC_NAME_MAP)
    if not isinstance(name_map, dict) or not name_map:
        raise ParseError(f"COUNTERS_DB capture: no {PFC_NAME_MAP} object of ports")
    counters: dict[str, dict[str, list[int | None]]] = {"rx": {}, "tx": {}}
    expected = {PFC_NAME_MAP}
    for port, oid in name_map.items():
        if not isinstance(oid, str) or not _OID.match(oid):
            raise ParseError(
                f"COUNTERS_DB capture: {PFC_NAME_MAP} maps {port} to {oid!r}, not an oid:0x... id"
            )
        key = PFC_COUNTERS_PREFIX + oid
        expected.add(key)
        stats = document.get(key)
        if stats is None:
            raise ParseError(f"COUNTERS_DB capture: no {key} hash for {port} (a cut capture)")
        if not isinstance(stats, dict):
            raise ParseError(f"COUNTERS_DB capture: {key} ({port}) is not a hash")
        for direction, fields in PFC_DB_FIELDS.items():
            row: list[int | None] = []
            for field in fields:
                value = stats.get(field)
                if value is not None and not (isinstance(value, str) and value.isdigit()):
                    raise ParseError(f"COUNTERS_DB capture: {port} {field}: {value!r} is not a count")
                row.append(None if value is None else int(value))
            counters[direction][port] = row
    if extra := next((key for key in document if key not in expected), None):
        raise ParseError(
            f"COUNTERS_DB capture: {extra} is no port's counters in {PFC_NAME_MAP} (two captures spliced?)"
        )
    return counters


# A string as sonic-db-cli prints it in a redis-py dict (formatStringWithQuot: in single quotes,
# or in double quotes where it holds a single quote; nothing escaped).
_PY_STRING = r"'[^']*'|\"[^\"]*\""
_PY_PAIR = re.compile(rf"({_PY_STRING}): ({_PY_STRING})")


def redis_py_dict(answer: str) -> dict[str, str] | None:
    """An HGETALL answer as sonic-db-cli prints it without `-j`: redis-py's dict form
    (sonic-net/sonic-swss-common `common/redisreply.cpp` formatDictReply at 85a39d8, kept as the
    Python sonic-db-cli printed it by PR #631, ecf5bbc0): `{'field': 'value', ...}` on one line,
    `{}` for a key that does not exist. None where the answer is not exactly that (a refusal, a
    cut line, a field given twice)."""
    line = answer.strip()
    if not (line.startswith("{") and line.endswith("}")):
        return None
    body, position = line[1:-1], 0
    pairs: dict[str, str] = {}
    while body:
        match = _PY_PAIR.match(body, position)
        if match is None or match[1][1:-1] in pairs:
            return None
        pairs[match[1][1:-1]] = match[2][1:-1]
        position = match.end()
        if position == len(body):
            break
        if not body.startswith(", ", position):
            return None
        position += 2
    return pairs


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once (a Redis hash, or a key read, twice is a
    duplicated capture; json.loads would keep the last silently)."""
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ParseError(f"COUNTERS_DB capture: {twice} is given twice (a duplicated capture)")
    return document


def _refuse_cut_tx_table(
    counters: dict[str, dict[str, Any]], last_row: dict[str, int], tx_lines: dict[str, int]
) -> None:
    """pfcstat prints the `Port Tx` table after the `Port Rx` one, over the same ports: a capture
    cut at the end of a line lacks the Tx table, or lists fewer ports in it."""
    if "tx" not in counters:
        raise ParseError(
            f"line {last_row['rx']}: the capture ends after the 'Port Rx' table, without the "
            "'Port Tx' table pfcstat prints after it (a cut capture)"
        )
    rx, tx = counters["rx"], counters["tx"]
    if len(rx) == len(tx) and rx.keys() == tx.keys():
        return
    if extra := next((port for port in tx if port not in rx), None):
        raise ParseError(
            f"line {tx_lines[extra]}: the 'Port Tx' table lists {extra}, which the 'Port Rx' table "
            "does not (two captures spliced?)"
        )
    missing = next(port for port in rx if port not in tx)
    raise ParseError(
        f"line {last_row['tx']}: the 'Port Tx' table ends after {len(tx)} of the {len(rx)} ports "
        f"of the 'Port Rx' table ({missing} missing: a cut capture)"
    )


def _refuse_empty_table(
    counters: dict[str, dict[str, Any]], direction: str | None, header_line: int, what: str
) -> None:
    """A known table header with no row under it: its rows were cut or unreadable."""
    if direction is not None and not counters[direction]:
        raise ParseError(f"line {header_line}: the `{what}` table has a header but no port rows")


# A `Lossless priorities` cell: pfc/main.py showPfcPrio (sonic-utilities 691b1bb) prints the
# port's PORT_QOS_MAP `pfc_enable` (priorities joined by commas) or `N/A` where it has none;
# tabulate's missingval leaves an empty cell.
_LOSSLESS_CELL = re.compile(r"^(?:[0-7](?:,[0-7])*|N/A)$")


def parse_show_pfc_priority(text: str) -> dict[str, Any]:
    """{"interfaces": {port: [lossless priorities]}}; repeated tables are merged.

    A table runs from its header to the first blank line (tabulate prints none inside a table;
    click.echo() prints one after it). Every line in it is a rule or a row `<port> [<cell>]`:
    anything else (a row cut inside its port name or cell, a third cell) is an error naming the
    line, never skipped; a port twice in one table is a duplicated capture."""
    interfaces: dict[str, list[int]] = {}
    seen_header = reading = False
    table: set[str] = set()
    for number_, line in enumerate(content_lines(text), 1):
        if line.strip().startswith("Interface") and "Lossless priorities" in line:
            seen_header = reading = True
            table = set()
            continue
        tokens = line.split()
        if not tokens or _is_other_header(tokens):
            reading = False
            continue
        if not reading or is_rule(line):
            continue
        cell = tokens[1] if len(tokens) > 1 else ""
        if not _PORT.fullmatch(tokens[0]) or len(tokens) > 2 or (cell and not _LOSSLESS_CELL.match(cell)):
            raise ParseError(
                f"line {number_}: expected '<port>  <lossless priorities 0-7, comma-separated, or N/A>' "
                f"in the `Interface  Lossless priorities` table, got {line.strip()!r} (a cut or damaged row)"
            )
        if tokens[0] in table:
            raise ParseError(
                f"line {number_}: port {tokens[0]} listed twice in one table (duplicated capture)"
            )
        table.add(tokens[0])
        interfaces[tokens[0]] = [int(p) for p in cell.split(",") if p.isdigit()]
    if not seen_header:
        raise ParseError("no 'Interface  Lossless priorities' table: not `show pfc priority` output")
    return {"interfaces": interfaces}


# `show queue counters` layouts (sonic-utilities `scripts/queuestat`), each column's result key:
# - std_header `Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes` (every release; the
#   `For namespace <ns>:` line before each port's table since PR #3554, 94ec7108a, 2024-09);
# - all_header (`--all`) and trim_header (`--trim`): with `Trim/pkts` alone from PR #3830
#   (60c724c8d, 2025-05), with `Trim/pkts TrimSent/pkts TrimDrop/pkts` from PR #3993 (c63e9ea79,
#   2025-08; as at 691b1bb);
# - voq_header (`--voq`, chassis system ports `<linecard>|<asic>|EthernetN` or `<host>|EthernetN`):
#   `Port Voq` and the four standard counters from PR #1827 (6dbb4bdaa, 2022-06), with
#   `Credit-WD-Del/pkts` after them from PR #3322 (4133ef540, 2024-06; as at 691b1bb).
_QUEUE_COLUMNS = {
    "Counter/pkts": "counter_pkts",
    "Counter/bytes": "counter_bytes",
    "Drop/pkts": "drop_pkts",
    "Drop/bytes": "drop_bytes",
    "Trim/pkts": "trim_pkts",
    "TrimSent/pkts": "trim_sent_pkts",
    "TrimDrop/pkts": "trim_drop_pkts",
    "Credit-WD-Del/pkts": "credit_wd_deleted_pkts",
}
_STANDARD = ("Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes")
_TRIM = ("Trim/pkts", "TrimSent/pkts", "TrimDrop/pkts")
_QUEUE_LAYOUTS: dict[tuple[str, ...], str] = {
    ("Port", "TxQ", *_STANDARD): "standard",
    ("Port", "TxQ", *_STANDARD, *_TRIM): "all",
    ("Port", "TxQ", *_STANDARD, "Trim/pkts"): "all",
    ("Port", "TxQ", *_TRIM): "trim",
    ("Port", "TxQ", "Trim/pkts"): "trim",
    ("Port", "Voq", *_STANDARD, "Credit-WD-Del/pkts"): "voq",
    ("Port", "Voq", *_STANDARD): "voq",
}
_QUEUE_NAME = re.compile(r"^(UC|MC|ALL|VOQ)\d+$")
_SYSTEM_PORT = re.compile(r"^(?:[\w.-]+\|)+(?:Ethernet|PortChannel)[\w-]*\d+$")


def parse_show_queue_counters(text: str, queue: str | None = None) -> dict[str, Any]:
    """{"layout": standard|all|trim|voq, "queues": [{port, queue, <the layout's counters>}]}
    (counter_pkts, counter_bytes, drop_pkts, drop_bytes; trim_pkts, trim_sent_pkts,
    trim_drop_pkts; credit_wd_deleted_pkts: the columns the capture's release prints, so an older
    `--all` has trim_pkts alone and an older `--voq` no credit_wd_deleted_pkts; None where SONiC
    prints N/A).

    queuestat prints one table per port, each after a `For namespace <ns>:` line (releases from
    2024-09) or a `<port> Last cached time was ...` line (after `sonic-clear queuecounters`). A
    line inside a table (after its header, before the blank line that ends it) that is not a full
    row of a port and a queue, a header of another column set, or a header with no rows is an
    error naming the line.

    With `queue` ("UC3"), only that queue's rows, as the whole table lists them, read from the
    lines that name the queue or a table header alone: a port listed twice for that queue is
    refused, a repeated row of another queue goes unread; a layout without drop counters (trim,
    voq) is refused, as the drop check cannot read it."""
    if text.lstrip().startswith("{"):
        return _queue_counters_json(text, queue)
    queues: list[dict[str, Any]] = []
    layout: str | None = None
    columns: tuple[str, ...] = ()
    header_line = ""
    rows_under_header = 0
    seen: set[tuple[str, str]] = set()
    ports: dict[str, bool] = {}  # name -> a port's name: each port has a row per queue
    names: dict[str, bool] = {}  # queue name -> valid: each queue name comes once per port
    as_int = _Integers().__getitem__  # each distinct count converted once (most are 0)
    width, keys = 0, ("port", "queue")
    lines = text.splitlines()
    if queue is not None:
        # The largest capture of a fabric: a row per port and queue (1,024 for 128 ports and 8
        # queues, 2,560 with SONiC's usual 10 unicast and 10 multicast), of which the drop check
        # reads one per port. A line that names neither the queue nor a header (TxQ, Voq, Port,
        # Interface) is no row of the queue and changes no table state.
        lines = [
            line
            for line in lines
            if queue in line or "TxQ" in line or "Port" in line or "Interface" in line or "Voq" in line
        ]
    reading = False
    unknown = ""  # the first header of a table with other columns
    # Lines split as they are (trailing blanks change no token).
    for line in lines:
        tokens = line.split()
        if not tokens:
            reading = False
            continue
        first = tokens[0]
        if first == "Port" and len(tokens) > 1 and tokens[1] in ("TxQ", "Voq"):
            if header_line and not rows_under_header and queue is None:
                raise _queue_error(text, header_line, "a `show queue counters` header with no rows under it")
            found = _QUEUE_LAYOUTS.get(tuple(tokens))
            if found is None:  # another table (a watermark or a newer release's): not read
                unknown = unknown or line
                reading = False
                continue
            if layout is not None and found != layout:
                raise _queue_error(text, line, f"a {found} table after {layout} tables (two captures)")
            if queue is not None and found == "voq":
                raise ParseError(
                    f"a `show queue counters --voq` capture counts the virtual output queues of system "
                    f"ports, not the egress queue {queue} the drop check reads"
                )
            if queue is not None and "Drop/pkts" not in tokens:
                raise ParseError(f"a `show queue counters --{found}` capture has no Drop/pkts column")
            layout, columns = found, tuple(_QUEUE_COLUMNS[c] for c in tokens[2:])
            width, keys = len(columns) + 2, ("port", "queue", *columns)
            header_line, rows_under_header, reading = line, 0, True
            continue
        if first in _OTHER_HEADERS:
            reading = False
            continue
        if not reading:
            continue
        # The dicts answer for names seen before (a port has a row per queue, a queue name comes
        # once per port); the functions match a new name once.
        if (
            len(tokens) != width
            or not (ports.get(first) or _is_queue_port(first, ports))
            or not (names.get(tokens[1]) or _is_queue_name(tokens[1], names))
        ):
            if is_rule(line):
                continue
            raise _queue_error(text, line, _queue_row_problem(tokens, columns, ports))
        key = (first, tokens[1])
        if key in seen:
            raise ParseError(f"{first} {tokens[1]} is listed twice (a duplicated capture)")
        seen.add(key)
        rows_under_header += 1
        if queue is None or tokens[1] == queue:
            values = tokens[2:]
            if "".join(values).isdigit():  # the usual row: every count plain digits, in one pass
                queues.append(dict(zip(keys, [first, tokens[1], *map(as_int, values)], strict=True)))
            else:
                queues.append(_queue_row(first, tokens[1], columns, values, text, line))
    if layout is None and unknown:
        raise _queue_error(
            text,
            unknown,
            f"unknown `show queue counters` columns {' '.join(unknown.split()[2:])!r} (known: the "
            "standard, --all, --trim and --voq layouts of sonic-utilities queuestat)",
        )
    if layout is None:
        raise ParseError("no 'Port TxQ Counter/pkts ...' table: not `show queue counters` output")
    if not rows_under_header and queue is None:
        raise _queue_error(text, header_line, "a `show queue counters` header with no rows under it")
    return {"layout": layout, "queues": queues}


# queuestat build_json field -> result key (the text layout's column keys).
_QUEUE_JSON_FIELDS = {
    "totalpacket": "counter_pkts",
    "totalbytes": "counter_bytes",
    "droppacket": "drop_pkts",
    "dropbytes": "drop_bytes",
    "trimpacket": "trim_pkts",
    "trimsentpacket": "trim_sent_pkts",
    "trimdroppacket": "trim_drop_pkts",
    "creditWDPkts": "credit_wd_deleted_pkts",
}
# The field sets of each layout (build_json's branches), as the text layouts name them: `trimpacket`
# alone from PR #3830 (60c724c8d), the three trim fields from PR #3993 (c63e9ea79). Before PR
# #3322 (4133ef540) a `--voq` queue had the standard fields: its VOQn names tell it apart.
_QUEUE_JSON_LAYOUTS = {
    frozenset({"totalpacket", "totalbytes", "droppacket", "dropbytes"}): "standard",
    frozenset({"totalpacket", "totalbytes", "droppacket", "dropbytes", "trimpacket", "trimsentpacket",
               "trimdroppacket"}): "all",
    frozenset({"totalpacket", "totalbytes", "droppacket", "dropbytes", "trimpacket"}): "all",
    frozenset({"trimpacket", "trimsentpacket", "trimdroppacket"}): "trim",
    frozenset({"trimpacket"}): "trim",
    frozenset({"totalpacket", "totalbytes", "droppacket", "dropbytes", "creditWDPkts"}): "voq",
}  # fmt: skip
# Keys of a port's object that are no queue: when counted, when last cleared (queuestat -j).
_QUEUE_JSON_META = frozenset({"time", "cached_time"})


def _queue_counters_json(text: str, queue: str | None) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(
            f"show queue counters --json: not JSON (a cut capture?): {error.msg} at line {error.lineno}"
        ) from None
    if not isinstance(document, dict) or not document:
        raise ParseError("show queue counters --json: not an object of ports")
    layout: str | None = None
    queues: list[dict[str, Any]] = []
    for port, body in document.items():
        if not isinstance(body, dict) or not (_PORT.match(port) or _SYSTEM_PORT.match(port)):
            raise ParseError(f"show queue counters --json: {port!r} is not a port with queues")
        for name, counters in body.items():
            if name in _QUEUE_JSON_META:
                continue
            if not _QUEUE_NAME.match(name) or not isinstance(counters, dict):
                raise ParseError(f"show queue counters --json: {port} {name!r} is not a queue's counters")
            found = _QUEUE_JSON_LAYOUTS.get(frozenset(counters))
            if found == "standard" and name.startswith("VOQ"):
                found = "voq"
            if found is None or (layout is not None and found != layout):
                raise ParseError(
                    f"show queue counters --json: {port} {name} has fields {', '.join(sorted(counters))} "
                    f"(expected one queuestat layout: {', '.join(sorted(_QUEUE_JSON_FIELDS))})"
                )
            layout = found
            row: dict[str, Any] = {"port": port, "queue": name}
            for field, value in counters.items():
                if isinstance(value, str) and value.isdigit():
                    row[_QUEUE_JSON_FIELDS[field]] = int(value)
                elif value == "N/A":
                    row[_QUEUE_JSON_FIELDS[field]] = None
                else:
                    raise ParseError(
                        f"show queue counters --json: {port} {name} {field}: {value!r} is not a count"
                    )
            if queue is None or name == queue:
                queues.append(row)
    if layout is None:
        raise ParseError("show queue counters --json: no port lists a queue")
    if queue is not None and (layout == "voq" or layout == "trim"):
        raise ParseError(
            f"a `show queue counters --{layout} --json` capture has no egress drop counts for {queue}"
        )
    return {"layout": layout, "queues": queues}


def _queue_row_problem(tokens: list[str], columns: tuple[str, ...], ports: dict[str, bool]) -> str:
    """What is wrong with a line inside a table that is no row of it."""
    if len(tokens) != len(columns) + 2:
        return (
            f"expected a row of {len(columns) + 2} fields (port, queue, {', '.join(columns)}), "
            f"found {len(tokens)} (a cut or damaged capture)"
        )
    if not _is_queue_port(tokens[0], ports):
        return (
            f"{tokens[0]!r} is not a port (EthernetN, Ethernet-BPN, PortChannelN, or a system port "
            "<linecard>|<asic>|EthernetN): a damaged row"
        )
    return f"{tokens[0]}: {tokens[1]!r} is not a queue (UCn, MCn, ALLn or VOQn): a damaged row"


def _queue_row(
    port: str, queue: str, columns: tuple[str, ...], values: list[str], text: str, line: str
) -> dict[str, Any]:
    row: dict[str, Any] = {"port": port, "queue": queue}
    for key, value in zip(columns, values, strict=True):
        if value.isdigit():
            row[key] = int(value)
        elif value == "N/A":
            row[key] = None
        elif (count := number(value)) is not None:
            row[key] = count
        else:
            raise _queue_error(text, line, f"{port} {queue}: {value!r} is neither a count nor N/A")
    return row


def _queue_error(text: str, line: str, why: str) -> ParseError:
    """An error naming the line (found again in the text: the fast path reads a subset of lines)."""
    at = text.find(line)
    number_ = text.count("\n", 0, at) + 1 if at >= 0 else 0
    return ParseError(f"line {number_}: {why}")


def _is_queue_name(name: str, known: dict[str, bool]) -> bool:
    found = known.get(name)
    if found is None:
        found = known[name] = bool(_QUEUE_NAME.match(name))
    return found


def _is_queue_port(name: str, known: dict[str, bool]) -> bool:
    """A front-panel port, or a chassis system port of `--voq` (`sonic-lc1|asic0|Ethernet0`)."""
    found = known.get(name)
    if found is None:
        found = known[name] = bool(_PORT.match(name) or _SYSTEM_PORT.match(name))
    return found


def parse_show_ecn(text: str) -> dict[str, Any]:
    """{"profiles": {name: {key: value}}} (WRED/ECN profiles; markdown bold markers dropped).

    ecnconfig `list()` (sonic-utilities 691b1bb scripts/ecnconfig) prints per profile
    `Profile: <name>`, then `tabulate(config)`: a dashed rule, one `<field>  <value>` row per
    field, a closing rule. A profile without its opening or closing rule (a capture cut inside it)
    or a line between its rules that is not one field and one value: errors naming the line."""
    profiles: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    state = "outside"  # "title": after `Profile:`, before its rule; "rows": between its rules
    title_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        if match := _PROFILE.match(line.strip()):
            if state != "outside":
                raise ParseError(
                    f"line {title_line}: profile table not closed by a dashed rule before line {number_} "
                    "(a cut capture)"
                )
            current = profiles.setdefault(match["name"].strip(), {})
            state, title_line = "title", number_
            continue
        tokens = line.split()
        if state == "title":
            if not tokens:
                continue
            if not is_rule(line):
                raise ParseError(
                    f"line {number_}: expected the dashed rule of the profile on line {title_line}"
                )
            state = "rows"
        elif state == "rows":
            if is_rule(line):
                state = "outside"
            elif not tokens:  # tabulate prints no blank line inside a table
                raise ParseError(
                    f"line {title_line}: profile table not closed by a dashed rule before line {number_} "
                    "(a cut capture)"
                )
            elif len(tokens) == 2 and current is not None:
                key, value = tokens
                current[key] = int(value) if value.isdigit() else value
            else:
                raise ParseError(
                    f"line {number_}: expected '<field>  <value>' in the profile on line {title_line}, "
                    f"got {line.strip()!r} (a cut or damaged row)"
                )
    if not profiles:
        raise ParseError("no 'Profile:' block found: not `show ecn` output")
    if state != "outside":
        raise ParseError(f"line {title_line}: profile table not closed by a dashed rule (a cut capture)")
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


# A multi-ASIC SONiC switch keeps each ASIC's ports, counters and QoS tables in its own namespace
# (sonic-buildimage src/sonic-py-common/sonic_py_common/multi_asic.py at 086b03b: NUM_ASIC of the
# platform's asic.conf, namespaces `asic0`..`asic<N-1>`; each show command takes `-n asic<k>`,
# sonic-utilities utilities_common/multi_asic.py at 691b1bb). gpunet collects such a command once
# per namespace and saves the answers in one capture, each after a line of its own (never SONiC
# output): `# gpunet: namespace asic1 of 2: show ecn -n asic1`.
NAMESPACE_LINE = "# gpunet: namespace {namespace} of {count}: {command}"
_NAMESPACE_LINE = re.compile(r"^# gpunet: namespace (?P<namespace>asic(?P<index>\d+)) of (?P<count>\d+): .*$")


def namespace_sections(text: str) -> list[tuple[str, str]] | None:
    """[(namespace, its answer)] of a per-namespace capture, in order; None for a capture of one
    namespace (no `# gpunet: namespace` line first). Errors: a namespace given twice, one missing
    (a cut capture: every line says how many there are), or lines that disagree on the count."""
    if not text.lstrip().startswith("# gpunet: namespace "):
        return None
    sections: list[tuple[str, list[str]]] = []
    count: int | None = None
    for number_, line in enumerate(text.splitlines(), 1):
        if not line.startswith("# gpunet: namespace "):
            if sections:
                sections[-1][1].append(line)
            continue
        match = _NAMESPACE_LINE.match(line)
        if match is None:
            raise ParseError(f"line {number_}: expected '# gpunet: namespace asic<k> of <n>: <command>'")
        if count is not None and int(match["count"]) != count:
            raise ParseError(f"line {number_}: {match['count']} namespaces, where line 1 says {count}")
        count = int(match["count"])
        if int(match["index"]) != len(sections):
            raise ParseError(
                f"line {number_}: namespace {match['namespace']} where asic{len(sections)} was expected "
                "(a namespace given twice or left out)"
            )
        sections.append((match["namespace"], []))
    if len(sections) != count:
        raise ParseError(
            f"the capture ends after namespace {sections[-1][0]}, of the {count} the switch has "
            "(a cut capture)"
        )
    return [(namespace, "\n".join(lines)) for namespace, lines in sections]


def merge_namespaces(tool: str, parts: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One result of the per-namespace results of `tool`, each port from the namespace that lists
    it, and `namespace`: port -> that namespace. A port listed by two namespaces is an error
    (each ASIC owns its ports). `show ecn` profiles are per namespace (ecnconfig -l prints every
    namespace's WRED_PROFILE table, the same names in each): `namespace_profiles`: namespace ->
    its profiles, and `profiles` by `<namespace>:<name>`."""
    if tool == "sonic-show-ecn":
        return {
            "profiles": {f"{ns}:{name}": p for ns, parsed in parts for name, p in parsed["profiles"].items()},
            "namespace_profiles": {ns: parsed["profiles"] for ns, parsed in parts},
        }
    owner: dict[str, str] = {}

    def own(ports: Any, namespace: str) -> None:
        for port in ports:
            if owner.setdefault(port, namespace) != namespace:
                raise ParseError(
                    f"{port} is listed in namespaces {owner[port]} and {namespace} (one ASIC owns a port)"
                )

    if tool == "sonic-show-queue-counters":
        layouts = {parsed["layout"] for _, parsed in parts}
        if len(layouts) > 1:
            raise ParseError(f"the namespaces print different layouts ({', '.join(sorted(layouts))})")
        queues = []
        for namespace, parsed in parts:
            own(dict.fromkeys(row["port"] for row in parsed["queues"]), namespace)
            queues.extend(parsed["queues"])
        return {"layout": layouts.pop(), "queues": queues, "namespace": owner}
    if tool == "sonic-show-pfc-priority":
        interfaces: dict[str, Any] = {}
        for namespace, parsed in parts:
            own(parsed["interfaces"], namespace)
            interfaces.update(parsed["interfaces"])
        return {"interfaces": interfaces, "namespace": owner}
    if tool == "sonic-show-pfc-counters":
        merged: dict[str, Any] = {"rx": {}, "tx": {}}
        for namespace, parsed in parts:
            own(parsed["rx"], namespace)
            for direction in ("rx", "tx"):
                merged[direction].update(parsed[direction])
        return merged | {"namespace": owner}
    raise ParseError(f"{tool} is not collected per namespace")


# The tools collected once per namespace on a multi-ASIC switch (gpunet.collect.switch_show).
NAMESPACED_TOOLS = (
    "sonic-show-pfc-priority",
    "sonic-show-pfc-counters",
    "sonic-show-queue-counters",
    "sonic-show-ecn",
)
