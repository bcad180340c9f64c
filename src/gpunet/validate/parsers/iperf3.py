"""`iperf3 --json`: the TCP throughput between two hosts, in Gb/s, or the error iperf3 reported."""

from __future__ import annotations

import json
from typing import Any

from gpunet.validate.parsers.base import ParseError


def parse_iperf3(text: str) -> dict[str, Any]:
    start = text.find("{")
    try:
        document = json.loads(text[start:]) if start >= 0 else None
    except json.JSONDecodeError as error:
        raise ParseError(f"not iperf3 --json output: {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict) or not ({"start", "end", "error"} & document.keys()):
        raise ParseError("not iperf3 --json output: no 'start', 'end' or 'error' key")
    end = document.get("end") or {}
    sent = end.get("sum_sent") or {}
    received = end.get("sum_received") or {}
    connected = (document.get("start") or {}).get("connected") or [{}]
    return {
        "remote_host": connected[0].get("remote_host"),
        "local_host": connected[0].get("local_host"),
        "protocol": (document.get("start") or {}).get("test_start", {}).get("protocol"),
        "duration_s": received.get("seconds") or sent.get("seconds"),
        "sent_gbps": _gbps(sent.get("bits_per_second")),
        "received_gbps": _gbps(received.get("bits_per_second")),
        "retransmits": sent.get("retransmits"),
        "error": document.get("error"),
    }


def _gbps(bits_per_second: float | None) -> float | None:
    return None if bits_per_second is None else round(bits_per_second / 1e9, 4)
