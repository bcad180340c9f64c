"""Printing many switches does per-fabric work once: each distinct port list is placed once (the
switches of a tier ask the same), and the templates are not checked on disk again per switch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpunet.design import ports
from gpunet.model.check import load_fabric
from gpunet.render.renderer import render_fabric
from tests.conftest import FIXTURES_DIR, REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"
SOURCES = [REPO_ROOT / "inventories" / "lab", PROD, FIXTURES_DIR / "inventories" / "valid" / "minimal"]


def _source(path: Path) -> Path:
    return path / "hosts.yml" if (path / "hosts.yml").is_file() else path


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_each_distinct_port_list_is_placed_once(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = load_fabric(_source(source), PROD / "vault-password.txt")
    expected_text = render_fabric(fabric, jobs=1)
    asked = []
    original = ports.place_ports

    def counting(physical: object, platform: str, requests: object) -> object:
        asked.append((id(physical), platform, requests))
        return original(physical, platform, requests)  # type: ignore[arg-type]

    monkeypatch.setattr(ports, "place_ports", counting)
    monkeypatch.setattr(ports, "_PLACED", {}, raising=False)
    rendered = render_fabric(fabric, jobs=1)
    assert rendered == expected_text
    distinct = {
        (switch.model, switch.platform, tuple((p.name, p.speed_gbps, p.lanes) for p in switch.ports))
        for switch in fabric.switches.values()
    }
    assert len(asked) == len(distinct) <= len(fabric.switches)
    assert len(set(map(repr, asked))) == len(asked)  # never the same request twice


def test_templates_are_not_checked_on_disk_per_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = load_fabric(PROD, PROD / "vault-password.txt")
    render_fabric(fabric, jobs=1)  # every template compiled once
    looked_up = []
    original = os.path.getmtime

    def counting(path: str) -> float:
        if str(path).endswith(".j2"):
            looked_up.append(path)
        return original(path)

    monkeypatch.setattr(os.path, "getmtime", counting)
    render_fabric(fabric, jobs=1)
    assert looked_up == []
