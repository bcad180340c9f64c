"""`chronyc tracking`: `Key : value` lines; the system time offset is returned signed, in ms."""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

_FIELD = re.compile(r"^(?P<key>[A-Za-z][A-Za-z ]*?)\s*:\s*(?P<value>.*)$")
_SYSTEM_TIME = re.compile(r"^(?P<seconds>[\d.eE+-]+) seconds (?P<side>fast|slow) of NTP time")
_SECONDS = re.compile(r"^(?P<seconds>[+-]?[\d.eE+-]+) seconds")
_REFERENCE = re.compile(r"^(?P<id>[0-9A-Fa-f]+)\s*\((?P<name>[^)]*)\)")


def parse_chronyc_tracking(text: str) -> dict[str, Any]:
    fields: dict[str, str] = {}
    for line in content_lines(text):
        if match := _FIELD.match(line.strip()):
            fields[match["key"]] = match["value"].strip()
    if "Leap status" not in fields or "System time" not in fields:
        raise ParseError("no 'System time' and 'Leap status' lines: not `chronyc tracking` output")
    system_time = _SYSTEM_TIME.match(fields["System time"])
    if system_time is None:
        raise ParseError(f"cannot read 'System time : {fields['System time']}'")
    sign = 1 if system_time["side"] == "fast" else -1
    reference = _REFERENCE.match(fields.get("Reference ID", ""))
    return {
        "reference_id": reference["id"] if reference else None,
        "reference_name": reference["name"] if reference else None,
        "stratum": int(fields["Stratum"]) if fields.get("Stratum", "").isdigit() else None,
        "system_time_offset_ms": sign * float(system_time["seconds"]) * 1000,
        "last_offset_ms": _milliseconds(fields.get("Last offset")),
        "rms_offset_ms": _milliseconds(fields.get("RMS offset")),
        "leap_status": fields["Leap status"],
        "synchronised": fields["Leap status"] != "Not synchronised",
    }


def _milliseconds(value: str | None) -> float | None:
    match = _SECONDS.match(value or "")
    return float(match["seconds"]) * 1000 if match else None
