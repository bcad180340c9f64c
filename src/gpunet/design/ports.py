"""Per-port settings: speed and MTU in the OS's spelling, lossless flag, PFC headroom and the
headroom profile a lossless port is bound to."""

from __future__ import annotations

from dataclasses import asdict
from functools import cache
from typing import Any

from gpunet.design.headroom import compute_headroom
from gpunet.design.platform_defaults import BufferParameters
from gpunet.design.platforms import PlatformDesign
from gpunet.hardware import SwitchModel
from gpunet.hardware.physical import Placement, PortRequest, place_ports
from gpunet.model.fabric import Switch, SwitchPort


def design_ports(
    switch: Switch, model: SwitchModel, fabric_mtu: int, buffer: BufferParameters, platform: PlatformDesign
) -> list[dict[str, Any]]:
    placements = _placements(switch, model)
    ports = [_port(platform, port, placements[port.name], fabric_mtu, buffer) for port in switch.ports]
    for port in ports:
        port["headroom_rendered_as"] = (
            platform.headroom_rendered_as(port, model) if port["lossless"] else None
        )
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


def breakouts(
    ports: list[dict[str, Any]], platform: PlatformDesign, model: SwitchModel
) -> list[dict[str, Any]]:
    """One entry per cage gpunet uses: the parent port the OS sets the breakout mode on, and the mode."""
    cages: dict[str, dict[str, Any]] = {}
    lanes = model.physical.cage_lanes if model.physical else 0
    for port in ports:
        cage = port["cage"]
        if cage is None or cage in cages:
            continue
        parent = platform.breakout_parent(cage, lanes)
        if parent is not None:
            cages[cage] = {
                "cage": cage,
                "parent": parent,
                "mode": port["breakout_mode"],
                "children": port["children"],
            }
    return list(cages.values())


# Placing is a pure function of the model, the OS and the requests, and the switches of one tier
# ask the same (10,240 switches of 128 ports at 262,144 GPUs): each distinct request is placed once,
# a tenth of printing a switch. Bounded: a fabric has a handful of distinct port lists.
# Keyed by plain tuples, which hash and compare in C (a key of PortRequests hashed each in Python).
_PLACED: dict[tuple[str, str, tuple[tuple[int, str, int, int | None], ...]], dict[str, Placement]] = {}
_PLACED_KEEP = 64


def _placements(switch: Switch, model: SwitchModel) -> dict[str, Placement | None]:
    if model.physical is None:
        return dict.fromkeys((port.name for port in switch.ports), None)
    requests = tuple((i, port.name, port.speed_gbps, port.lanes) for i, port in enumerate(switch.ports))
    key = (model.name, switch.platform, requests)
    placed = _PLACED.get(key)
    if placed is None:
        asked = tuple(PortRequest(*request) for request in requests)
        placements, problems = place_ports(model.physical, switch.platform, asked)
        if problems:  # the inventory check refuses these; reaching here is a bug of ours
            raise ValueError(f"{switch.name}: ports that cannot be built on {model.name}: {problems}")
        if len(_PLACED) >= _PLACED_KEEP:
            _PLACED.clear()
        placed = _PLACED[key] = placements
    return dict(placed)


def _port(
    platform: PlatformDesign,
    port: SwitchPort,
    placement: Placement | None,
    fabric_mtu: int,
    buffer: BufferParameters,
) -> dict[str, Any]:
    mtu = min(port.mtu, platform.limits.max_mtu)
    headroom = _headroom_dict(port.speed_gbps, mtu, port.cable_length_m, buffer) if port.lossless else None
    lanes = placement.lanes if placement else None
    return {
        "name": port.name,
        "speed_gbps": port.speed_gbps,
        "lanes": lanes,
        "cage": placement.cage if placement else None,
        "child": placement.child if placement else None,
        "children": placement.mode.children if placement else None,
        "breakout_mode": placement.mode.name if placement else None,
        "speed": platform.speed(port.speed_gbps, lanes),
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
