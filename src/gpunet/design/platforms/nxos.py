"""Cisco NX-OS (Nexus 9000): system-wide no-drop buffer, 8-queue system classes, kbytes ECN."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.hardware import SwitchModel

TRAFFIC_CLASSES = range(8)
# Cisco Nexus 9000 NX-OS QoS Configuration Guide 10.5(x), Configuring Priority Flow Control, Guidelines
# and Limitations (PFC_GUIDELINES): the "pause buffer size threshold" is optional below 100 m and need
# not be configured; above 100 m it is mandatory. Below it the switch keeps its own no-drop thresholds.
STATIC_PAUSE_BUFFER_ABOVE_M = 100
PFC_GUIDELINES = (
    "https://www.cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/105x/configuration/qos/"
    "cisco-nexus-9000-series-nx-os-quality-of-service-configuration-guide-105x/"
    "m-configuring-priority-flow-control.html"
)


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

    def breakout_parent(self, cage: str, cage_lanes: int) -> str | None:
        # `interface breakout module <slot> port <port> map <speed>-<N>x`: the cage is <slot>/<port>.
        return cage

    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        return "system no-drop buffer"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        by_class = {queue["traffic_class"]: queue for queue in context.queues}
        # Cisco's RoCE reference lists every egress queuing class; classes the policy does not use
        # get 0 % of the remaining bandwidth instead of the switch's default share.
        egress = [{**by_class.get(tc, _unused(tc)), "nxos_class": egress_class(tc)} for tc in TRAFFIC_CLASSES]
        return {
            "egress_classes": egress,
            "system_headroom": _system_headroom(context.ports, context.ecn),
            "breakouts": _breakouts(context.ports),
        }

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        return (
            [
                _pause_note(specifics["system_headroom"]),
                "PFC watchdog: polling interval and shutdown multiplier are rendered (detect time in whole "
                "intervals, rounded up). The restore is left to the switch's default: Cisco documents an "
                "auto-restore/fixed-restore multiplier (NX-API fixedRestoreMultiplier) but no source in hand "
                "settles its CLI form, so the policy's restore time is not applied.",
                "Every egress queuing class is listed; classes the policy does not use get 0 % bandwidth.",
            ]
            + (
                [
                    "Breakout (`interface breakout module ... map`): Cisco says the module is reloaded and "
                    "the interface's configuration removed when it runs (NX-API reference, Configuring "
                    "Breakout on High-Bandwidth Interfaces); push it in a maintenance window."
                ]
                if specifics["breakouts"]
                else []
            )
            + []
        )


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


def _system_headroom(ports: list[dict[str, Any]], ecn: dict[str, Any]) -> dict[str, Any] | None:
    """The static no-drop buffer, only where a lossless cable is longer than Cisco's 100 m (set once for
    the system, so sized for the most demanding of those ports). Its pause threshold sits at the ECN
    maximum, so the queue is ECN-marked before PFC pauses the sender (DCQCN, not PFC, does the rate
    control), with one frame of hysteresis below it to resume."""
    long = [
        port for port in ports if port["lossless"] and port["cable_length_m"] > STATIC_PAUSE_BUFFER_ABOVE_M
    ]
    if not long:
        return None
    worst = max(long, key=lambda port: port["headroom"]["size_bytes"])
    headroom = worst["headroom"]
    pause_threshold = max(headroom["xon_bytes"] + worst["mtu"], ecn["max_bytes"])
    return {
        "port": worst["name"],
        "cable_length_m": worst["cable_length_m"],
        "buffer_size": headroom["xoff_bytes"] + pause_threshold,
        "pause_threshold": pause_threshold,
        "resume_threshold": pause_threshold - worst["mtu"],
    }


def _pause_note(headroom: dict[str, Any] | None) -> str:
    if headroom is None:
        return (
            f"No lossless cable is longer than {STATIC_PAUSE_BUFFER_ABOVE_M} m: the static pause buffer "
            "(pause buffer-size/pause-threshold/resume-threshold) is not rendered, as Cisco's PFC guidelines "
            f"make it optional there ({PFC_GUIDELINES}); the switch keeps its own no-drop thresholds."
        )
    return (
        f"{headroom['port']} has a {headroom['cable_length_m']} m cable (Cisco: the static pause buffer is "
        f"mandatory above {STATIC_PAUSE_BUFFER_ABOVE_M} m). NX-OS takes it once for the whole system, so it "
        "is sized for the most demanding long-cable port and reserved on every port; the pause threshold "
        "sits at the ECN maximum so ECN marks before PFC pauses."
    )


def _breakouts(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One `interface breakout module <m> port <p> map <speed>g-<N>x` per split cage (child speed of the
    cage's mode: all children of a mode run its first speed)."""
    maps: dict[str, dict[str, Any]] = {}
    for port in ports:
        if port["children"] and port["children"] > 1 and port["cage"] not in maps:
            module, number = port["cage"].split("/")
            speed = int(port["breakout_mode"].split("x")[1].split("G")[0])
            maps[port["cage"]] = {"module": module, "port": number, "map": f"{speed}g-{port['children']}x"}
    return list(maps.values())
