"""One switch's structured config: the plain dict every template prints from."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gpunet.design.classification import design_classification
from gpunet.design.pfc import design_pfc
from gpunet.design.platform_defaults import buffer_parameters
from gpunet.design.platforms import DesignContext, platform_design
from gpunet.design.ports import breakouts, design_ports, headroom_profiles
from gpunet.design.queues import design_ecn, design_queues
from gpunet.grammar import grammar_for
from gpunet.hardware import get_model
from gpunet.model.fabric import Fabric, Switch
from gpunet.platforms import get_platform


def design_switch(fabric: Fabric, switch: Switch) -> dict[str, Any]:
    platform = get_platform(switch.platform)
    design = platform_design(platform.name)
    model = get_model(switch.model)
    buffer = buffer_parameters(model, switch.buffer)
    qos = fabric.qos
    system_mtu = min(fabric.mtu, design.limits.max_mtu)
    ports = design_ports(switch, model, fabric.mtu, buffer, design)
    ecn = design_ecn(qos.ecn, design, buffer, qos.lossless_priority, model)
    queues = design_queues(qos)
    pfc = design_pfc(qos, design.limits)
    classification = design_classification(qos)
    context = DesignContext(
        model=model,
        qos=qos,
        buffer=buffer,
        system_mtu=system_mtu,
        fabric_mtu=fabric.mtu,
        ports=ports,
        queues=queues,
        pfc=pfc,
        ecn=ecn,
        classification=classification,
    )
    specifics = design.specifics(context)  # once: the notes read the same
    return {
        "name": switch.name,
        "platform": platform.name,
        "platform_title": platform.title,
        "model": {
            "name": model.name,
            "title": model.title,
            "asic": model.asic,
            "asic_family": model.asic_family,
            "assumed": list(model.assumed) + list(model.physical.assumed if model.physical else ()),
            "sources": list(model.sources),
        },
        "role": switch.role,
        "os_version": switch.os_version,
        "os_release_floors": grammar_for(platform.name).states_release_floors,
        "fabric": fabric.name,
        "system_mtu": system_mtu,
        "traffic_classes": list(range(8)),
        "classification": classification,
        "queues": queues,
        "ecn": ecn,
        "pfc": pfc,
        "buffer": asdict(buffer),
        "buffer_overridden": sorted(k for k, v in switch.buffer.__dict__.items() if v is not None),
        "headroom_sized_by_os": design.sizes_headroom(model),
        "ports": ports,
        "breakouts": breakouts(ports, design, model),
        "lossless_ports": [port for port in ports if port["lossless"]],
        "headroom_profiles": headroom_profiles(ports),
        platform.name: specifics,
        "notes": _mtu_notes(platform.name, ports, design.limits.max_mtu)
        + _lane_notes(model, ports)
        + design.notes(context, specifics)
        + _ecn_notes(ecn),
    }


def _lane_notes(model: Any, ports: list[dict[str, Any]]) -> list[str]:
    """What each cage runs: the breakout mode and lanes the ports were placed in (models.yml physical)."""
    if model.physical is None or not ports:
        return []
    modes: dict[str, set[str]] = {}
    for port in ports:
        modes.setdefault(f"{port['breakout_mode']} ({port['lanes']} lanes a port)", set()).add(port["cage"])
    runs = "; ".join(f"{len(cages)} cage(s) in {mode}" for mode, cages in sorted(modes.items()))
    return [
        f"{model.title} has {model.physical.serdes_gbps}G SerDes, {model.physical.cage_lanes} lanes a "
        f"{model.physical.cage} cage: {runs}."
    ]


def _ecn_notes(ecn: dict[str, Any]) -> list[str]:
    note = ecn["device"].get("note")
    return [note] if note else []


def _mtu_notes(platform: str, ports: list[dict[str, Any]], max_mtu: int) -> list[str]:
    clamped = [port["name"] for port in ports if port["mtu_clamped"]]
    if not clamped:
        return []
    return [
        f"MTU clamped to the {platform} maximum {max_mtu} on {len(clamped)} port(s): {', '.join(clamped)}."
    ]
