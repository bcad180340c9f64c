"""Issue 26, Junos channelized ports: the inventory names a broken-out cage's children as Junos does
(<type>-<fpc>/<pic>/<port>:<channel>, channel 0 first, xe- at 10G), the render channelizes the cage
(Junos OS: chassis ... port <n> channel-speed; Junos OS Evolved: number-of-sub-ports and speed on the
parent interface), and a port the model cannot build is an inventory error naming the names it could
have. Before this, a name with ':<channel>' was refused outright and no channelizing statement existed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpunet.cli import main
from gpunet.model.errors import InventoryInvalidError
from gpunet.plan.inventory import _port_namer
from gpunet.render import render_switch
from tests.conftest import REPO_ROOT
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric

EVO, JUNOS_OS = "QFX5240-64OD", "QFX5120-32C"


def _ports(*specs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"name": name, "speed_gbps": speed} for name, speed in specs]


def _config(model: str, ports: list[dict[str, Any]]) -> str:
    fabric = one_leaf_fabric("junos", ports, model=model)
    return render_switch(fabric, fabric.switches[LEAF]).config


def _lines(config: str, pattern: str) -> list[str]:
    return re.findall(pattern, config, re.MULTILINE)


# (model, ports, the channelizing lines expected, the interfaces that get `speed` of their own)
CHANNELIZED = [
    (
        EVO,
        _ports(("et-0/0/3:0", 400), ("et-0/0/3:1", 400), ("et-0/0/4", 400)),
        [
            "set interfaces et-0/0/3 number-of-sub-ports 2",
            "set interfaces et-0/0/3 speed 400g",
            "set interfaces et-0/0/4 speed 400g",
        ],
        {"et-0/0/3", "et-0/0/4"},
    ),
    (
        EVO,
        _ports(*((f"et-0/0/9:{k}", 100) for k in range(8))),
        [
            "set interfaces et-0/0/9 number-of-sub-ports 8",
            "set interfaces et-0/0/9 speed 100g",
        ],
        {"et-0/0/9"},
    ),
    (
        JUNOS_OS,
        _ports(
            ("et-0/0/3:0", 25), ("et-0/0/3:3", 25), ("et-0/0/4", 100), ("xe-0/0/5:2", 10), ("et-0/0/6:1", 50)
        ),
        [
            "set chassis fpc 0 pic 0 port 3 channel-speed 25g",
            "set chassis fpc 0 pic 0 port 4 speed 100g",
            "set chassis fpc 0 pic 0 port 5 channel-speed 10g",
            "set chassis fpc 0 pic 0 port 6 channel-speed 50g",
        ],
        set(),
    ),
]


@pytest.mark.parametrize(("model", "ports", "expected", "with_speed"), CHANNELIZED)
def test_a_channelized_cage_is_rendered_once_on_its_parent(
    model: str, ports: list[dict[str, Any]], expected: list[str], with_speed: set[str]
) -> None:
    config = _config(model, ports)
    rendered = _lines(config, r"^(set (?:chassis .*|interfaces \S+ (?:number-of-sub-ports|speed) .*))$")
    assert rendered == expected
    assert set(_lines(config, r"^set interfaces (\S+) speed ")) == with_speed
    # every child carries the port settings under its own channel name
    assert set(_lines(config, r"^set interfaces (\S+) mtu ")) == {p["name"] for p in ports}


# (model, ports, index of the port refused, field, the names the error must offer)
REFUSED = [
    # a 400G child beside the cage's unsplit name: one cage runs one mode
    (EVO, _ports(("et-0/0/3:0", 400), ("et-0/0/3", 400)), 1, "name", ["et-0/0/3:0, et-0/0/3:1", "et-0/0/3"]),
    # 2 x 400G has channels 0 and 1 only
    (EVO, _ports(("et-0/0/3:2", 400)), 0, "name", ["et-0/0/3:0, et-0/0/3:1"]),
    # 100G on Junos OS QFX5120 is unchannelized: no et-0/0/N:C at 100G
    (JUNOS_OS, _ports(("et-0/0/3:0", 100)), 0, "name", ["et-0/0/3"]),
    # 4 x 25G has four channels
    (JUNOS_OS, _ports(("et-0/0/3:4", 25)), 0, "name", ["et-0/0/3:0, et-0/0/3:1, et-0/0/3:2, et-0/0/3:3"]),
    # a 25G channel is et-, a 10G one xe- (Junos names the media type)
    (JUNOS_OS, _ports(("xe-0/0/3:0", 25)), 0, "name", ["et-0/0/3:0"]),
    (JUNOS_OS, _ports(("et-0/0/3:0", 10)), 0, "name", ["xe-0/0/3:0"]),
]


@pytest.mark.parametrize(("model", "ports", "index", "field", "offered"), REFUSED)
def test_a_port_the_model_cannot_build_is_an_inventory_error_naming_the_allowed_names(
    model: str, ports: list[dict[str, Any]], index: int, field: str, offered: list[str]
) -> None:
    with pytest.raises(InventoryInvalidError) as caught:
        one_leaf_fabric("junos", ports, model=model)
    (problem,) = [p for p in caught.value.problems if p.path == f"{LEAF}.gpunet_ports[{index}].{field}"]
    assert problem.got == ports[index]["name"]
    for names in offered:
        assert names in str(problem.expected), problem


def test_a_peer_on_a_junos_channel_keeps_the_channel() -> None:
    fabric = one_leaf_fabric("junos", _ports(("et-0/0/3:1", 400)), model=EVO)
    nic = fabric.hosts["gpu01"].nics[0]
    assert (nic.switch, nic.switch_port) == (LEAF, "et-0/0/3:1")
    assert str(fabric.switches[LEAF].ports[0].peer) == "gpu01:mlx5_0"


def test_inventory_check_exits_2_naming_the_port_and_its_names(tmp_path: Path, capsys) -> None:
    # prod's Junos leaf with its first port moved to a channel 2 x 400G does not have
    inventory = tmp_path / "prod"
    shutil.copytree(REPO_ROOT / "inventories" / "prod", inventory)
    for path in (inventory / "host_vars" / "leaf08.yml", inventory / "host_vars" / "gpu01.yml"):
        path.write_text(path.read_text().replace("et-0/0/0\n", "et-0/0/0:2\n"))
    assert main(["inventory", "check", "-i", str(inventory)]) == 2
    error = capsys.readouterr().err
    assert "leaf08.gpunet_ports[0].name: cannot be a 400G port" in error
    assert "got 'et-0/0/0:2'" in error and "et-0/0/0:0, et-0/0/0:1" in error


@pytest.mark.parametrize(("speed", "name"), [(400, "et-0/0/4"), (200, "et-0/0/4:0"), (100, "et-0/0/4")])
def test_the_planner_names_a_channel_where_the_cage_must_be_channelized(speed: int, name: str) -> None:
    # QFX5240 (the Junos example model) has 400G and 100G unchannelized, 200G only as 4 x 200G
    assert _port_namer("junos", speed)(5) == name
