"""Per-port settings: speed and MTU in the OS's spelling, lossless flag, PFC headroom and the
headroom profile a lossless port is bound to."""

from __future__ import annotations

from dataclasses import asdict
from functools import cache
from typing import Any

from gpunet.design.headroom import compute_headroom
from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.design.units import device_speed
from gpunet.model.fabric import Switch, SwitchPort


def design_ports(
    switch: Switch, fabric_mtu: int, buffer: BufferParameters, limits: PlatformLimits
) -> list[dict[str, Any]]:
    ports = [_port(switch.platform, port, fabric_mtu, buffer, limits) for port in switch.ports]
    for port in ports:
        lossless = port["lossless"]
        port["headroom_rendered_as"] = headroom_rendered_as(switch.platform, port) if lossless else None
    return ports


def headroom_profiles(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The distinct headroom profiles of the lossless ports, by name."""
    profiles: dict[str, dict[str, Any]] = {}
    for port in ports:
        if port["lossless"] and port["pfc_profile"]:
            profiles.setdefault(
                port["pfc_profile"],
                {
                    "name": port["pfc_profile"],
                    "speed_gbps": port["speed_gbps"],
                    "speed": port["speed"],
                    "mtu": port["mtu"],
                    "cable_length_m": port["cable_length_m"],
                    "headroom": port["headroom"],
                },
            )
    return [profiles[name] for name in sorted(profiles)]


def _port(
    platform: str, port: SwitchPort, fabric_mtu: int, buffer: BufferParameters, limits: PlatformLimits
) -> dict[str, Any]:
    mtu = min(port.mtu, limits.max_mtu)
    headroom = _headroom_dict(port.speed_gbps, mtu, port.cable_length_m, buffer) if port.lossless else None
    return {
        "name": port.name,
        "speed_gbps": port.speed_gbps,
        "speed": device_speed(platform, port.speed_gbps),
        "mtu": mtu,
        "requested_mtu": port.mtu,
        "mtu_clamped": mtu != port.mtu,
        "cable_length_m": port.cable_length_m,
        "lossless": port.lossless,
        "peer": str(port.peer) if port.peer else "",
        "headroom": headroom,
        "pfc_profile": _profile_name(platform, port.speed_gbps, mtu, port.cable_length_m, fabric_mtu)
        if port.lossless
        else None,
    }


def headroom_rendered_as(platform: str, port: dict[str, Any]) -> str:
    """How the port's headroom reaches the device, for the summary."""
    if platform == "nxos":
        return "system no-drop buffer"
    if platform == "eos":
        return "derived by EOS"
    if platform == "junos":
        return f"cable length in {port['pfc_profile']}"
    return f"profile {port['pfc_profile']}"


@cache
def _headroom_dict(speed_gbps: int, mtu: int, cable_m: int, buffer: BufferParameters) -> dict[str, Any]:
    """Shared by every port with the same inputs (read-only for templates): cheap at 100k ports."""
    return asdict(compute_headroom(speed_gbps, mtu, cable_m, buffer))


def _profile_name(platform: str, speed_gbps: int, mtu: int, cable_m: int, fabric_mtu: int) -> str | None:
    if platform == "cumulus":
        return f"pfc-{speed_gbps}g-{cable_m}m-{mtu}"
    if platform == "junos":
        return f"cnp-{cable_m}m"  # Junos derives headroom from cable length and MRU itself
    if platform == "sonic":
        suffix = "" if mtu == fabric_mtu else f"_mtu{mtu}"
        return f"pg_lossless_{speed_gbps * 1000}_{cable_m}m{suffix}_profile"
    return None  # NX-OS sizes headroom system-wide; EOS sizes it itself
