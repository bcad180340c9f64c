"""The simulator's incast traffic model (a simulation, lab equipment) on a simulated Cumulus leaf:
its counters move as the `nv set` lines it holds say. With the committed intended/prod leaf
config the lossless traffic class marks, pauses leave on its switch priority only and nothing
drops; with ECN off, or a minimum threshold above the backlog, nothing marks; with PFC on another
priority (or none) nothing pauses and the lossless class drops; with DSCP 26 mapped elsewhere the
load lands in another class. Read back through the simulator's NVUE printers and gpunet's parsers,
as the incast collection sees them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from gpunet.collect.switch_show import PORT_COMMANDS, port_capture
from gpunet.lab.switchsim.personalities import cumulus_incast
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import Load, apply_load, rail_loads
from gpunet.model.check import load_fabric
from gpunet.validate.incast import incast_plan
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT

INTENDED = REPO_ROOT / "intended" / "prod"
TOOLS = PORT_COMMANDS["cumulus"]


@pytest.fixture(scope="module")
def cumulus_rails() -> list[Any]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return [r for r in incast_plan(fabric) if fabric.switches[r.receiver_port.switch].platform == "cumulus"]


def _leaf(name: str, change: Callable[[list[str]], list[str]], ports: list[str]) -> SwitchState:
    lines = [line for line in (INTENDED / f"{name}.cfg").read_text().splitlines() if line.strip()]
    return SwitchState(platform="cumulus", hostname=name, config=change(lines), ports=ports)


def _unchanged(lines: list[str]) -> list[str]:
    return lines


def _sub(pattern: str, replacement: str) -> Callable[[list[str]], list[str]]:
    def change(lines: list[str]) -> list[str]:
        changed = [re.sub(pattern, replacement, line) for line in lines]
        assert changed != lines, f"{pattern} matches no line of the rendered config"
        return [line for line in changed if line]

    return change


ECN_OFF = _sub(r"(congestion-control default-global traffic-class 3 ecn) enable$", r"\1 disable")
HIGH_THRESHOLD = _sub(r"(traffic-class 3 min-threshold) \d+$", r"\1 999999999999")
PFC_ON_4 = _sub(r"^(nv set qos pfc \S+ switch-priority) 3$", r"\1 4")
NO_PFC = _sub(r"^nv set qos pfc \S+ switch-priority 3$", "")
DSCP_26_ELSEWHERE = _sub(r"(dscp 26 switch-priority) 3$", r"\1 0")


def _seen(state: SwitchState, load: Load) -> dict[str, Any]:
    """What the incast collection reads after the load: the egress port's RoCE ECN marks and its
    drops per traffic class, the pauses the ingress ports sent per switch priority."""

    def read(tool: str, ports: tuple[str, ...]) -> dict[str, Any]:
        printer = {
            "cumulus-nv-show-interface-pfc-stats": cumulus_incast.pfc_stats,
            "cumulus-nv-show-interface-egress-queue-stats": cumulus_incast.egress_queue_stats,
            "cumulus-nv-show-interface-roce-counters": cumulus_incast.roce_counters,
        }[tool]
        return parse(tool, port_capture(TOOLS[tool], {p: printer(state, p) for p in ports}))["interfaces"]

    roce = read("cumulus-nv-show-interface-roce-counters", (load.egress,))[load.egress]
    queues = read("cumulus-nv-show-interface-egress-queue-stats", (load.egress,))[load.egress]["queues"]
    pfc = read("cumulus-nv-show-interface-pfc-stats", load.ingress)
    paused = {p for port in load.ingress for p, c in pfc[port]["priorities"].items() if c["tx_pause"]}
    drops = {tc for tc, row in queues.items() if row["tx-uc-buffer-discards"]}
    return {"marks": roce["ecn_marked"], "paused": paused, "dropped": drops}


# (policy, the change to the rendered lines, RoCE marks > 0, priorities paused, classes dropping)
POLICIES = [
    ("as rendered", _unchanged, True, {3}, set()),
    ("ECN off on TC 3", ECN_OFF, False, {3}, set()),
    ("min threshold above the backlog", HIGH_THRESHOLD, False, {3}, set()),
    ("PFC on priority 4", PFC_ON_4, True, set(), {3}),
    ("no PFC priority", NO_PFC, True, set(), {3}),
    ("DSCP 26 on switch priority 0", DSCP_26_ELSEWHERE, False, set(), {0}),
]


@pytest.mark.parametrize(
    ("policy", "change", "marks", "paused", "dropped"), POLICIES, ids=[p[0] for p in POLICIES]
)
def test_the_counters_follow_the_rendered_nvue_policy(
    cumulus_rails: list[Any], policy: str, change: Callable, marks: bool, paused: set, dropped: set
) -> None:
    assert cumulus_rails, "prod has a rail whose receiver sits behind a Cumulus leaf"
    for rail in cumulus_rails:
        for switch, load in rail_loads(rail).items():
            state = _leaf(switch, change, sorted({load.egress, *load.ingress}))
            apply_load(state, load)
            seen = _seen(state, load)
            assert (seen["marks"] > 0) is marks, (policy, seen)
            assert seen["paused"] == paused, (policy, seen)
            assert seen["dropped"] == dropped, (policy, seen)


def test_a_stalled_receiver_pauses_the_egress_port_on_its_priority(cumulus_rails: list[Any]) -> None:
    (switch, load), *_ = rail_loads(cumulus_rails[0]).items()
    ports = sorted({load.egress, *load.ingress})
    drained, stalled = _leaf(switch, _unchanged, ports), _leaf(switch, _unchanged, ports)
    apply_load(drained, load)
    stall = Load(load.egress, load.ingress, load.dscp, load.offered_gbps, load.seconds, load.seconds / 2)
    apply_load(stalled, stall)
    rx = stalled.counters[load.egress]["rx_pfc"]
    assert [p for p, n in enumerate(rx) if n] == [3]
    sent = [s.counters[load.egress]["tx_queue"][3] for s in (drained, stalled)]
    assert 0 < sent[1] < sent[0]  # the paused class sent nothing while paused


def test_the_model_reads_the_interface_profiles_and_speed() -> None:
    lines = [
        "nv set qos mapping m1 dscp 10 switch-priority 5",
        "nv set interface swp1 qos mapping profile m1",
        "nv set qos egress-queue-mapping default-global switch-priority 5 traffic-class 2",
        "nv set qos congestion-control cc1 traffic-class 2 ecn enable",
        "nv set qos congestion-control cc1 traffic-class 2 min-threshold 1000",
        "nv set interface swp2 qos congestion-control profile cc1",
        "nv set qos pfc p5 switch-priority 5",
        "nv set qos pfc p5 tx disable",
        "nv set interface swp1 qos pfc profile p5",
        "nv set interface swp2 link speed 100G",
    ]
    state = SwitchState(platform="cumulus", hostname="x", config=lines, ports=["swp1", "swp2"])
    outcome = apply_load(state, Load("swp2", ("swp1",), 10, 200.0, 1.0))
    # priority 5 -> TC 2 (mapping profile m1, default-global egress map), drained at 100G, marked
    # by cc1 over 1000 bytes; p5's tx is disabled, so swp1 sends no pause and the backlog drops.
    assert (outcome.tc, outcome.queue, outcome.rate_gbps) == (5, 2, 100.0)
    assert outcome.marked > 0 and outcome.paused_ports == () and outcome.dropped > 0
    assert state.counters["swp2"]["ecn_marked"][2] == outcome.marked
    assert state.counters["swp2"]["tx_drop"][2] == outcome.dropped


def test_an_unknown_port_is_refused() -> None:
    state = SwitchState(platform="cumulus", hostname="x", config=[], ports=["swp1"])
    with pytest.raises(ValueError, match="no port swp9"):
        apply_load(state, Load("swp9", (), 26, 800.0, 1.0))


def test_the_lab_driver_simulates_a_cumulus_leaf(cumulus_rails: list[Any], tmp_path) -> None:
    from gpunet.lab.incast_traffic import simulate_incast

    rail = cumulus_rails[0]
    (switch, load), *_ = rail_loads(rail).items()
    _leaf(switch, _unchanged, sorted({load.egress, *load.ingress})).save(tmp_path / "leaf.json")
    said = simulate_incast([rail], {switch: tmp_path / "leaf.json"})
    assert "SIMULATED" in said[0], said
    marked = SwitchState.load(tmp_path / "leaf.json").counters[load.egress]["ecn_marked"][3]
    assert marked > 0
    assert json.loads((tmp_path / "leaf.json").read_text())["platform"] == "cumulus"
