"""Egress queues: ETS shares and strict queues from qos.queues, ECN marking on the lossless queue."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import BufferParameters
from gpunet.design.units import bytes_to_fill_percent, kb_to_bytes
from gpunet.model.fabric import Ecn, Qos


def design_queues(qos: Qos) -> list[dict[str, Any]]:
    """One entry per queue, by traffic class. Only the lossless queue marks ECN."""
    return [
        {
            "name": queue.name,
            # NX-OS 8-queue system classes: class 0 is the default class.
            "nxos_class": f"c-out-8q-q{queue.traffic_class or '-default'}",
            "traffic_class": queue.traffic_class,
            "strict": queue.strict,
            "bandwidth_percent": queue.bandwidth_percent,
            "lossless": queue.traffic_class == qos.lossless_priority,
            "cnp": queue.traffic_class == qos.cnp_priority,
            "ecn": queue.traffic_class == qos.lossless_priority,
        }
        for queue in sorted(qos.queues, key=lambda q: q.traffic_class)
    ]


def design_ecn(ecn: Ecn, platform: str, buffer: BufferParameters, traffic_class: int) -> dict[str, Any]:
    """ECN/WRED thresholds in bytes and in the unit the platform's CLI takes."""
    min_bytes, max_bytes = kb_to_bytes(ecn.min_threshold_kb), kb_to_bytes(ecn.max_threshold_kb)
    if platform in ("nxos", "eos"):
        device = {"unit": "kbytes", "min": ecn.min_threshold_kb, "max": ecn.max_threshold_kb}
    elif platform == "junos":
        low = bytes_to_fill_percent(min_bytes, buffer.queue_buffer_bytes)
        # Junos needs rising fill levels; rounding may make both equal on a large buffer.
        high = max(low + 1, bytes_to_fill_percent(max_bytes, buffer.queue_buffer_bytes))
        device = {"unit": "percent fill level", "min": low, "max": min(high, 100)}
        if max_bytes > buffer.queue_buffer_bytes:
            device["note"] = (
                f"ECN max threshold {max_bytes} bytes exceeds queue_buffer_bytes "
                f"{buffer.queue_buffer_bytes}: rendered as fill level 100 %."
            )
    else:
        device = {"unit": "bytes", "min": min_bytes, "max": max_bytes}
    return {
        "traffic_class": traffic_class,
        "min_kb": ecn.min_threshold_kb,
        "max_kb": ecn.max_threshold_kb,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "probability": ecn.max_mark_probability,
        "device": device,
    }
