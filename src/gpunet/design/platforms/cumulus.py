"""NVIDIA Cumulus Linux (NVUE): the switch sizes headroom from cable length; explicit scheduler for all
eight traffic classes; a lossless traffic pool before PFC; watchdog in polling intervals."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign

TRAFFIC_CLASSES = range(8)
# Share of the buffer for the lossless traffic pool; the rest stays in the default lossy pool.
# gpunet's choice (NVIDIA documents the pools and their memory-percent, not a value for RoCE).
LOSSLESS_POOL_PERCENT = 50


class CumulusDesign(PlatformDesign):
    name = "cumulus"
    limits = PlatformLimits(max_mtu=9216, watchdog_interval_ms=100)  # NVUE pfc-watchdog default 100 ms
    sizes_headroom_itself = True

    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        return f"{speed_gbps}G"

    def breakout_parent(self, cage: str, cage_lanes: int) -> str | None:
        # NVUE sets `link breakout <N>x` on the unsplit port swp<cage>; its children are swp<cage>s<k>.
        return f"swp{cage}"

    def profile_name(self, speed_gbps: int, mtu: int, cable_m: int, fabric_mtu: int) -> str | None:
        return f"gpunet-pfc-{cable_m}m"  # the profile carries only the cable length

    def headroom_rendered_as(self, port: dict[str, Any]) -> str:
        return f"sized by the switch from cable-length in {port['pfc_profile']}"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        by_class = {queue["traffic_class"]: queue for queue in context.queues}
        scheduler = []
        for tc in TRAFFIC_CLASSES:
            queue = by_class.get(tc)
            if queue is None:
                scheduler.append({"traffic_class": tc, "mode": "dwrr", "bw_percent": 0})
            elif queue["strict"]:
                scheduler.append({"traffic_class": tc, "mode": "strict", "bw_percent": None})
            else:
                scheduler.append(
                    {"traffic_class": tc, "mode": "dwrr", "bw_percent": queue["bandwidth_percent"]}
                )
        total = sum(entry["bw_percent"] or 0 for entry in scheduler)
        if total > 100:
            raise ValueError(f"Cumulus DWRR shares total {total} %, above 100 %")
        watchdog = context.pfc["watchdog"]
        return {
            "scheduler": scheduler,
            "dwrr_total_percent": total,
            "traffic_pools": [
                {"name": "default-lossy", "memory_percent": 100 - LOSSLESS_POOL_PERCENT},
                {"name": "default-lossless", "memory_percent": LOSSLESS_POOL_PERCENT},
            ],
            # NVUE: polling-interval in ms, robustness = polling intervals before a storm is declared.
            "watchdog": {
                "polling_interval_ms": watchdog["interval_ms"],
                "robustness": watchdog["detect_intervals"],
            },
        }

    def notes(self, context: DesignContext) -> list[str]:
        specifics = self.specifics(context)
        watchdog = specifics["watchdog"]
        return [
            "PFC headroom is left to the switch: each PFC profile carries the cable length, and NVIDIA "
            "advises not to set xoff-threshold/xon-threshold/port-buffer by hand; the computed values "
            "below are for review only.",
            f"The egress scheduler sets all eight traffic classes; DWRR shares total "
            f"{specifics['dwrr_total_percent']} % (unused classes 0 %).",
            f"Switch priority {context.pfc['priority']} is in the default-lossless traffic pool "
            f"({LOSSLESS_POOL_PERCENT} % of the buffer, gpunet's choice); the rest stays lossy.",
            f"PFC watchdog: polling every {watchdog['polling_interval_ms']} ms, a storm after "
            f"{watchdog['robustness']} intervals (robustness). NVUE has no restore time: the policy's "
            f"{context.pfc['watchdog']['restore_ms']} ms restore is not applied.",
            "Cumulus Linux's stock default-global congestion-control profile also marks ECN on traffic "
            "class 0; gpunet leaves that profile entry as it is, so traffic class 0 is ECN-marked too.",
        ]
