"""Designing and checking many switches does each switch's work once (issue 33, 10,240 switches at
262,144 GPUs): the placement keys are plain tuples, so a port list already placed makes no
PortRequests."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.design import ports
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
