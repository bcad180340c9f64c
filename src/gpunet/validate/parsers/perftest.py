"""perftest (`ib_write_bw`, `ib_read_lat`, ...): a header block, then a result table.

Bandwidth is always returned in Gb/s. Without --report_gbits perftest prints MB/sec, where one
MB is 2**20 bytes (perftest's own format factor), so the conversion is exact, not decimal.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines, is_number

_TITLE = re.compile(r"^\s*(?P<op>RDMA_Write|RDMA_Read|Send|Atomic\w*)\s+(?P<kind>BW|Latency)\s+Test\s*$")
_HEADER_FIELD = re.compile(r"([A-Za-z][\w .()*/-]*?)\s*:\s*(\S+(?:\[B\])?)")
_ERROR = re.compile(
    r"(couldn't|could not|unable|failed|failure|error|no .*device|not found|timed? ?out|refused)",
    re.IGNORECASE,
)
_MEGABYTES_TO_GBITS = 2**20 * 8 / 1e9
_LATENCY_KEYS = ("t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us", "p99_us", "p999_us")

_HEADER_KEYS = {"Device": "device", "Link type": "link_type", "Mtu": "mtu", "GID index": "gid_index"}


def parse_perftest(text: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "test": None,
        "device": None,
        "link_type": None,
        "mtu": None,
        "gid_index": None,
        "results": [],
        "error": None,
    }
    columns: str | None = None
    errors: list[str] = []
    in_header = False
    for line in content_lines(text):
        stripped = line.strip()
        if match := _TITLE.match(line):
            op = match["op"].removeprefix("RDMA_").lower()
            result["test"] = f"{op}_{'bw' if match['kind'] == 'BW' else 'lat'}"
            in_header = True
        elif stripped.startswith("#bytes"):
            columns = stripped
            in_header = False
        elif stripped.startswith(("local address", "remote address")):
            in_header = False
        elif _ERROR.search(stripped) and not stripped.startswith("libibverbs: Warning"):
            errors.append(stripped)
        elif in_header and ":" in stripped:
            _read_header(stripped, result)
        elif columns is not None and stripped and all(is_number(t) for t in stripped.split()):
            result["results"].append(_row(columns, stripped.split()))
    if errors and not result["results"]:
        result["error"] = errors[0]
    if result["test"] is None and result["error"] is None:
        raise ParseError("no perftest title (e.g. 'RDMA_Write BW Test') and no error message found")
    if result["error"] is None and not result["results"]:
        raise ParseError(f"perftest {result['test']} output has no result rows")
    return result


def _read_header(line: str, result: dict[str, Any]) -> None:
    for key, value in _HEADER_FIELD.findall(line):
        name = _HEADER_KEYS.get(key.strip())
        if name == "mtu" or name == "gid_index":
            digits = re.match(r"\d+", value)
            result[name] = int(digits.group()) if digits else None
        elif name:
            result[name] = value


def _row(columns: str, tokens: list[str]) -> dict[str, Any]:
    values = [float(t) for t in tokens]
    row: dict[str, Any] = {"bytes": int(values[0]), "iterations": int(values[1])}
    if "BW" in columns:
        factor = 1.0 if "Gb/sec" in columns else _MEGABYTES_TO_GBITS
        row["bw_peak_gbps"] = round(values[2] * factor, 4)
        row["bw_avg_gbps"] = round(values[3] * factor, 4)
        row["msg_rate_mpps"] = values[4] if len(values) > 4 else None
    else:
        row.update(zip(_LATENCY_KEYS, values[2:], strict=False))
    return row
