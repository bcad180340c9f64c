"""nccl-tests (`all_reduce_perf` and friends).

Newer builds print a `root` column, integer `#wrong` columns and a footer with the out-of-bounds
count and the average bus bandwidth. Older builds print a float `error` column, may lack `root`
and the footer; the average is then computed the way nccl-tests does it (mean of the out-of-place
and in-place busbw of every row). NCCL INFO/WARN lines and launcher noise are ignored.
"""

from __future__ import annotations

import re
from statistics import fmean
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines, is_number, to_number

_TEST_NAME = re.compile(r"\b(?P<name>[a-z_]+_perf)\b")
_VERSION = re.compile(r"^#\s*nccl-tests version\s+(?P<version>\S+)")
_OUT_OF_BOUNDS = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<count>\d+)\s+(?P<verdict>OK|FAILED)")
_AVG_BUSBW = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<value>[\d.eE+-]+)")
_ERROR = re.compile(
    r"(NCCL failure|CUDA failure|Test failure|NCCL WARN|NCCL error|ncclSystemError|ncclInternalError|"
    r"ncclUnhandledCudaError|ncclRemoteError|Segmentation fault|Aborted|exited on signal|"
    r"non-zero status|ORTE|mpirun noticed|srun: error)",
    re.IGNORECASE,
)
_TYPES = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"}
_TYPES |= {"char", "int", "uint", "fp8_e4m3", "fp8_e5m2", "f8e4m3", "f8e5m2"}


def parse_nccl_tests(text: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "test": None,
        "version": None,
        "format": None,
        "rows": [],
        "avg_busbw_gbs": None,
        "out_of_bounds": None,
        "passed": False,
        "error": None,
    }
    errors: list[str] = []
    for line in content_lines(text):
        stripped = line.strip()
        if match := _VERSION.match(stripped):
            result["version"] = match["version"]
        if result["test"] is None and (match := _TEST_NAME.search(stripped)):
            result["test"] = match["name"]
        if match := _OUT_OF_BOUNDS.match(stripped):
            result["out_of_bounds"] = int(match["count"])
        elif match := _AVG_BUSBW.match(stripped):
            result["avg_busbw_gbs"] = float(match["value"])
        elif (row := _row(stripped.split())) is not None:
            result["format"] = row.pop("format")
            result["rows"].append(row)
        elif _ERROR.search(stripped):
            errors.append(stripped)
    rows = result["rows"]
    if not rows and not errors:
        raise ParseError("no nccl-tests result rows and no NCCL/CUDA error message found")
    if rows and result["avg_busbw_gbs"] is None:
        result["avg_busbw_gbs"] = round(fmean(_busbw_values(rows)), 3) if _busbw_values(rows) else None
    if not rows:
        result["error"] = errors[0]
    wrong = sum(
        half["wrong"] for row in rows for half in (row["out_of_place"], row["in_place"]) if half["wrong"]
    )
    result["passed"] = bool(rows) and not wrong and not result["out_of_bounds"] and result["error"] is None
    return result


def _busbw_values(rows: list[dict[str, Any]]) -> list[float]:
    halves = (half for row in rows for half in (row["out_of_place"], row["in_place"]))
    return [half["busbw_gbs"] for half in halves if half["busbw_gbs"] is not None]


def _row(tokens: list[str]) -> dict[str, Any] | None:
    """One result row: size count type redop [root] then two (time algbw busbw wrong) halves."""
    if len(tokens) not in (12, 13) or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    if tokens[2] not in _TYPES:
        return None
    has_root = len(tokens) == 13
    halves = tokens[5:] if has_root else tokens[4:]
    if not all(is_number(t) or t == "N/A" for t in halves):
        return None
    old_format = "." in halves[3] or "e" in halves[3].lower()
    return {
        "format": "old" if old_format else "new",
        "size_bytes": int(tokens[0]),
        "count": int(tokens[1]),
        "type": tokens[2],
        "redop": tokens[3],
        "root": to_number(tokens[4]) if has_root else None,
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
