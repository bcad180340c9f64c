"""perftest (`ib_write_bw`, `ib_read_lat`, `ib_atomic_bw`, ...): a title, a header block, then a
result table closed by a dashed line.

Titles follow linux-rdma/perftest `src/perftest_parameters.c` `ctx_print_test_info`
(`<verb> [<atomic op>] [Bidirectional] [Post List] BW|Latency [forwarding] [Multicast] Test`).
Columns are read by name from the table header (`src/perftest_parameters.h` RESULT_FMT*: BW in
MB/sec or Gb/sec, per-port and QoS `#sl` layouts, latency t_min..t_typical plus t_avg, t_stdev and
percentiles, duration mode `-D` with t_avg and tps), so a layout with fewer or more columns still
maps each value to its own name. Bandwidth is always returned in Gb/s: without --report_gbits
perftest divides by 0x100000 (`src/perftest_parameters.c` print_report_bw, format_factor), so its
unit is 2**20 bytes a second, printed `MB/sec` up to 24.04 and `MiB/sec` from 24.07 (commit
1d202bb, 2024-03-19, "Display proper unit for MiB/sec results"; ROCm and other forks print it
either way); `--report_gbits` divides by 125000000 (Gb/sec). An unknown bandwidth unit is an
error naming its column, never read as Gb/s.

Every row of a table holds one value per header column (RESULT_FMT* headers and REPORT_FMT* rows
in `src/perftest_parameters.h`, `CPU_Util` in both or neither), so a row with fewer values, or a
line under the header that starts with a number but is not all numbers, is a cut or damaged row:
an error naming the line, even where the closing dashed line follows.

perftest does not print the traffic class it ran in (`--tclass`; only `--tos` of rdma_cm QPs
shows, `ctx_print_test_info`), so the verify stage records the command line ahead of the output, as
a shell transcript does: `traffic_class` is its `--tclass` (perftest's default, 0, where the line has
none) and None where the capture holds no command line.

perftest closes its table with a dashed line; a capture without it is returned with
`complete: false` (cut short, or a `--run_infinitely` run that was killed) and the checks do not
pass it; a last row with fewer values than columns was cut mid-line and is an error.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from gpunet.validate.parsers.base import CaselessWords, ParseError, content_lines, is_number

_VERBS = {"Send": "send", "RDMA_Write": "write", "RDMA_Write_imm": "write_imm", "RDMA_Read": "read"}
_VERBS |= {"Atomic": "atomic"}
_TITLE = re.compile(
    r"^\s*(?P<verb>RDMA_Write_imm|RDMA_Write|RDMA_Read|Send|Atomic)"
    r"(?: (?P<atomic>FETCH_AND_ADD|CMP_AND_SWAP))?"
    r"(?P<bidirectional> Bidirectional)?(?P<post_list> Post List)?"
    r" (?P<kind>BW|Latency)(?: forwarding)?(?: Multicast)? Test\s*$"
)
_HEADER_FIELD = re.compile(r"([A-Za-z][\w .()*/-]*?)\s*:\s*(\S+(?:\[B\])?)")
_COLUMN = re.compile(
    r"#\w+|BW (?:peak|average|Port\d)(?:\[[^\]]*\])?|MsgRate(?: Port\d)?(?:\[[^\]]*\])?"
    r"|[\d.]+% percentile\[[^\]]*\]|tps average|\S+"
)
_ERROR = CaselessWords(
    r"couldn't|could not|unable|failed|failure|error|no .*device|not found|timed? ?out|refused",
    needles=("couldn't", "could not", "unable", "fail", "error", "no ", "not found", "time", "refused"),
)
_MEGABYTES_TO_GBITS = 2**20 * 8 / 1e9
# Units a bandwidth or message-rate column may carry, and the factor to Gb/s (Mpps). linux-rdma
# perftest prints `MB/sec` (2**20 bytes: its format factor) or `Gb/sec` (--report_gbits); forks
# built for ROCm and others print the same 2**20-byte unit as `MiB/sec`. A unit not listed here is
# refused rather than read as Gb/s.
_UNIT_FACTORS: dict[str, dict[str, float]] = {
    "bw_": {"Gb/sec": 1.0, "MB/sec": _MEGABYTES_TO_GBITS, "MiB/sec": _MEGABYTES_TO_GBITS},
    "msg": {"Mpps": 1.0},
}
# A command line ahead of the output: `$ ib_write_bw -d mlx5_0 --tclass=106 10.0.0.2`, with or
# without a prompt. The tool word must be followed by arguments or the line's end ("ib_write_bw:"
# starts an error message, not a command).
_COMMAND = re.compile(
    r"(?:^|[\s$#>])(?P<tool>ib_(?:write|read|send|atomic)_(?:bw|lat))(?P<args>(?:\s+\S+)*)\s*$"
)
_TCLASS = re.compile(r"--tclass(?:=|\s+)(\d+)")
_HEADER_KEYS = {"Device": "device", "Link type": "link_type", "Mtu": "mtu", "GID index": "gid_index"}
# Column name (unit stripped) -> result key.
_COLUMNS = {
    "#bytes": "bytes",
    "#iterations": "iterations",
    "#sl": "sl",
    "BW peak": "bw_peak_gbps",
    "BW average": "bw_avg_gbps",
    "MsgRate": "msg_rate_mpps",
    "t_min": "t_min_us",
    "t_max": "t_max_us",
    "t_typical": "t_typical_us",
    "t_avg": "t_avg_us",
    "t_stdev": "t_stdev_us",
    "99% percentile": "p99_us",
    "99.9% percentile": "p999_us",
    "tps average": "tps",
    "CPU_Util": "cpu_util_percent",
}


def parse_perftest(text: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "test": None,
        "atomic_op": None,
        "bidirectional": False,
        "post_list": False,
        "device": None,
        "link_type": None,
        "mtu": None,
        "gid_index": None,
        "columns": [],
        "results": [],
        "complete": False,
        "error": None,
        "command": None,
        "traffic_class": None,
    }
    columns: tuple[tuple[str, float], ...] | None = None
    errors: list[str] = []
    in_header = table_closed = False
    # The error pattern has no anchors, so a line that matches it is matched in the whole text:
    # one search of the text spares a search per line of every healthy capture.
    may_hold_errors = _ERROR.search(text)
    # A capture is read for every pair of a fabric (65,536 at 4,096 hosts), so each line meets the
    # cheap tests first: a title ends in "Test", a rule is dashes alone, a settings line has a colon.
    header_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        looks_like_command = result["test"] is None and result["command"] is None and "ib_" in line
        if looks_like_command and (command := _COMMAND.search(stripped)):
            result["command"] = stripped
            tclass = _TCLASS.search(command["args"])
            result["traffic_class"] = int(tclass[1]) if tclass else 0
            continue
        if line.endswith("Test") and (match := _TITLE.match(line)):
            if result["test"] is not None:
                raise ParseError("two perftest titles in one capture (a duplicated capture or two runs)")
            _read_title(match, result)
            in_header = True
        elif stripped.startswith("#bytes"):
            columns = _columns(stripped)
            header_line = number_
            result["columns"] = [name for name, _ in columns]
            in_header = table_closed = False
        elif stripped.startswith("-") and len(stripped) >= 20 and not stripped.strip("-"):
            table_closed = table_closed or (columns is not None and bool(result["results"]))
        elif stripped.startswith(("local address", "remote address")):
            in_header = False
        elif may_hold_errors and _ERROR.search(stripped) and not stripped.startswith("libibverbs: Warning"):
            errors.append(stripped)
        elif in_header and ":" in stripped:
            _read_header(stripped, result)
        elif columns is not None and not table_closed and stripped and _is_row(stripped):
            row = _row(columns, stripped.split(), number_)
            if len(row) < len(columns):
                raise ParseError(
                    f"line {number_}: incomplete perftest {result['test']} capture: a result row was cut "
                    f"({len(row)} of {len(columns)} values; the header on line {header_line} names "
                    f"{' '.join(result['columns'])})"
                )
            result["results"].append(row)
        elif columns is not None and not table_closed and stripped and is_number(stripped.split()[0]):
            raise ParseError(
                f"line {number_}: a damaged perftest result row: {stripped!r} is not {len(columns)} numbers "
                f"(the header on line {header_line} names {' '.join(result['columns'])})"
            )
    if errors and not result["results"]:
        result["error"] = errors[0]
    if result["test"] is None and result["error"] is None:
        raise ParseError("no perftest title (e.g. 'RDMA_Write BW Test') and no error message found")
    if result["error"] is None and not result["results"]:
        where = f"line {header_line}: the result table header is followed by no row: " if header_line else ""
        raise ParseError(f"{where}perftest {result['test']} output has no result rows")
    result["complete"] = table_closed or result["error"] is not None
    return result


def _read_title(match: re.Match[str], result: dict[str, Any]) -> None:
    kind = "bw" if match["kind"] == "BW" else "lat"
    result["test"] = f"{_VERBS[match['verb']]}_{kind}"
    result["atomic_op"] = match["atomic"].lower() if match["atomic"] else None
    result["bidirectional"] = bool(match["bidirectional"])
    result["post_list"] = bool(match["post_list"])


def _read_header(line: str, result: dict[str, Any]) -> None:
    for name, value in _header_fields(line):
        result[name] = value


# The settings lines repeat from run to run (only the device differs between a host's NICs):
# each distinct line is read once.
@lru_cache(maxsize=256)
def _header_fields(line: str) -> tuple[tuple[str, Any], ...]:
    """The kept (result key, value) pairs of one settings line, in the line's order."""
    # Four of the dozen header lines name a field we keep; the others need no regex at all.
    if not any(name in line for name in _HEADER_KEYS):
        return ()
    fields: list[tuple[str, Any]] = []
    for key, value in _HEADER_FIELD.findall(line):
        name = _HEADER_KEYS.get(key.strip())
        if name == "mtu" or name == "gid_index":
            digits = re.match(r"\d+", value)
            fields.append((name, int(digits.group()) if digits else None))
        elif name:
            fields.append((name, value))
    return tuple(fields)


