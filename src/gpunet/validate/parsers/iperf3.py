"""`iperf3 --json`: the TCP throughput between two hosts, in Gb/s, or the error iperf3 reported."""

from __future__ import annotations

import json
from typing import Any

from gpunet.validate.parsers.base import ParseError


def parse_iperf3(text: str) -> dict[str, Any]:
    start = text.find("{")
    try:
        # raw_decode: a second document after the first (a doubled capture) is reported, not merged.
        document, end_index = json.JSONDecoder().raw_decode(text[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError as error:
        raise ParseError(f"not iperf3 --json output: {error.msg} at line {error.lineno}") from None
    if start >= 0 and text[start + end_index :].strip().startswith("{"):
        raise ParseError("the capture holds more than one iperf3 JSON document (a duplicated capture)")
    if not isinstance(document, dict) or not ({"start", "end", "error"} & document.keys()):
        raise ParseError("not iperf3 --json output: no 'start', 'end' or 'error' key")
    end = _mapping(document, "end")
    sent = _mapping(end, "sum_sent", "end.")
    received = _mapping(end, "sum_received", "end.")
    start_block = _mapping(document, "start")
    connected = start_block.get("connected") or [{}]
    if not isinstance(connected, list) or not isinstance(connected[0], dict):
        raise ParseError("iperf3 JSON: start.connected is not a list of connections")
    error = document.get("error")
    if document.get("end") is None and error is None:
        raise ParseError("iperf3 JSON has no 'end' block and no error: the run was cut short")
    return {
        "remote_host": connected[0].get("remote_host"),
        "local_host": connected[0].get("local_host"),
        "protocol": _mapping(start_block, "test_start", "start.").get("protocol"),
        "duration_s": _number(received, "seconds") or _number(sent, "seconds"),
        "sent_gbps": _gbps(_number(sent, "bits_per_second")),
        "received_gbps": _gbps(_number(received, "bits_per_second")),
        "retransmits": _number(sent, "retransmits"),
        "error": str(error) if error is not None else None,
    }


def _mapping(parent: dict[str, Any], key: str, where: str = "") -> dict[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParseError(f"iperf3 JSON: {where}{key} is a {type(value).__name__}, expected an object")
    return value


def _number(block: dict[str, Any], key: str) -> float | None:
    value = block.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ParseError(f"iperf3 JSON: {key} is {value!r}, expected a number")
    return value


def _gbps(bits_per_second: float | None) -> float | None:
    return None if bits_per_second is None else round(bits_per_second / 1e9, 4)
