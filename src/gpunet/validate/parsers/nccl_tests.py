"""nccl-tests (`all_reduce_perf`, `all_gather_perf`, `alltoall_perf`, `broadcast_perf`,
`reduce_perf`, `reduce_scatter_perf`, `sendrecv_perf`, `hypercube_perf`, ...).

A row is `size count type [redop] [root]` then an out-of-place and an in-place half of
`time algbw busbw #wrong|error` (NVIDIA/nccl-tests `src/common.cu`: newer builds print `redop`
and `root` for every collective, `none`/`-1` where they do not apply, and an integer `#wrong`;
older builds print a float `error` and leave out `redop` or `root` where the collective has
none). The footer `# Out of bounds values : N OK|FAILED` and `# Avg bus bandwidth : X` closes a
run; copies in logs often lose the `#`.

Verdicts the parser gives: `passed` only for a complete run (footer seen) with rows, no wrong
values and no failure line; a failure line (`Test NCCL failure`, `Test CUDA failure`, `Test
failure`, NCCL/CUDA errors, a crash) anywhere makes the run failed even after result rows; a
capture without the footer is `complete: false`.

One run prints its settings line (`# nThread ... step: N(factor|bytes)`, src/util.cu
writeDeviceReport), its column header (writeResultHeader, from run() in src/common.cu) and its
footer once each, so a second of any of them, or a result row after the footer, is a capture that
holds two runs: an error naming the line. Within one run the rows of a series (type, redop, root)
grow in size (src/common.cu TimeTest: minBytes to maxBytes by the step factor or step bytes), with
three genuine exceptions: several size-0 rows at a sweep's start (small sizes over many ranks round
to 0 elements, whatever the count column says); equal sizes under a step in bytes (the per-rank
count rounds down, so neighbouring sizes print alike); and `-N`/`--run_cycles`, which prints the
whole sweep again under the same header (TimeTest's `do ... while (--repeat)`): a series that
starts again at its first size and repeats the first sweep's sizes is a cycle (`cycles`), while a
size out of that order, or a repeated non-zero size under a step factor, is refused as a
duplicated or damaged capture.

nccl-tests does not print the environment it ran under (`NCCL_IB_TC`, `NCCL_IB_HCA`), so the
verify stage records the command line ahead of the output, as a shell transcript does:
`command` is that first `$ ...` line, None where the capture starts with anything else.

Rows are read by the column header where the capture has one (`-P` per-iteration columns and a
`-t` timestamp included, 2.19 `src/util.cu` writeResultHeader): a line that starts like a row but
does not hold the header's fields was cut, an error naming the line. Without a header (a log that
lost it), every row must have the first row's number of fields and no negative time or bandwidth,
so a cut row is refused naming its line, never read shifted a column. `#wrong` is printed `%g`
(`%6g` in writeBenchmarkLineBody), so a million wrong elements reads `1.04858e+06`: a count, never
a max error.
"""

from __future__ import annotations

import re
from statistics import fmean
from typing import Any

from gpunet.validate.parsers.base import CaselessWords, ParseError, content_lines, is_number, to_number

# The column header (src/util.cu writeResultHeader in 2.19, src/common.cu in 2.13): `# size count
# type redop root` then per half `time|cputime algbw busbw #wrong|error`, with `i_min i_max i_p99
# i_cv%` per half under -P (per-iteration timing) and a `timestamp` after the in-place half.
_HEADER = re.compile(r"^#?\s*size\s+count\s+type\b")
_TEST_NAME = re.compile(r"\b(?P<name>[a-z_]+_perf(?:_mpi)?)\b")
_VERSION = re.compile(r"^#?\s*nccl-tests version\s+(?P<version>\S+)")
# The settings line of a run (2.19.6 src/util.cu writeDeviceReport, 2.13.11 src/common.cu): `#
# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 ...`.
_SETTINGS = re.compile(
    r"^#?\s*nThread\s+\d+\s+nGpus\s+\d+\s+minBytes\s+(?P<min>\d+)\s+maxBytes\s+(?P<max>\d+)"
    r"\s+step:\s*\d+\((?P<step>factor|bytes)\)"
)
_OUT_OF_BOUNDS = re.compile(r"^#?\s*Out of bounds values\s*:\s*(?P<count>\d+)\s+(?P<verdict>OK|FAILED)")
_AVG_BUSBW = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(?P<value>[\d.eE+-]+|nan|inf)", re.IGNORECASE)
# Lines that end a run as failed, wherever they appear (nccl-tests' own `Test ... failure`
# lines from src/common.h, NCCL/CUDA errors, crashes and launcher aborts).
_FAILURE = CaselessWords(
    r"(Test NCCL failure|Test CUDA failure|Test failure|NCCL failure|CUDA failure|NCCL error|"
    r"ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError|ncclInvalidUsage|"
    r"ncclInvalidArgument|Segmentation fault|Bus error|Aborted|core dumped|exited on signal|"
    r"non-zero status|mpirun noticed|srun: error|Test NCCL failure|\bfailed with error\b)",
    needles=(
        *("failure", "error", "ncclInvalid", "Segmentation fault", "Aborted", "core dumped"),
        *("exited on signal", "non-zero status", "mpirun noticed"),
    ),
)
# Warnings that explain a run with no rows, but do not fail a run that printed its results.
_WARNING = CaselessWords(r"(NCCL WARN|ORTE|error)", needles=("NCCL WARN", "ORTE", "error"))
_TYPES = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"}
_TYPES |= {"char", "int", "uint", "fp8_e4m3", "fp8_e5m2", "f8e4m3", "f8e5m2", "float16", "float32"}
_TYPES |= {"float64", "bf16", "fp16", "fp32", "fp64"}
_REDOPS = {"sum", "prod", "max", "min", "avg", "none", "all", "mulsum", "premulsum"}


