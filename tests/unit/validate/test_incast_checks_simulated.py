"""The incast checks on the switch captures of the simulator's incast model (a simulation, lab
equipment): the prod plan's artifacts of a good incast (test_incast_checks), with each SONiC
leaf's captures replaced by what the simulated SONiC prints before and after the modelled load
under its rendered CONFIG_DB (intended/prod), as rendered or broken. The switch side of the stage
must pass as rendered and fail at the receiver's port, naming the counter, where the policy is
broken: ECN off gives no marks, PFC on the wrong priority drops on the lossless queue; and a
receiver that stops draining past the PFC watchdog's detection time is a storm there."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpunet.lab.switchsim.personalities.showpfc import sonic_pfc_counters, sonic_queue_counters
from gpunet.lab.switchsim.personalities.sonic_incast import sonic_pfcwd_stats, sonic_wredcounters
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import apply_load, rail_loads
from gpunet.model.check import load_fabric
from gpunet.validate.incast import AFTER, BEFORE, RailIncast, incast_plan
from gpunet.validate.manifest import Manifest, build_manifest
from gpunet.validate.results import Status
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_incast_checks import Incast, _artifacts, _results

INTENDED = REPO_ROOT / "intended" / "prod"


@pytest.fixture(scope="module")
def prod_plan() -> tuple[Manifest, list[RailIncast]]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return build_manifest(fabric), incast_plan(fabric)


SWITCH_SIDE = ("incast_ecn_marks", "incast_pfc_priority", "incast_lossless_drops", "incast_pfc_watchdog")


def _captures(state: SwitchState) -> dict[str, str]:
    return {
        "sonic-show-queue-wredcounters": sonic_wredcounters(state),
        "sonic-show-pfcwd-stats": sonic_pfcwd_stats(state) + "\n",
        "sonic-show-pfc-counters": sonic_pfc_counters(state) + "\n",
        "sonic-show-queue-counters": sonic_queue_counters(state),
    }


def _simulate(
    folder: Path, plan: list[Any], leaf: str, change: Callable[[dict[str, Any]], None], stall: float = 0.0
) -> None:
    config = json.loads((INTENDED / f"{leaf}.cfg").read_text())
    change(config)
    state = SwitchState(
        platform="sonic", hostname=leaf, config=copy.deepcopy(config), ports=sorted(config["PORT"])
    )
    for port in state.ports:
        state.counters[port]["tx_queue"] = [1_200 if q == 3 else 12 for q in range(8)]  # the pair tests'
    phases = {BEFORE: _captures(state)}
    for rail in plan:
        for switch, load in rail_loads(rail, stall_seconds=stall).items():
            if switch == leaf:
                apply_load(state, load)
    phases[AFTER] = _captures(state)
    for phase, captures in phases.items():
        for tool, text in captures.items():
            (folder / "switches" / leaf / phase / f"{tool}.txt").write_text(text)


def _ecn_off(config: dict[str, Any]) -> None:
    for profile in config["WRED_PROFILE"].values():
        profile["ecn"] = "ecn_none"


def _pfc_on_4(config: dict[str, Any]) -> None:
    for entry in config["PORT_QOS_MAP"].values():
        if "pfc_enable" in entry:
            entry["pfc_enable"] = "4"


@pytest.mark.parametrize(
    ("policy", "change", "stall", "failing"),
    [
        ("as rendered", lambda config: None, 0.0, set()),
        ("ECN off", _ecn_off, 0.0, {"incast_ecn_marks"}),
        ("PFC on priority 4", _pfc_on_4, 0.0, {"incast_lossless_drops"}),
        # The receiver stops draining for 5 s of the 10 s run, past PFC_WD's 200 ms detection time.
        ("as rendered, the receiver stuck", lambda config: None, 5.0, {"incast_pfc_watchdog"}),
    ],
)
def test_the_switch_side_follows_the_rendered_policy(
    prod_plan: tuple,
    tmp_path: Path,
    policy: str,
    change: Callable,
    stall: float,
    failing: set[str],
) -> None:
    manifest, plan = prod_plan
    folder = _artifacts(tmp_path / "artifacts", manifest, plan, Incast())
    leaves = sorted(
        {
            r.receiver_port.switch
            for r in plan
            if manifest.switches[r.receiver_port.switch].platform == "sonic"
        }
    )
    assert leaves  # leaf06 and leaf07
    for leaf in leaves:
        _simulate(folder, plan, leaf, change, stall)
    edges = {r.receiver_port.target for r in plan if r.receiver_port.switch in leaves}
    on_leaves = [r for r in _results(folder) if r.check in SWITCH_SIDE and r.target.split(":")[0] in leaves]
    assert on_leaves
    failed = {(r.check, r.target) for r in on_leaves if r.status == Status.FAIL}
    assert failed == {(check, edge) for check in failing for edge in edges}, policy
    assert all(r.status == Status.PASS for r in on_leaves if (r.check, r.target) not in failed), [
        (r.check, r.target, r.status, r.message) for r in on_leaves if r.status != Status.PASS
    ]
