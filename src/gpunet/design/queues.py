"""Egress queues: ETS shares and strict queues from qos.queues, ECN marking on the lossless queue."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import BufferParameters
from gpunet.design.platforms import PlatformDesign
from gpunet.design.units import kb_to_bytes
from gpunet.hardware import SwitchModel
from gpunet.model.fabric import Ecn, Qos


def design_queues(qos: Qos) -> list[dict[str, Any]]:
    """One entry per queue, by traffic class. Only the lossless queue marks ECN."""
    return [
        {
            "name": queue.name,
            "traffic_class": queue.traffic_class,
            "strict": queue.strict,
            "bandwidth_percent": queue.bandwidth_percent,
            "lossless": queue.traffic_class == qos.lossless_priority,
            "cnp": queue.traffic_class == qos.cnp_priority,
            "ecn": queue.traffic_class == qos.lossless_priority,
        }
        for queue in sorted(qos.queues, key=lambda q: q.traffic_class)
    ]


def design_ecn(
    ecn: Ecn, platform: PlatformDesign, buffer: BufferParameters, traffic_class: int, model: SwitchModel
) -> dict[str, Any]:
    """ECN/WRED thresholds in bytes and in the unit the platform's CLI takes."""
    min_bytes, max_bytes = kb_to_bytes(ecn.min_threshold_kb), kb_to_bytes(ecn.max_threshold_kb)
    return {
        "traffic_class": traffic_class,
        "min_kb": ecn.min_threshold_kb,
        "max_kb": ecn.max_threshold_kb,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "probability": ecn.max_mark_probability,
        "device": platform.ecn_device(min_bytes, max_bytes, buffer, model),
    }