def parse_nccl_tests(text: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "test": None,
        "version": None,
        "format": None,
        "rows": [],
        "avg_busbw_gbs": None,
        "out_of_bounds": None,
        "complete": False,
        "cycles": 1,
        "passed": False,
        "error": None,
        "command": None,
    }
    failures: list[str] = []
    warnings: list[str] = []
    footer_line = settings_line = 0
    # One search of the whole text spares one per line of every capture without error words.
    may_hold_errors = _FAILURE.search(text) or _WARNING.search(text)
    layout: _Layout | None = None
    sweep = _Sweep()
    headerless_fields = 0  # without a header: the first row's number of fields
    for number_, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        if number_ == 1 and stripped.startswith("$ "):
            result["command"] = stripped  # read on: it also names the test binary
        if match := _VERSION.match(stripped):
            result["version"] = match["version"]
        if result["test"] is None and (match := _TEST_NAME.search(stripped)):
            result["test"] = match["name"]
        if match := _OUT_OF_BOUNDS.match(stripped):
            result["out_of_bounds"] = int(match["count"])
        elif match := _AVG_BUSBW.match(stripped):
            if footer_line:
                raise ParseError(
                    f"line {number_}: a second 'Avg bus bandwidth' footer (the first on line {footer_line}): "
                    "the capture holds a run twice (duplicated)"
                )
            footer_line = number_
            result["avg_busbw_gbs"] = _float(match["value"])
        elif match := _SETTINGS.match(stripped):
            if settings_line:
                raise ParseError(
                    f"line {number_}: a second run's settings line (the first on line {settings_line}): "
                    "the capture holds a run twice (two runs, duplicated)"
                )
            settings_line = number_
            sweep.step_in_bytes = match["step"] == "bytes"
            sweep.one_size = match["min"] == match["max"]
        elif stripped.startswith("#") and _HEADER.match(stripped):
            if layout is not None:
                raise ParseError(
                    f"line {number_}: a second column header (the first on line {layout.line}): the "
                    "capture holds a run twice (two runs, duplicated)"
                )
            layout = _layout(stripped, number_)
        elif (row := _read_row(stripped.split(), layout, number_, headerless_fields)) is not None:
            if footer_line:
                raise ParseError(
                    f"line {number_}: a result row after the footer on line {footer_line} (another run's "
                    "rows: the capture holds a run twice, duplicated)"
                )
            headerless_fields = headerless_fields or len(stripped.split())
            sweep.add(row, number_)
            result["format"] = row.pop("format")
            result["rows"].append(row)
        elif stripped.startswith("#") or not may_hold_errors:  # `#` lines are nccl-tests' own
            continue
        elif _FAILURE.search(stripped):
            failures.append(stripped)
        elif _WARNING.search(stripped):
            warnings.append(stripped)
    rows = result["rows"]
    if not rows and not failures and not warnings:
        if layout is not None:
            raise ParseError(
                f"line {layout.line}: the nccl-tests column header is followed by no result row "
                "(and no NCCL/CUDA error message)"
            )
        raise ParseError("no nccl-tests result rows and no NCCL/CUDA error message found")
    result["complete"] = bool(footer_line)
    result["cycles"] = sweep.cycles()
    if rows and result["avg_busbw_gbs"] is None and _busbw_values(rows):
        result["avg_busbw_gbs"] = round(fmean(_busbw_values(rows)), 3)
    if failures:
        result["error"] = failures[0]
    elif not rows:
        result["error"] = warnings[0]
    wrong = sum(
        half["wrong"] for row in rows for half in (row["out_of_place"], row["in_place"]) if half["wrong"]
    )
    result["passed"] = (
        bool(rows) and result["complete"] and not wrong and not result["out_of_bounds"] and not failures
    )
    return result


