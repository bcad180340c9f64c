"""Cisco NX-OS (Nexus 9000): system-wide no-drop buffer, 8-queue system classes, kbytes ECN."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.hardware import SwitchModel

TRAFFIC_CLASSES = range(8)


def egress_class(traffic_class: int) -> str:
    """NX-OS 8-queue egress system classes: class 0 is the default class."""
    return f"c-out-8q-q{traffic_class or '-default'}"


class NxosDesign(PlatformDesign):
    name = "nxos"
    limits = PlatformLimits(max_mtu=9216, watchdog_interval_ms=100)

    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        return str(speed_gbps * 1000)  # Mb/s

    def ecn_device(
        self, min_bytes: int, max_bytes: int, buffer: BufferParameters, model: SwitchModel
    ) -> dict[str, Any]:
        return {"unit": "kbytes", "min": min_bytes // 1024, "max": max_bytes // 1024}

    def headroom_rendered_as(self, port: dict[str, Any]) -> str:
        return "system no-drop buffer"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        by_class = {queue["traffic_class"]: queue for queue in context.queues}
        # Cisco's RoCE reference lists every egress queuing class; classes the policy does not use
        # get 0 % of the remaining bandwidth instead of the switch's default share.
        egress = [{**by_class.get(tc, _unused(tc)), "nxos_class": egress_class(tc)} for tc in TRAFFIC_CLASSES]
        return {"egress_classes": egress, "system_headroom": _system_headroom(context.ports)}

    def notes(self, context: DesignContext) -> list[str]:
        return [
            "NX-OS takes the no-drop buffer (pause buffer-size/pause-threshold/resume-threshold, ingress "
            "queuing policy under system qos) once for the whole system: rendered for the port needing the "
            "most headroom; each port's own need is in the table.",
            "PFC watchdog: polling interval and shutdown multiplier are rendered (detect time in whole "
            "intervals, rounded up). The restore is left to the switch's default: Cisco documents an "
            "auto-restore/fixed-restore multiplier (NX-API fixedRestoreMultiplier) but no source in hand "
            "settles its CLI form, so the policy's restore time is not applied.",
            "Every egress queuing class is listed; classes the policy does not use get 0 % bandwidth.",
        ]


def _unused(traffic_class: int) -> dict[str, Any]:
    return {
        "name": f"unused{traffic_class}",
        "traffic_class": traffic_class,
        "strict": False,
        "bandwidth_percent": 0,
        "lossless": False,
        "cnp": False,
        "ecn": False,
    }


def _system_headroom(ports: list[dict[str, Any]]) -> dict[str, Any] | None:
    """NX-OS sets no-drop buffers once for the system: size them for the most demanding port."""
    lossless = [port for port in ports if port["lossless"]]
    if not lossless:
        return None
    worst = max(lossless, key=lambda port: port["headroom"]["size_bytes"])
    headroom = worst["headroom"]
    pause_threshold = headroom["xon_bytes"] + worst["mtu"]  # one frame of hysteresis above resume
    return {
        "port": worst["name"],
        "buffer_size": headroom["xoff_bytes"] + pause_threshold,
        "pause_threshold": pause_threshold,
        "resume_threshold": headroom["xon_bytes"],
    }
