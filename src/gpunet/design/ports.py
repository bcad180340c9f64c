"""Per-port settings: speed and MTU in the OS's spelling, lossless flag, PFC headroom and the
headroom profile a lossless port is bound to."""

from __future__ import annotations

from dataclasses import asdict
from functools import cache
from typing import Any

from gpunet.design.headroom import compute_headroom
from gpunet.design.platform_defaults import BufferParameters
from gpunet.design.platforms import PlatformDesign
from gpunet.model.fabric import Switch, SwitchPort


def design_ports(
    switch: Switch, fabric_mtu: int, buffer: BufferParameters, platform: PlatformDesign
) -> list[dict[str, Any]]:
    ports = [_port(platform, port, fabric_mtu, buffer) for port in switch.ports]
    for port in ports:
        port["headroom_rendered_as"] = platform.headroom_rendered_as(port) if port["lossless"] else None
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
    platform: PlatformDesign, port: SwitchPort, fabric_mtu: int, buffer: BufferParameters
) -> dict[str, Any]:
    mtu = min(port.mtu, platform.limits.max_mtu)
    headroom = _headroom_dict(port.speed_gbps, mtu, port.cable_length_m, buffer) if port.lossless else None
    return {
        "name": port.name,
        "speed_gbps": port.speed_gbps,
        "speed": platform.speed(port.speed_gbps),
        "mtu": mtu,
        "requested_mtu": port.mtu,
        "mtu_clamped": mtu != port.mtu,
        "cable_length_m": port.cable_length_m,
        "lossless": port.lossless,
        "peer": str(port.peer) if port.peer else "",
        "headroom": headroom,
        "pfc_profile": platform.profile_name(port.speed_gbps, mtu, port.cable_length_m, fabric_mtu)
        if port.lossless
        else None,
    }


@cache
def _headroom_dict(speed_gbps: int, mtu: int, cable_m: int, buffer: BufferParameters) -> dict[str, Any]:
    """Shared by every port with the same inputs (read-only for templates): cheap at 100k ports."""
    return asdict(compute_headroom(speed_gbps, mtu, cable_m, buffer))