def _float(token: str) -> float | None:
    value = float(token)
    return None if value != value else value  # nan: nothing was measured


def _busbw_values(rows: list[dict[str, Any]]) -> list[float]:
    halves = (half for row in rows for half in (row["out_of_place"], row["in_place"]))
    return [half["busbw_gbs"] for half in halves if isinstance(half["busbw_gbs"], int | float)]


class _Layout:
    """The columns a run's header names: how many fields a row has, where each half starts."""

    def __init__(self, lead: list[str], half: list[str], timestamp: bool, line: int) -> None:
        self.lead, self.half, self.timestamp, self.line = lead, half, timestamp, line
        self.fields = len(lead) + 2 * len(half) + (2 if timestamp else 0)  # a timestamp is date time
        self.old_format = half[3] == "error"


def _layout(header: str, number_: int) -> _Layout:
    names = header.lstrip("#").split()
    timestamp = names[-1] == "timestamp"
    names = names[:-1] if timestamp else names
    lead = names[: next((i for i, n in enumerate(names) if n in ("time", "cputime")), len(names))]
    rest = names[len(lead) :]
    half = rest[: len(rest) // 2]
    known_lead = lead[:3] == ["size", "count", "type"] and set(lead[3:]) <= {"redop", "root"}
    if (
        not known_lead
        or rest[len(half) :] != half
        or half[1:3] != ["algbw", "busbw"]
        or half[3:4]
        not in (
            ["#wrong"],
            ["error"],
        )
    ):
        raise ParseError(
            f"line {number_}: unknown nccl-tests column header {' '.join(names)!r} (expected size count "
            "type [redop] [root], then twice time algbw busbw #wrong|error [i_min i_max i_p99 i_cv%])"
        )
    return _Layout(lead, half, timestamp, number_)


class _Sweep:
    """The order of a run's rows: per series (type, redop, root) the sizes of its first sweep, and
    where a later `-N` cycle stands in them."""

    def __init__(self) -> None:
        self.step_in_bytes = False  # from the settings line: `step: N(bytes)`, else a factor
        self.one_size = False  # minBytes == maxBytes: every row of a series is a cycle of its own
        self._sizes: dict[tuple[Any, ...], list[int]] = {}  # the first sweep's sizes
        self._at: dict[tuple[Any, ...], tuple[int, int]] = {}  # (cycle, next position) after the first

    def add(self, row: dict[str, Any], number_: int) -> None:
        series = (row["type"], row["redop"], row["root"])
        size = row["size_bytes"]
        sizes = self._sizes.setdefault(series, [])
        cycle, position = self._at.get(series, (1, len(sizes)))
        if cycle == 1 and (not sizes or size > sizes[-1] or (size == sizes[-1] and self._may_repeat(size))):
            sizes.append(size)
            return
        restart = size == sizes[0] and (cycle == 1 or position == len(sizes))
        if restart and (size < sizes[-1] or self.one_size or cycle > 1):
            self._at[series] = (cycle + 1, 1)
        elif cycle > 1 and position < len(sizes) and size == sizes[position]:
            self._at[series] = (cycle, position + 1)
        else:
            where = f"cycle {cycle} of the sweep expects {sizes[position]} B there; " if cycle > 1 else ""
            where = where if position < len(sizes) else ""
            raise ParseError(
                f"line {number_}: row for {size} B {row['type']} {row['redop'] or ''} appears twice or out "
                f"of order ({where}a duplicated capture, or rows of another run)"
            )

    def _may_repeat(self, size: int) -> bool:
        # Size 0 repeats at a sweep's start; under a step in bytes the per-rank count rounds down.
        return size == 0 or self.step_in_bytes

    def cycles(self) -> int:
        return max((cycle for cycle, _ in self._at.values()), default=1)


def _starts_like_row(tokens: list[str]) -> bool:
    return len(tokens) >= 3 and tokens[0].isdigit() and tokens[1].isdigit() and tokens[2] in _TYPES


def _read_row(
    tokens: list[str], layout: _Layout | None, number_: int, headerless_fields: int = 0
) -> dict[str, Any] | None:
    """A result row, read by the header's columns where a header was seen. A line that starts like
    a row (size, count, a data type) but does not hold the header's fields was cut: an error.
    Without a header, a row-like line must hold the first row's number of fields."""
    if layout is None:
        if not _starts_like_row(tokens):
            return None
        row = _row(tokens)
        if row is None or (headerless_fields and len(tokens) != headerless_fields):
            expected = (
                f"{headerless_fields} fields, as the first row has"
                if headerless_fields
                else ("size count type [redop] [root] and two halves of time algbw busbw #wrong|error")
            )
            raise ParseError(
                f"line {number_}: a result row cut or damaged: expected {expected}, found {len(tokens)} "
                f"fields ({' '.join(tokens)!r}; the capture has no column header to read it by)"
            )
        return row
    if len(tokens) >= 3 and tokens[0].isdigit() and tokens[1].isdigit() and tokens[2] not in _TYPES:
        raise ParseError(
            f"line {number_}: {tokens[2]!r} in the type column is not an nccl-tests data type "
            f"(a damaged row; expected one of {', '.join(sorted(_TYPES))})"
        )
    if not _starts_like_row(tokens):
        return None
    lead, width = len(layout.lead), len(layout.half)
    values = tokens[lead : lead + 2 * width]
    if len(tokens) != layout.fields or not all(is_number(t) or t == "N/A" for t in values):
        raise ParseError(
            f"line {number_}: a result row cut or damaged: expected {layout.fields} fields "
            f"({' '.join(layout.lead)} and two halves of {' '.join(layout.half)}, as the header on line "
            f"{layout.line} names), found {len(tokens)}"
        )
    named = dict(zip(layout.lead, tokens[:lead], strict=True))
    if "redop" in named and named["redop"] not in _REDOPS:
        raise ParseError(f"line {number_}: {named['redop']!r} is not a reduction operation")
    if "root" in named and not is_number(named["root"]):
        raise ParseError(f"line {number_}: root {named['root']!r} is not a rank")
    return {
        "format": "old" if layout.old_format else "new",
        "size_bytes": int(tokens[0]),
        "count": int(tokens[1]),
        "type": tokens[2],
        "redop": named.get("redop"),
        "root": to_number(named["root"]) if "root" in named else None,
        "out_of_place": _half(values[0:4], layout.old_format),
        "in_place": _half(values[width : width + 4], layout.old_format),
    }


def _row(tokens: list[str]) -> dict[str, Any] | None:
    """One result row: size count type, up to two of redop/root, then two 4-value halves."""
    if not 11 <= len(tokens) <= 13 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    if tokens[2] not in _TYPES:
        return None
    middle, halves = tokens[3:-8], tokens[-8:]
    if not all(is_number(t) or t == "N/A" for t in halves):
        return None
    if any(t.startswith("-") for i, t in enumerate(halves) if i % 4 != 3):
        return None  # a negative time or bandwidth: the root rank (-1) read shifted a column
    redop = next((t for t in middle if t in _REDOPS), None)
    root = next((t for t in middle if is_number(t)), None)
    if len(middle) != (redop is not None) + (root is not None):
        return None  # a middle token that is neither an operation nor a root rank
    old_format = _is_max_error(halves[3]) or _is_max_error(halves[7])
    return {
        "format": "old" if old_format else "new",
        "size_bytes": int(tokens[0]),
        "count": int(tokens[1]),
        "type": tokens[2],
        "redop": redop,
        "root": to_number(root) if root is not None else None,
        "out_of_place": _half(halves[0:4], old_format),
        "in_place": _half(halves[4:8], old_format),
    }


def _is_max_error(token: str) -> bool:
    """Without a header: old builds print the max error `%5.0le` (`5e-07`, `2e+00`) or as a
    fraction; new builds print #wrong `%5g`/`%6g`, an integer, in scientific notation only from a
    million (`1.04858e+06`, `1e+06`)."""
    if "." in token and "e" not in token.lower():
        return True
    exponent = re.fullmatch(r"\d[eE](?P<exp>[+-]\d+)", token)
    return exponent is not None and int(exponent["exp"]) < 6


def _half(tokens: list[str], old_format: bool) -> dict[str, Any]:
    time_us, algbw, busbw, last = (to_number(t) for t in tokens)
    if not old_format and isinstance(last, float):
        last = round(last)  # #wrong printed %g: 1.04858e+06 wrong elements
    half = {"time_us": time_us, "algbw_gbs": algbw, "busbw_gbs": busbw, "wrong": None if old_format else last}
    if old_format:
        # A float max-error within the tolerance is normal; the footer's out-of-bounds count judges it.
        half["error"] = last
    return half
