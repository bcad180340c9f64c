"""PFC on the lossless priority and the PFC watchdog, with its times in each OS's units."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import PlatformLimits
from gpunet.design.units import ms_to_intervals, ms_to_seconds_text, priority_bits
from gpunet.model.fabric import Qos

TRAFFIC_CLASSES = range(8)


def design_pfc(qos: Qos, limits: PlatformLimits) -> dict[str, Any]:
    pfc = qos.pfc
    interval = limits.watchdog_interval_ms
    if limits.watchdog_interval_at_most_half:
        half = min(pfc.watchdog_detect_ms, pfc.watchdog_restore_ms) // 2
        interval = max(limits.watchdog_interval_min_ms, min(interval, half))
    return {
        "priority": qos.lossless_priority,
        # Priority group per traffic class (SONiC TC_TO_PRIORITY_GROUP_MAP): the lossless class gets
        # its own group, every other class shares group 0.
        "priority_groups": [
            {"traffic_class": tc, "group": tc if tc == qos.lossless_priority else 0} for tc in TRAFFIC_CLASSES
        ],
        "priority_bits": priority_bits(qos.lossless_priority),
        "watchdog": {
            "enabled": pfc.watchdog,
            "detect_ms": pfc.watchdog_detect_ms,
            "restore_ms": pfc.watchdog_restore_ms,
            "interval_ms": interval,
            # NX-OS multipliers and Junos detection count are whole polling intervals.
            "detect_intervals": ms_to_intervals(pfc.watchdog_detect_ms, interval),
            "restore_intervals": ms_to_intervals(pfc.watchdog_restore_ms, interval),
            # EOS takes seconds.
            "detect_seconds": ms_to_seconds_text(pfc.watchdog_detect_ms),
            "restore_seconds": ms_to_seconds_text(pfc.watchdog_restore_ms),
            "interval_seconds": ms_to_seconds_text(interval),
        },
    }
