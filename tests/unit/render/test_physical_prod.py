"""Issue 26, physical layer: what `gpunet render -i inventories/prod` produces for lanes and breakouts.
Each check fails on the intended/prod of 7f59434 (before the fix): 400g-8 on Tomahawk 5, 400G as the
speed of a whole SN5600/Z9864F cage, no Junos OS chassis port speed."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from gpunet.hardware import get_model
from gpunet.model.check import load_fabric
from gpunet.render import RenderedSwitch, render_fabric, render_switch
from tests.conftest import REPO_ROOT
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric


@cache
def _prod() -> dict[str, RenderedSwitch]:
    return render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))


@pytest.mark.parametrize(
    ("switch", "speed"), [("leaf03", "400g-4"), ("leaf04", "400g-4"), ("spine01", "400g-8")]
)
def test_eos_400g_lanes_follow_the_serdes(switch: str, speed: str) -> None:
    # Tomahawk 5 (7060X6-64PE): 100G lanes, 400G on 4; Jericho2 (7800R3): 50G lanes, 400G on 8.
    speeds = set(re.findall(r"^   speed (\S+)$", _prod()[switch].config, re.MULTILINE))
    assert speeds == {speed}


def test_cumulus_sn5600_400g_ports_are_children_of_a_2x_breakout() -> None:
    config = _prod()["leaf05"].config
    split = set(re.findall(r"^nv set interface swp(\d+) link breakout 2x$", config, re.MULTILINE))
    speeds = re.findall(r"^nv set interface (swp\S+) link speed (\S+)$", config, re.MULTILINE)
    assert speeds and all(speed == "400G" for _, speed in speeds)
    for name, _ in speeds:
        match = re.fullmatch(r"swp(\d+)s([01])", name)
        assert match is not None, f"{name} at 400G is not a child of a 2x breakout"
        assert match.group(1) in split, f"{name}: swp{match.group(1)} has no `link breakout 2x`"


@pytest.mark.parametrize("switch", ["leaf06", "leaf07"])
def test_sonic_400g_ports_run_in_a_platform_json_mode_that_has_400g(switch: str) -> None:
    rendered = _prod()[switch]
    document = json.loads(rendered.config)
    model = get_model({"leaf06": "SN5600", "leaf07": "Z9864F"}[switch]).physical
    assert model is not None
    modes = {mode.name: mode for mode in model.platforms["sonic"].modes}
    breakout = document["BREAKOUT_CFG"]
    for name, fields in document["PORT"].items():
        number = int(name.removeprefix("Ethernet"))
        parent = f"Ethernet{number - number % model.cage_lanes}"
        mode = modes[breakout[parent]["brkout_mode"]]
        assert int(fields["speed"]) // 1000 in mode.speeds_gbps
        # 400G from a ConnectX-7 OSFP is 4 x 100G lanes: half a cage, not the whole 8-lane port
        assert mode.lanes_per_child * model.serdes_gbps == int(fields["speed"]) // 1000, (name, mode.name)


def test_junos_os_sets_port_speed_under_chassis() -> None:
    fabric = one_leaf_fabric(
        "junos",
        [
            {"name": "et-0/0/3", "speed_gbps": 40, "cable_length_m": 3},
            {"name": "et-0/0/4", "speed_gbps": 100},
        ],
        model="QFX5120-32C",
    )
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert re.findall(r"^set chassis fpc 0 pic 0 port (\d+) speed (\S+)$", config, re.MULTILINE) == [
        ("3", "40g"),
        ("4", "100g"),
    ]
    assert not re.search(r"^set interfaces \S+ speed", config, re.MULTILINE)


def test_nxos_split_ports_get_their_breakout_map() -> None:
    fabric = one_leaf_fabric(
        "nxos",
        [
            {"name": "Ethernet1/1", "speed_gbps": 400},
            {"name": "Ethernet1/2/1", "speed_gbps": 100},
            {"name": "Ethernet1/2/4", "speed_gbps": 100},
            {"name": "Ethernet1/3/2", "speed_gbps": 200},
        ],
    )
    rendered = render_switch(fabric, fabric.switches[LEAF])
    maps = re.findall(
        r"^interface breakout module (\d+) port (\d+) map (\S+)$", rendered.config, re.MULTILINE
    )
    assert maps == [("1", "2", "100g-4x"), ("1", "3", "200g-2x")]
    assert "maintenance window" in rendered.summary
