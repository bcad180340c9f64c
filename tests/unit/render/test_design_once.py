"""Designing and checking many switches does each switch's work once (issue 33, 10,240 switches at
262,144 GPUs): the placement keys are plain tuples, so a port list already placed makes no
PortRequests; a platform's specifics are computed once a switch, the notes reading them; and a
SONiC switch looks each (speed, cable) up in its vendor table once."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.design import design_switch, ports
from gpunet.design.platforms import DESIGNS
from gpunet.hardware.catalog import SwitchModel
from gpunet.model import crosschecks
from gpunet.model.check import check_raw, load_fabric
from gpunet.model.fabric import Fabric
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton
from gpunet.plan.request import build_request
from gpunet.render.renderer import render_fabric
from tests.conftest import REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"


def _planned(platform: str) -> Any:
    topology = build_topology(build_request({"gpus": 128, "switch_radix": 32}), 2, True)
    return build_skeleton(topology, InventoryOptions(platform=platform)).raw()


def _prod() -> Fabric:
    return load_fabric(PROD, PROD / "vault-password.txt")


def _planned_fabric(platform: str) -> Fabric:
    fabric = check_raw(_planned(platform)).fabric
    assert fabric is not None
    return fabric


FABRICS = {
    "prod": _prod,
    "planned-sonic": lambda: _planned_fabric("sonic"),
    "planned-eos": lambda: _planned_fabric("eos"),
}


def _counting_requests(module: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made: list[int] = []
    original = module.PortRequest

    def counting(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "PortRequest", counting)
    return made


def _distinct_lists(fabric: Fabric) -> dict[tuple[Any, ...], int]:
    return {
        (switch.model, switch.platform, tuple((p.name, p.speed_gbps, p.lanes) for p in switch.ports)): len(
            switch.ports
        )
        for switch in fabric.switches.values()
    }


@pytest.mark.parametrize("name", FABRICS)
def test_design_makes_requests_only_for_lists_it_places(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = FABRICS[name]()
    monkeypatch.setattr(ports, "_PLACED", {})
    expected = render_fabric(fabric, jobs=1)
    made = _counting_requests(ports, monkeypatch)
    monkeypatch.setattr(ports, "_PLACED", {})
    assert render_fabric(fabric, jobs=1) == expected
    assert len(made) == sum(_distinct_lists(fabric).values())
    made.clear()
    assert render_fabric(fabric, jobs=1) == expected  # every list placed already
    assert made == []


@pytest.mark.parametrize("platform", ["sonic", "eos", "cumulus", "junos"])
def test_port_lanes_check_makes_requests_only_for_lists_it_places(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _planned(platform)
    made = _counting_requests(crosschecks, monkeypatch)
    result = check_raw(raw)
    assert result.ok and result.fabric is not None, result.problems
    assert 0 < len(made) <= sum(_distinct_lists(result.fabric).values())
    assert len(_distinct_lists(result.fabric)) < len(result.fabric.switches)  # lists repeat here


@pytest.mark.parametrize("name", FABRICS)
def test_specifics_computed_once_a_switch(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = FABRICS[name]()
    expected = {switch: design_switch(fabric, fabric.switches[switch]) for switch in fabric.switches}
    calls: dict[str, int] = {}
    for platform, design in DESIGNS.items():
        original = type(design).specifics

        def counting(self: Any, context: Any, original: Any = original, platform: str = platform) -> Any:
            calls[platform] = calls.get(platform, 0) + 1
            return original(self, context)

        monkeypatch.setattr(type(design), "specifics", counting)
    designed = {switch: design_switch(fabric, fabric.switches[switch]) for switch in fabric.switches}
    assert designed == expected
    per_platform: dict[str, int] = {}
    for switch in fabric.switches.values():
        per_platform[switch.platform] = per_platform.get(switch.platform, 0) + 1
    assert calls == per_platform


def test_sonic_looks_each_speed_and_cable_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = _planned_fabric("sonic")
    asked: list[tuple[int, int]] = []
    original = SwitchModel.pg_lookup

    def counting(self: SwitchModel, speed_gbps: int, cable_m: int) -> Any:
        asked.append((speed_gbps, cable_m))
        return original(self, speed_gbps, cable_m)

    monkeypatch.setattr(SwitchModel, "pg_lookup", counting)
    for switch in fabric.switches.values():
        asked.clear()
        structured = design_switch(fabric, switch)
        pairs = {(port.speed_gbps, port.cable_length_m) for port in switch.ports}
        # one look-up per distinct (speed, cable) for CABLE_LENGTH, one per BUFFER_PROFILE
        assert len(asked) == len(pairs) + len(structured["sonic"]["profiles"])
        assert len(switch.ports) > len(pairs)
