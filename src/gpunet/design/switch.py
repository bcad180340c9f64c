"""One switch's structured config: the plain dict every template prints from."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gpunet.design.classification import design_classification
from gpunet.design.pfc import design_pfc
from gpunet.design.platform_defaults import PLATFORM_LIMITS, buffer_parameters
from gpunet.design.ports import design_ports, headroom_profiles
from gpunet.design.queues import design_ecn, design_queues
from gpunet.model.fabric import Fabric, Switch
from gpunet.platforms import get_platform


def design_switch(fabric: Fabric, switch: Switch) -> dict[str, Any]:
    platform = get_platform(switch.platform)
    limits = PLATFORM_LIMITS[platform.name]
    buffer = buffer_parameters(platform.name, switch.buffer)
    qos = fabric.qos
    ports = design_ports(switch, fabric.mtu, buffer, limits)
    ecn = design_ecn(qos.ecn, platform.name, buffer, qos.lossless_priority)
    lossless_ports = [port for port in ports if port["lossless"]]
    return {
        "name": switch.name,
        "platform": platform.name,
        "platform_title": platform.title,
        "role": switch.role,
        "fabric": fabric.name,
        "system_mtu": min(fabric.mtu, limits.max_mtu),
        "traffic_classes": list(range(8)),
        "classification": design_classification(qos),
        "queues": design_queues(qos),
        "ecn": ecn,
        "pfc": design_pfc(qos, limits),
        "buffer": asdict(buffer),
        "ports": ports,
        "lossless_ports": lossless_ports,
        "headroom_profiles": headroom_profiles(ports),
        # Only NX-OS sizes no-drop buffers once for the whole system.
        "system_headroom": _system_headroom(lossless_ports) if platform.name == "nxos" else None,
        "notes": _notes(platform.name, ports, limits.max_mtu) + _ecn_notes(ecn),
    }


def _system_headroom(lossless_ports: list[dict[str, Any]]) -> dict[str, int] | None:
    """NX-OS sets no-drop buffers once for the system: size them for the most demanding port."""
    if not lossless_ports:
        return None
    worst = max(lossless_ports, key=lambda port: port["headroom"]["size_bytes"])
    headroom = worst["headroom"]
    pause_threshold = headroom["xon_bytes"] + worst["mtu"]  # one frame of hysteresis above resume
    return {
        "port": worst["name"],
        "buffer_size": headroom["xoff_bytes"] + pause_threshold,
        "pause_threshold": pause_threshold,
        "resume_threshold": headroom["xon_bytes"],
    }


def _ecn_notes(ecn: dict[str, Any]) -> list[str]:
    note = ecn["device"].get("note")
    return [note] if note else []


def _notes(platform: str, ports: list[dict[str, Any]], max_mtu: int) -> list[str]:
    notes = []
    clamped = [port["name"] for port in ports if port["mtu_clamped"]]
    if clamped:
        notes.append(
            f"MTU clamped to the {platform} maximum {max_mtu} on {len(clamped)} port(s): "
            f"{', '.join(clamped)}."
        )
    notes.extend(PLATFORM_NOTES[platform])
    return notes


PLATFORM_NOTES: dict[str, list[str]] = {
    "nxos": [
        "NX-OS takes the no-drop buffer (pause buffer-size/pause-threshold/resume-threshold, ingress "
        "queuing policy under system qos) once for the whole system: rendered for the port needing the "
        "most headroom; each port's own need is in the table.",
        "PFC watchdog times are rendered as multipliers of the polling interval, rounded up.",
    ],
    "eos": [
        "EOS sizes PFC headroom itself; the computed values below are for review and are not rendered.",
    ],
    "cumulus": [
        "One PFC profile per distinct (speed, cable, MTU) carries the computed xoff/xon/port-buffer in bytes "
        "and the cable length.",
        "PFC watchdog detect/restore times are not set: NVUE enables the watchdog per port with its own "
        "timers.",
    ],
    "sonic": [
        "Traditional buffer model: BUFFER_PROFILE/BUFFER_PG carry the computed headroom; the stock AZURE "
        "DSCP map (DSCP 26 -> TC 1) is replaced by the complete GPUNET map on every port.",
    ],
    "junos": [
        "Junos derives PFC headroom from the congestion-notification profile's cable length and the MRU; "
        "the computed values below show what to expect.",
        "ECN thresholds are fill levels in percent of queue_buffer_bytes, rounded, at least 1.",
    ],
}
