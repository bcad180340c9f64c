"""The simulator's incast traffic model (a simulation, lab equipment) moves a simulated SONiC leaf's
counters as its rendered CONFIG_DB says: with the committed intended/prod leaf config the lossless
queue marks, pauses leave on its priority only and nothing drops; with ECN off nothing marks; with
PFC on another priority nothing pauses and the lossless queue drops. Read back through the
simulator's show printers and gpunet's parsers, as a collection would see them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from gpunet.lab.switchsim.personalities.showpfc import sonic_pfc_counters
from gpunet.lab.switchsim.personalities.sonic_incast import sonic_wredcounters
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import Load, apply_load, rail_loads
from gpunet.model.check import load_fabric
from gpunet.validate.incast import incast_plan
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT

INTENDED = REPO_ROOT / "intended" / "prod"


@pytest.fixture(scope="module")
def sonic_rails() -> list[Any]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return [r for r in incast_plan(fabric) if fabric.switches[r.receiver_port.switch].platform == "sonic"]


def _leaf(name: str, change: Callable[[dict[str, Any]], None]) -> SwitchState:
    config = json.loads((INTENDED / f"{name}.cfg").read_text())
    change(config)
    return SwitchState(
        platform="sonic", hostname=name, config=copy.deepcopy(config), ports=sorted(config["PORT"])
    )


def _ecn_off(config: dict[str, Any]) -> None:
    for profile in config["WRED_PROFILE"].values():
        profile["ecn"] = "ecn_none"


def _pfc_on(priority: str) -> Callable[[dict[str, Any]], None]:
    def change(config: dict[str, Any]) -> None:
        for entry in config["PORT_QOS_MAP"].values():
            if "pfc_enable" in entry:
                entry["pfc_enable"] = priority

    return change


def _unchanged(config: dict[str, Any]) -> None:
    pass


def _seen(state: SwitchState, load: Load) -> dict[str, Any]:
    """What a collection after the load reads: marks per queue of the egress port, pauses sent by priority."""
    wred = parse("sonic-show-queue-wredcounters", sonic_wredcounters(state))["queues"]
    marks = {q["queue"]: q["ecn_marked_pkts"] for q in wred if q["port"] == load.egress}
    pfc = parse("sonic-show-pfc-counters", sonic_pfc_counters(state))
    paused = {p for port in load.ingress for p, n in enumerate(pfc["tx"][port]) if n}
    return {"marks": marks, "paused": paused}


@pytest.mark.parametrize(
    ("policy", "change", "marks", "paused", "drops"),
    [
        ("as rendered", _unchanged, True, {3}, False),
        ("ECN off", _ecn_off, False, {3}, False),
        ("PFC on priority 4", _pfc_on("4"), True, set(), True),
        ("no PFC", _pfc_on(""), True, set(), True),
    ],
)
def test_the_counters_follow_the_rendered_policy(
    sonic_rails: list[Any], policy: str, change: Callable, marks: bool, paused: set, drops: bool
) -> None:
    assert sonic_rails  # leaf06 and leaf07 of prod are SONiC
    for rail in sonic_rails:
        (switch, load), *_ = rail_loads(rail).items()
        state = _leaf(switch, change)
        outcome = apply_load(state, load)
        assert (outcome.tc, outcome.queue) == (3, 3), policy  # DSCP 26 -> TC 3 -> queue 3 as rendered
        seen = _seen(state, load)
        assert (seen["marks"]["UC3"] > 0) is marks, policy
        assert not any(n for q, n in seen["marks"].items() if q != "UC3")  # only the lossless queue
        assert seen["paused"] == paused, policy
        dropped = outcome.dropped
        assert (dropped > 0) is drops, policy
        assert state.counters[load.egress]["tx_queue"][3] > 0


def test_a_load_within_the_line_rate_marks_pauses_and_drops_nothing(sonic_rails: list[Any]) -> None:
    (switch, load), *_ = rail_loads(sonic_rails[0]).items()
    state = _leaf(switch, _unchanged)
    outcome = apply_load(state, Load(load.egress, load.ingress, load.dscp, 300.0, load.seconds))
    assert (outcome.marked, outcome.paused_ports, outcome.dropped) == (0, (), 0)


def test_a_load_in_another_class_leaves_the_lossless_queue_alone(sonic_rails: list[Any]) -> None:
    (switch, load), *_ = rail_loads(sonic_rails[0]).items()
    state = _leaf(switch, _unchanged)
    outcome = apply_load(state, Load(load.egress, load.ingress, 0, load.offered_gbps, load.seconds))
    assert (outcome.tc, outcome.marked, outcome.paused_ports) == (0, 0, ())
    assert outcome.dropped > 0  # best effort under incast: no PFC, no ECN profile on queue 0


def test_another_os_or_an_unknown_port_is_refused(sonic_rails: list[Any]) -> None:
    (switch, load), *_ = rail_loads(sonic_rails[0]).items()
    with pytest.raises(ValueError, match="reads SONiC"):
        apply_load(SwitchState(platform="eos", hostname="x", ports=[load.egress]), load)
    with pytest.raises(ValueError, match="no port Ethernet999"):
        apply_load(_leaf(switch, _unchanged), Load("Ethernet999", (), 26, 800.0, 10.0))


def test_the_lab_driver_says_which_rails_it_could_not_simulate(sonic_rails: list[Any], tmp_path) -> None:
    from gpunet.lab.incast_traffic import simulate_incast

    first, second = sonic_rails[:2]
    leaf, other = first.receiver_port.switch, second.receiver_port.switch
    _leaf(leaf, _unchanged).save(tmp_path / "sonic.json")
    SwitchState(platform="eos", hostname=other, ports=[second.receiver_port.port]).save(tmp_path / "eos.json")
    said = simulate_incast(
        [first, second, first], {leaf: tmp_path / "sonic.json", other: tmp_path / "eos.json"}
    )
    assert (
        "SIMULATED" in said[0]
        and "not simulated (the traffic model reads SONiC and Cumulus only, not eos)" in said[1]
    )
    marked = SwitchState.load(tmp_path / "sonic.json").counters[first.receiver_port.port]["ecn_marked"][3]
    assert marked > 0 and "SIMULATED" in said[2]  # a second run adds to the file's counters
    assert simulate_incast([first], {})[0].endswith("not simulated (no running simulator state)")


def _no_watchdog(config: dict[str, Any]) -> None:
    config["PFC_WD"] = {"GLOBAL": config["PFC_WD"]["GLOBAL"]}


def _forward(config: dict[str, Any]) -> None:
    for key, entry in config["PFC_WD"].items():
        if key != "GLOBAL":
            entry["action"] = "forward"


# (scenario, the receiver's stall in seconds of the 10 s run, policy change, what `show pfcwd stats`
# shows for the egress queue: storms detected, restored, status; watchdog drops seen)
STORMS = [
    ("the receiver drains", 0.0, _unchanged, None, False),
    ("a pause shorter than detection_time (200 ms)", 0.15, _unchanged, None, False),
    ("stuck 5 s, then drains past restoration_time", 5.0, _unchanged, (1, 1, "operational"), True),
    ("stuck for the whole run", 10.0, _unchanged, (1, 0, "stormed"), True),
    ("stuck 5 s, the port not in PFC_WD", 5.0, _no_watchdog, None, False),
    ("stuck 5 s, PFC on priority 4: pauses ignored", 5.0, _pfc_on("4"), None, False),
    ("stuck 5 s, watchdog action forward", 5.0, _forward, (1, 1, "operational"), False),
]


@pytest.mark.parametrize(
    ("scenario", "stall", "change", "shown", "drops"), STORMS, ids=[s[0] for s in STORMS]
)
def test_a_receiver_that_stops_draining_storms_past_the_detection_time(
    sonic_rails: list[Any], scenario: str, stall: float, change: Callable, shown: tuple | None, drops: bool
) -> None:
    from gpunet.lab.switchsim.personalities.sonic_incast import sonic_pfcwd_stats

    (switch, load), *_ = rail_loads(sonic_rails[0], stall_seconds=stall).items()
    assert load.seconds == 10.0  # the plan's default run
    state = _leaf(switch, change)
    outcome = apply_load(state, load)
    rows = parse("sonic-show-pfcwd-stats", sonic_pfcwd_stats(state))["queues"]
    row = next((r for r in rows if (r["port"], r["queue"]) == (load.egress, 3)), None)
    seen = None if row is None or not row["storm_detected"] else (
        row["storm_detected"], row["storm_restored"], row["status"]
    )  # fmt: skip
    assert seen == shown, scenario
    assert outcome.storm is (shown is not None), scenario
    assert (outcome.watchdog_dropped > 0) is drops, scenario
    received = parse("sonic-show-pfc-counters", sonic_pfc_counters(state))["rx"][load.egress]
    assert (received[3] > 0) is (stall > 0), scenario  # the receiver's pauses, counted where they arrive
