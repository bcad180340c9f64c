"""The incast stage's switch side against a simulated SONiC leaf over real SSH (lab equipment): the
leaf runs the committed intended/prod config, incast-before and incast-after
are collected around the SIMULATED load of the prod plan's rail (gpunet.lab.incast_traffic,
written into the running simulator's state file, which it reads back), and what the collection
read moves as the policy says: ECN marks on the receiver's lossless queue, pauses from the
senders' ports on the lossless priority only (read from COUNTERS_DB) and no drops. A simulated
Cumulus leaf's per-port NVUE captures are collected the same way, around counters set on it
directly and around the traffic model's load under its intended/prod `nv set` lines."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect.switch_show import collect_switch_show
from gpunet.lab.incast_traffic import simulate_incast
from gpunet.lab.switchsim import SimOptions, SimulatorFleet
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimulatedSwitch
from gpunet.model.check import load_fabric
from gpunet.model.fabric import Switch
from gpunet.netdev.push import Connection
from gpunet.validate.incast import AFTER, BEFORE, PLAN_FILE, incast_plan, plan_document
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT

LEAF = "leaf07"


@contextmanager
def simulated_leaf(
    folder: Path, platform: str, name: str, **start: Any
) -> Iterator[tuple[SimulatorFleet, SimulatedSwitch, Callable[[str], None]]]:
    """One simulated leaf over real SSH (host key checked), and collect(phase): the incast phase's
    switch collection run on it into `folder`, as verify_switch runs it."""
    with SimulatorFleet() as fleet:
        simulated = fleet.start(platform, name, options=SimOptions(password="pw"), **start)
        known_hosts = folder / "known_hosts"
        known_hosts.write_text(fleet.known_hosts_line(simulated) + "\n")
        switch = Switch(name, platform, "leaf", "127.0.0.1", simulated.port, (), mgmt_user="admin")
        login = Connection("pw", host_key_checking=True, known_hosts=known_hosts)
        yield fleet, simulated, lambda phase: collect_switch_show(switch, login, phase, folder)


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
    with simulated_leaf(tmp_path, "sonic", LEAF, state_file=state_file) as (_, _, collect):
        collect(BEFORE)
        said = simulate_incast(plan, {LEAF: state_file})
        collect(AFTER)
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


CUMULUS_LEAF = "leaf05"


def test_a_cumulus_leafs_path_ports_are_collected_per_port_as_nvue_json(tmp_path: Path) -> None:
    """The incast phases send each NVUE per-port command for every port of the Cumulus leaf on the
    plan's paths (and for no other port); what the collection read moves as the simulator's counters
    did: ECN marks of the receiver's port, pauses on the senders' ports on the lossless priority only,
    and the drops put on the receiver's lossless queue."""
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    plan = incast_plan(fabric)
    _write_plan(tmp_path, plan)
    path = [p for rail in plan for p in rail.path if p.switch == CUMULUS_LEAF]
    edge = next(p.port for p in path if p.role == "receiver-edge")
    senders = sorted({p.port for p in path if p.role == "sender-edge"})
    ports = sorted({p.port for p in path} | {"swp60"})  # swp60: on no path, never asked for
    with simulated_leaf(tmp_path, "cumulus", CUMULUS_LEAF, ports=ports) as (fleet, simulated, collect):
        collect(BEFORE)

        def load(state: SwitchState) -> None:
            state.counters[edge]["ecn_marked"] = [0, 0, 0, 52_113, 0, 0, 0, 0]
            state.counters[edge]["tx_drop"] = [0, 0, 0, 17, 0, 0, 0, 0]
            for port in senders:
                state.counters[port]["tx_pfc"] = [0, 0, 0, 1_520, 0, 0, 0, 0]

        fleet.call(load, simulated.state)
        collect(AFTER)

    def read(phase: str, tool: str) -> Any:
        return parse(tool, (tmp_path / "switches" / CUMULUS_LEAF / phase / f"{tool}.txt").read_text())

    roce = {phase: read(phase, "cumulus-nv-show-interface-roce-counters") for phase in (BEFORE, AFTER)}
    assert set(roce[AFTER]["interfaces"]) == {p.port for p in path} and roce[AFTER]["refused"] == {}
    assert (
        roce[AFTER]["interfaces"][edge]["ecn_marked"] - roce[BEFORE]["interfaces"][edge]["ecn_marked"]
        == 52_113
    )
    pfc = read(AFTER, "cumulus-nv-show-interface-pfc-stats")["interfaces"]
    paused = {
        (port, prio)
        for port, entry in pfc.items()
        for prio, c in entry["priorities"].items()
        if c["tx_pause"]
    }
    assert paused == {(port, 3) for port in senders}
    queues = read(AFTER, "cumulus-nv-show-interface-egress-queue-stats")["interfaces"]
    assert queues[edge]["queues"][3]["tx-uc-buffer-discards"] == 17


def _write_plan(folder: Path, plan: list) -> None:
    (folder / PLAN_FILE).parent.mkdir(parents=True, exist_ok=True)
    (folder / PLAN_FILE).write_text(json.dumps(plan_document(plan)))


def test_a_simulated_incast_on_a_cumulus_leaf_moves_what_the_collection_reads(tmp_path: Path) -> None:
    """The traffic model on the Cumulus leaf running the committed intended/prod lines, written into
    the running simulator's state file: the receiver's port marks its RoCE traffic, the senders'
    ports pause on priority 3 only, the lossless class drops nothing."""
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    plan = [r for r in incast_plan(fabric) if r.receiver_port.switch == CUMULUS_LEAF]
    _write_plan(tmp_path, plan)
    lines = (REPO_ROOT / "intended" / "prod" / f"{CUMULUS_LEAF}.cfg").read_text().splitlines()
    path = [p for rail in plan for p in rail.path if p.switch == CUMULUS_LEAF]
    state_file = tmp_path / f"{CUMULUS_LEAF}.state.json"
    SwitchState(
        "cumulus", CUMULUS_LEAF, config=[x for x in lines if x], ports=sorted({p.port for p in path})
    ).save(state_file)
    with simulated_leaf(tmp_path, "cumulus", CUMULUS_LEAF, state_file=state_file) as (_, _, collect):
        collect(BEFORE)
        said = simulate_incast(plan, {CUMULUS_LEAF: state_file})
        collect(AFTER)
    assert len(said) == 1 and "SIMULATED" in said[0], said
    edge = plan[0].receiver_port.port
    senders = {p.port for p in plan[0].path if p.role == "sender-edge"}

    def read(phase: str, tool: str) -> Any:
        return parse(tool, (tmp_path / "switches" / CUMULUS_LEAF / phase / f"{tool}.txt").read_text())[
            "interfaces"
        ]

    tool = "cumulus-nv-show-interface-roce-counters"
    assert read(AFTER, tool)[edge]["ecn_marked"] - read(BEFORE, tool)[edge]["ecn_marked"] > 0
    pfc = read(AFTER, "cumulus-nv-show-interface-pfc-stats")
    assert {(port, p) for port in senders for p, c in pfc[port]["priorities"].items() if c["tx_pause"]} == {
        (port, 3) for port in senders
    }
    queues = read(AFTER, "cumulus-nv-show-interface-egress-queue-stats")[edge]["queues"]
    assert queues[3]["tx-frames"] > 0 and queues[3]["tx-uc-buffer-discards"] == 0
