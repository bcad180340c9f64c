"""NVIDIA Cumulus Linux (NVUE): the switch sizes headroom from cable length; explicit scheduler for all
eight traffic classes; a lossless traffic pool before PFC; watchdog in polling intervals."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.hardware import SwitchModel

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

    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        return f"sized by the switch from cable-length in {port['pfc_profile']}"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        # Only the classes in use get a scheduler entry, and every switch priority maps to one of them:
        # NVIDIA's own RoCE profile does the same (NVUE OpenAPI 5.3.0
        # schema-qos-ets-ets-traffic-class-with-roce-defaults: traffic classes 0 and 3 DWRR 50 %, 6 strict,
        # no entry for the rest; `nv show qos roce` in the Cumulus Linux 5.12 guide maps the unused
        # switch priorities to traffic class 0). DWRR takes a weight of 1-100 (0 is not an idle class).
        used = {queue["traffic_class"] for queue in context.queues}
        default_tc = _default_class(context)
        scheduler = []
        for queue in sorted(context.queues, key=lambda q: q["traffic_class"]):
            if queue["strict"]:
                scheduler.append(
                    {"traffic_class": queue["traffic_class"], "mode": "strict", "bw_percent": None}
                )
            else:
                scheduler.append(
                    {
                        "traffic_class": queue["traffic_class"],
                        "mode": "dwrr",
                        "bw_percent": queue["bandwidth_percent"],
                    }
                )
        total = sum(entry["bw_percent"] or 0 for entry in scheduler)
        if total > 100:
            raise ValueError(f"Cumulus DWRR shares total {total} %, above 100 %")
        if any(entry["bw_percent"] == 0 for entry in scheduler):
            raise ValueError("Cumulus DWRR takes a weight of 1-100; a class in use has 0 %")
        egress_queue_mapping = [
            {"switch_priority": sp, "traffic_class": sp if sp in used else default_tc}
            for sp in TRAFFIC_CLASSES
        ]
        watchdog = context.pfc["watchdog"]
        return {
            "scheduler": scheduler,
            "egress_queue_mapping": egress_queue_mapping,
            "default_traffic_class": default_tc,
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

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        watchdog = specifics["watchdog"]
        return [
            "PFC headroom is left to the switch: each PFC profile carries the cable length, and NVIDIA "
            "advises not to set xoff-threshold/xon-threshold/port-buffer by hand; the computed values "
            "below are for review only.",
            f"The egress scheduler sets the traffic classes in use only "
            f"({', '.join(str(e['traffic_class']) for e in specifics['scheduler'])}); DWRR shares total "
            f"{specifics['dwrr_total_percent']} %. Switch priorities no queue uses map to traffic class "
            f"{specifics['default_traffic_class']}, as NVIDIA's RoCE profile maps them.",
            f"Switch priority {context.pfc['priority']} is in the default-lossless traffic pool "
            f"({LOSSLESS_POOL_PERCENT} % of the buffer, gpunet's choice); the rest stays lossy.",
            f"PFC watchdog: polling every {watchdog['polling_interval_ms']} ms, a storm after "
            f"{watchdog['robustness']} intervals (robustness). NVUE has no restore time: the policy's "
            f"{context.pfc['watchdog']['restore_ms']} ms restore is not applied.",
            "Cumulus Linux's stock default-global congestion-control profile also marks ECN on traffic "
            "class 0; gpunet leaves that profile entry as it is, so traffic class 0 is ECN-marked too.",
        ]


def _default_class(context: DesignContext) -> int:
    """The traffic class unclassified traffic (DSCP 0) is in: where unused switch priorities go."""
    by_dscp = {entry["dscp"]: entry["traffic_class"] for entry in context.classification["dscp_to_tc"]}
    return by_dscp.get(0, min(queue["traffic_class"] for queue in context.queues))
