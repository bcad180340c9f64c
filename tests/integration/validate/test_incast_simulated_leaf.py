"""The incast stage's switch side against a simulated SONiC leaf over real SSH (lab equipment): the
leaf runs the committed intended/prod config, incast-before and incast-after
are collected around the SIMULATED load of the prod plan's rail (gpunet.lab.incast_traffic,
written into the running simulator's state file, which it reads back), and what the collection
read moves as the policy says: ECN marks on the receiver's lossless queue, pauses from the
senders' ports on the lossless priority only (read from COUNTERS_DB) and no drops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect.switch_show import collect_switch_show
from gpunet.lab.incast_traffic import simulate_incast
from gpunet.lab.switchsim import SimOptions, SimulatorFleet
from gpunet.lab.switchsim.state import SwitchState
from gpunet.model.check import load_fabric
from gpunet.model.fabric import Switch
from gpunet.netdev.push import Connection
from gpunet.validate.incast import AFTER, BEFORE, incast_plan
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT

LEAF = "leaf07"


@pytest.mark.parametrize(
    ("policy", "change", "marked", "paused", "dropped"),
    # One policy here (5 s a simulator); the broken ones are unit tests: tests/unit/switchsim/
    # test_incast_traffic_model.py, tests/unit/validate/test_incast_checks_simulated.py.
    [("as rendered", None, True, {3}, False)],
)  # fmt: skip
def test_the_collected_counters_move_as_the_policy_says(
    tmp_path: Path, policy: str, change: Any, marked: bool, paused: set[int], dropped: bool
) -> None:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    plan = [r for r in incast_plan(fabric) if r.receiver_port.switch == LEAF]
    config = json.loads((REPO_ROOT / "intended" / "prod" / f"{LEAF}.cfg").read_text())
    if change:
        change(config)
    state_file = tmp_path / f"{LEAF}.state.json"
    SwitchState("sonic", LEAF, config=config, ports=sorted(config["PORT"])).save(state_file)
    with SimulatorFleet() as fleet:
        simulated = fleet.start("sonic", LEAF, options=SimOptions(password="pw"), state_file=state_file)
        known_hosts = tmp_path / "known_hosts"
        known_hosts.write_text(fleet.known_hosts_line(simulated) + "\n")
        switch = Switch(LEAF, "sonic", "leaf", "127.0.0.1", simulated.port, (), mgmt_user="admin")
        login = Connection("pw", host_key_checking=True, known_hosts=known_hosts)
        collect_switch_show(switch, login, BEFORE, tmp_path)
        said = simulate_incast(plan, {LEAF: state_file})
        collect_switch_show(switch, login, AFTER, tmp_path)
    assert len(said) == 1 and "SIMULATED" in said[0], said
    rail = plan[0]
    edge = rail.receiver_port.port
    senders = [p.port for p in rail.path if p.role == "sender-edge"]

    def read(phase: str, tool: str) -> Any:
        return parse(tool, (tmp_path / "switches" / LEAF / phase / f"{tool}.txt").read_text())

    def marks(phase: str) -> int:
        queues = read(phase, "sonic-show-queue-wredcounters")["queues"]
        return next(q["ecn_marked_pkts"] for q in queues if (q["port"], q["queue"]) == (edge, "UC3"))

    assert (marks(AFTER) - marks(BEFORE) > 0) is marked, policy
    pfc = read(AFTER, "sonic-show-pfc-counters")["tx"]
    assert {p for port in senders for p, n in enumerate(pfc[port]) if n} == paused, policy
    queues = read(AFTER, "sonic-show-queue-counters")["queues"]
    drops = next(q["drop_pkts"] for q in queues if (q["port"], q["queue"]) == (edge, "UC3"))
    assert (drops > 0) is dropped, policy
