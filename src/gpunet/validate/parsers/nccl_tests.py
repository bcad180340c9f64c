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
capture without the footer is `complete: false`. A second footer, or a row repeated with the same
size, type, redop and root, means the capture holds a run twice: an error.
"""

from __future__ import annotations

import re
from statistics import fmean
from typing import Any

from gpunet.validate.parsers.base import CaselessWords, ParseError, content_lines, is_number, to_number

_TEST_NAME = re.compile(r"\b(?P<name>[a-z_]+_perf(?:_mpi)?)\b")
_VERSION = re.compile(r"^#?\s*nccl-tests version\s+(?P<version>\S+)")
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
        "passed": False,
        "error": None,
    }
    failures: list[str] = []
    warnings: list[str] = []
    seen_rows: set[tuple[Any, ...]] = set()
    footers = 0
    # One search of the whole text spares one per line of every capture without error words.
    may_hold_errors = _FAILURE.search(text) or _WARNING.search(text)
    for line in content_lines(text):
        stripped = line.strip()
        if match := _VERSION.match(stripped):
            result["version"] = match["version"]
        if result["test"] is None and (match := _TEST_NAME.search(stripped)):
            result["test"] = match["name"]
        if match := _OUT_OF_BOUNDS.match(stripped):
            result["out_of_bounds"] = int(match["count"])
        elif match := _AVG_BUSBW.match(stripped):
            footers += 1
            if footers > 1:
                raise ParseError(
                    "two 'Avg bus bandwidth' footers: the capture holds a run twice (duplicated)"
                )
            result["avg_busbw_gbs"] = _float(match["value"])
        elif (row := _row(stripped.split())) is not None:
            key = (row["size_bytes"], row["type"], row["redop"], row["root"])
            if key in seen_rows:
                raise ParseError(
                    f"row for {row['size_bytes']} B {row['type']} {row['redop'] or ''} appears twice "
                    "(a duplicated capture)"
                )
            seen_rows.add(key)
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
        raise ParseError("no nccl-tests result rows and no NCCL/CUDA error message found")
    result["complete"] = footers == 1
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


def _row(tokens: list[str]) -> dict[str, Any] | None:
    """One result row: size count type, up to two of redop/root, then two 4-value halves."""
    if not 11 <= len(tokens) <= 13 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    if tokens[2] not in _TYPES:
        return None
    middle, halves = tokens[3:-8], tokens[-8:]
    if not all(is_number(t) or t == "N/A" for t in halves):
        return None
    redop = next((t for t in middle if t in _REDOPS), None)
    root = next((t for t in middle if is_number(t)), None)
    if len(middle) != (redop is not None) + (root is not None):
        return None  # a middle token that is neither an operation nor a root rank
    old_format = "." in halves[3] or "e" in halves[3].lower() or "." in halves[7]
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


def _half(tokens: list[str], old_format: bool) -> dict[str, Any]:
    time_us, algbw, busbw, last = (to_number(t) for t in tokens)
    half = {"time_us": time_us, "algbw_gbs": algbw, "busbw_gbs": busbw, "wrong": None if old_format else last}
    if old_format:
        # A float max-error within the tolerance is normal; the footer's out-of-bounds count judges it.
        half["error"] = last
    return half