# One perftest build prints one table header for every run of a test: each is read once.
@lru_cache(maxsize=64)
def _columns(header: str) -> tuple[tuple[str, float], ...]:
    """(result key, factor to the key's unit) per header column, in order."""
    columns = []
    for column in _COLUMN.findall(header):
        name, _, unit = column.partition("[")
        unit = unit.rstrip("]")
        key = _COLUMNS.get(name.strip())
        if key is None:  # an unknown or per-port column keeps its own (snake-cased) name
            key = re.sub(r"\W+", "_", column.strip("#")).strip("_").lower()
        if key.startswith(("bw_", "msg_rate")) and unit not in _UNIT_FACTORS.get(key[:3], {}):
            raise ParseError(
                f"perftest column {column!r}: unknown unit {unit!r} (expected one of "
                f"{', '.join(_UNIT_FACTORS.get(key[:3], {}))})"
            )
        columns.append((key, _UNIT_FACTORS.get(key[:3], {}).get(unit, 1.0)))
    return tuple(columns)


def _is_row(line: str) -> bool:
    tokens = line.split()
    return len(tokens) >= 2 and all(is_number(t) for t in tokens)


def _row(columns: tuple[tuple[str, float], ...], tokens: list[str], number_: int) -> dict[str, Any]:
    if len(tokens) > len(columns):
        raise ParseError(
            f"line {number_}: a result row has {len(tokens)} values for {len(columns)} columns: "
            f"{' '.join(tokens)}"
        )
    row: dict[str, Any] = {}
    for (key, factor), token in zip(columns, tokens, strict=False):
        value = float(token)
        if key in ("bytes", "iterations", "sl"):
            row[key] = int(value)
        else:
            row[key] = round(value * factor, 4) if factor != 1.0 else value
    return row
