"""The incast stage on a Cumulus Linux (NVUE) switch: the per-port commands collected for the plan's
path ports, their parsers over JSON documents shaped as NVIDIA's NVUE OpenAPI spec for Cumulus
Linux 5.3.0 says, the simulator's printers of them, and the checks' errors where a port's answer
is unusable (the verdicts on good and broken incasts: test_incast_checks.py, Cumulus rails).

Documents (schema definitions of ../shared/vendor-schemas/nvue/nvue-openapi-5.3.0.json, x-defs):
- pfc-stats: an object keyed by switch priority (schema-qos-if-qos-sp-id: "0".."7") of
  schema-qos-if-qos-pfc-stats-show {rx-pause-frames, rx-pause-duration, tx-pause-frames,
  tx-pause-duration: integer}.
- egress-queue-stats: keyed by traffic class (schema-qos-if-qos-tc-id) of
  schema-qos-if-qos-egr-queue-stats-show {tx-frames, tx-bytes, red-dropped-packets,
  tx-uc-buffer-discards, wred-discards: integer}.
- roce counters: cue-show-schema-roce-show-if-roce-stats {rx-stats {rx-pfc-stats {pause-duration,
  pause-packets}, ...}, tx-stats {tx-pfc-stats, tx-roce-stats, tx-cnp-stats, tx-ecn-stats
  {ecn-marked-packets}, ...}}.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect.switch_show import (
    PORT_COMMANDS,
    _collect_ports,
    path_ports,
    port_capture,
    port_commands,
)
from gpunet.lab.switchsim.personalities import cumulus_incast
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import apply_load, rail_loads
from gpunet.model.check import load_fabric
from gpunet.validate.incast import AFTER, BEFORE, PLAN_FILE, RailIncast, incast_plan, plan_document
from gpunet.validate.manifest import Manifest, build_manifest
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.results import Status
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_incast_checks import Incast, _artifacts, _rail, _results

PFC = "cumulus-nv-show-interface-pfc-stats"
QUEUES = "cumulus-nv-show-interface-egress-queue-stats"
ROCE = "cumulus-nv-show-interface-roce-counters"


@pytest.fixture(scope="module")
def prod() -> tuple[Manifest, list[RailIncast]]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return build_manifest(fabric), incast_plan(fabric)


def _pfc_row(rx: int, tx: int) -> dict[str, int]:
    return {"rx-pause-frames": rx, "rx-pause-duration": 7 * rx, "tx-pause-frames": tx, "tx-pause-duration": 0}


def _queue_row(sent: int, red: int = 0, tail: int = 0, wred: int = 0) -> dict[str, int]:
    return {
        "tx-frames": sent,
        "tx-bytes": sent * 4096,
        "red-dropped-packets": red,
        "tx-uc-buffer-discards": tail,
        "wred-discards": wred,
    }


ROCE_DOC = {
    "rx-stats": {
        "rx-pfc-stats": {"pause-duration": 0, "pause-packets": 11},
        "rx-roce-stats": {"roce-packets": 900, "roce-bytes": 3_686_400, "no-buffer-discard": 0},
    },
    "tx-stats": {
        "tx-pfc-stats": {"pause-duration": 40, "pause-packets": 1520},
        "tx-cnp-stats": {"cnp-packets": 3, "cnp-bytes": 192},
        "tx-ecn-stats": {"ecn-marked-packets": 52_113},
    },
}

# (tool, the port's document, what the parse must hold for it)
GOOD = [
    (
        PFC,
        {str(p): _pfc_row(0, 1520 if p == 3 else 0) for p in range(8)},
        lambda port: (
            port["priorities"][3]["tx_pause"],
            port["priorities"][4]["tx_pause"],
            len(port["priorities"]),
        ),
        (1520, 0, 8),
    ),
    (
        PFC,  # the spec lists every field as optional: a priority printed with none is kept, empty
        {"3": {"tx-pause-frames": 9}, "0": {}},
        lambda port: (
            port["priorities"][3]["tx_pause"],
            port["priorities"][3]["rx_pause"],
            port["priorities"][0],
        ),
        (9, None, {"rx_pause": None, "tx_pause": None}),
    ),
    (
        QUEUES,
        {str(tc): _queue_row(10, wred=5 if tc == 3 else 0) for tc in range(8)},
        lambda port: (
            port["queues"][3]["wred-discards"],
            port["queues"][3]["tx-frames"],
            sorted(port["queues"]),
        ),
        (5, 10, list(range(8))),
    ),
    (
        ROCE,
        ROCE_DOC,
        lambda port: (port["ecn_marked"], port["tx-stats"]["tx-pfc-stats"]["pause-packets"]),
        (52_113, 1520),
    ),
    (
        ROCE,  # no tx-ecn-stats printed: the check says so, the parse keeps None
        {"tx-stats": {"tx-pfc-stats": {"pause-packets": 1}}},
        lambda port: (port["ecn_marked"], "rx-stats" in port),
        (None, False),
    ),
]


@pytest.mark.parametrize(("tool", "document", "read", "expected"), GOOD)
def test_schema_shaped_documents_are_read(tool: str, document: Any, read: Any, expected: Any) -> None:
    parsed = parse(
        tool, port_capture(PORT_COMMANDS["cumulus"][tool], {"swp5s0": document}, {"swp9": "Error: x"})
    )
    assert read(parsed["interfaces"]["swp5s0"]) == expected
    assert parsed["refused"] == {"swp9": "Error: x"}


# (tool, the capture's text, what the error must name)
BAD = [
    (PFC, "Error: interface swp1 does not exist", "not JSON"),
    (PFC, json.dumps({"swp1": {}}), "'ports' object"),
    (PFC, json.dumps({"ports": {"swp1": []}}), "ports.swp1: expected an object, got list"),
    (PFC, json.dumps({"ports": {"swp1": {"8": _pfc_row(0, 0)}}}), "ports.swp1: key '8' is no priority"),
    (PFC, json.dumps({"ports": {"swp1": {"sp3": _pfc_row(0, 0)}}}), "key 'sp3'"),
    (PFC, json.dumps({"ports": {"swp1": {"3": None}}}), "ports.swp1.3: expected an object, got NoneType"),
    (PFC, json.dumps({"ports": {"swp1": {"3": {"tx-pause-frames": "12"}}}}), "ports.swp1.3.tx-pause-frames"),
    (PFC, json.dumps({"ports": {"swp1": {"3": {"rx-pause-frames": -1}}}}), "ports.swp1.3.rx-pause-frames"),
    (PFC, json.dumps({"ports": {"swp1": {"3": {"rx-pause-frames": True}}}}), "expected a count, got True"),
    (PFC, json.dumps({"ports": {}, "refused": {"swp1": 5}}), "'refused' is not an object"),
    (QUEUES, json.dumps({"ports": {"swp1": {"3": {"wred-discards": 1.5}}}}), "ports.swp1.3.wred-discards"),
    (QUEUES, json.dumps({"ports": {"swp1": {"UC3": _queue_row(1)}}}), "key 'UC3'"),
    (ROCE, json.dumps({"ports": {"swp1": {"tx-stats": []}}}), "ports.swp1.tx-stats: expected an object"),
    (
        ROCE,
        json.dumps({"ports": {"swp1": {"tx-stats": {"tx-ecn-stats": {"ecn-marked-packets": "7"}}}}}),
        "ports.swp1.tx-stats.tx-ecn-stats.ecn-marked-packets",
    ),
    (
        ROCE,
        json.dumps({"ports": {"swp1": {"rx-stats": {"rx-pfc-stats": 3}}}}),
        "ports.swp1.rx-stats.rx-pfc-stats",
    ),
]


@pytest.mark.parametrize(("tool", "text", "named"), BAD, ids=[f"{t}:{n}" for t, _, n in BAD])
def test_a_wrong_shape_is_an_error_naming_the_path(tool: str, text: str, named: str) -> None:
    with pytest.raises(ParseError) as error:
        parse(tool, text)
    assert named in str(error.value)


# (the simulator's counters of the port, tool, what the parse of its answer must hold)
SIMULATED = [
    ({"tx_pfc": [0, 0, 0, 44, 0, 0, 0, 0]}, PFC, lambda p: p["priorities"][3]["tx_pause"], 44),
    ({"rx_pfc": [0, 0, 0, 0, 6, 0, 0, 0]}, PFC, lambda p: p["priorities"][4]["rx_pause"], 6),
    ({"tx_drop": [0, 0, 0, 8, 0, 0, 0, 0]}, QUEUES, lambda p: p["queues"][3]["tx-uc-buffer-discards"], 8),
    ({"wred_drop": [0, 0, 0, 2, 0, 0, 0, 0]}, QUEUES, lambda p: p["queues"][3]["wred-discards"], 2),
    ({"tx_queue": [0, 0, 0, 5, 0, 0, 0, 0]}, QUEUES, lambda p: p["queues"][3]["tx-bytes"], 5 * 1024),
    ({"ecn_marked": [0, 0, 0, 31, 0, 0, 0, 0]}, ROCE, lambda p: p["ecn_marked"], 31),
    ({"ecn_marked": [0, 0, 0, 0, 31, 0, 0, 0]}, ROCE, lambda p: p["ecn_marked"], 0),  # not the RoCE class
    (
        {"tx_pfc": [0, 0, 0, 12, 0, 0, 0, 0]},
        ROCE,
        lambda p: p["tx-stats"]["tx-pfc-stats"]["pause-packets"],
        12,
    ),
]


@pytest.mark.parametrize(("counters", "tool", "read", "expected"), SIMULATED)
def test_the_simulator_prints_its_counters_as_nvue_does(
    counters: dict, tool: str, read: Any, expected: int
) -> None:
    state = SwitchState("cumulus", "leaf05", config=[], ports=["swp1", "swp5s0"])
    state.counters["swp5s0"].update(counters)
    command = PORT_COMMANDS["cumulus"][tool].format(port="swp5s0")
    answer = cumulus_incast.answer(state, command)
    assert answer is not None
    parsed = parse(tool, port_capture(PORT_COMMANDS["cumulus"][tool], {"swp5s0": json.loads(answer)}))
    assert read(parsed["interfaces"]["swp5s0"]) == expected


def test_the_simulator_refuses_a_port_it_does_not_have() -> None:
    state = SwitchState("cumulus", "leaf05", config=[], ports=["swp1"])
    command = PORT_COMMANDS["cumulus"][ROCE].format(port="swp77")
    assert cumulus_incast.answer(state, command) == "Error: interface swp77 does not exist"
    assert cumulus_incast.answer(state, "nv show interface swp1 counters qos pfc-stats") is None


@pytest.mark.parametrize(
    ("platform", "phase", "tools"),
    [
        ("cumulus", BEFORE, {PFC, QUEUES, ROCE}),
        ("cumulus", AFTER, {PFC, QUEUES, ROCE}),
        ("cumulus", "after", set()),  # the pair tests' phases read what they always did
        ("sonic", BEFORE, set()),
    ],
)
def test_the_incast_phases_add_the_per_port_commands(platform: str, phase: str, tools: set) -> None:
    assert set(port_commands(platform, phase)) == tools


def _plan(folder: Path, plan: list[RailIncast]) -> None:
    (folder / PLAN_FILE).parent.mkdir(parents=True, exist_ok=True)
    (folder / PLAN_FILE).write_text(json.dumps(plan_document(plan)))


def test_the_path_ports_of_a_switch_come_from_the_plan(tmp_path: Path, prod: tuple[Manifest, list]) -> None:
    manifest, plan = prod
    rail = _rail(plan, "cumulus", manifest)
    leaf = rail.receiver_port.switch
    assert path_ports(tmp_path, leaf)[0] == []
    assert "no incast/plan.json" in path_ports(tmp_path, leaf)[1]
    _plan(tmp_path, plan)
    ports, why = path_ports(tmp_path, leaf)
    wanted = [p.port for r in plan for p in r.path if p.switch == leaf]
    assert ports == list(dict.fromkeys(wanted)) and ports[0] == rail.receiver_port.port and why == ""
    assert path_ports(tmp_path, "no-such-switch") == (
        [],
        "no-such-switch has no port on the incast plan's paths",
    )
    (tmp_path / PLAN_FILE).write_text("{")
    assert "unreadable" in path_ports(tmp_path, leaf)[1]


class _Session:
    def __init__(self, answers: dict[str, str]) -> None:
        self.answers, self.sent = answers, []

    def send_command(self, command: str, read_timeout: int = 0) -> str:
        self.sent.append(command)
        return self.answers[command]


def test_a_port_whose_answer_is_no_json_is_kept_as_refused() -> None:
    template = PORT_COMMANDS["cumulus"][PFC]
    good = json.dumps({"3": _pfc_row(1, 2)})
    session = _Session(
        {template.format(port="swp1"): good, template.format(port="swp2"): "Error: not ready\n"}
    )
    text, record = _collect_ports(session, template, ["swp1", "swp2"])
    parsed = parse(PFC, text)
    assert session.sent == [
        "nv show interface swp1 qos counters pfc-stats -o json",
        template.format(port="swp2"),
    ]
    assert parsed["interfaces"]["swp1"]["priorities"][3]["tx_pause"] == 2
    assert parsed["refused"] == {"swp2": "Error: not ready"} == record["refused"]


# (the tool whose capture is broken for the receiver's leaf port, how, the check that must say so)
UNUSABLE = [
    (ROCE, "refused", "incast_ecn_marks", "the switch answered for {port}: Error: boom"),
    (ROCE, "no ecn", "incast_ecn_marks", "no ECN-marked counter for {port}"),
    (PFC, "refused", "incast_pfc_priority", "the switch answered for {port}: Error: boom"),
    (QUEUES, "refused", "incast_lossless_drops", "the switch answered for {port}: Error: boom"),
    (QUEUES, "no drop fields", "incast_lossless_drops", "queue 3 of {port} not in the queue counters"),
    (QUEUES, "port missing", "incast_lossless_drops", "no {port} in the capture"),
]


@pytest.mark.parametrize(
    ("tool", "how", "check", "message"), UNUSABLE, ids=[f"{u[0]}:{u[1]}" for u in UNUSABLE]
)
def test_an_unusable_answer_is_an_error_naming_the_port(
    tmp_path: Path, prod: tuple[Manifest, list], tool: str, how: str, check: str, message: str
) -> None:
    manifest, plan = prod
    folder = _artifacts(tmp_path, manifest, plan, Incast())
    rail = _rail(plan, "cumulus", manifest)
    port = rail.receiver_port
    path = folder / "switches" / port.switch / AFTER / f"{tool}.txt"
    capture = json.loads(path.read_text())
    if how == "refused":
        del capture["ports"][port.port]
        capture["refused"][port.port] = "Error: boom"
    elif how == "port missing":
        del capture["ports"][port.port]
    elif how == "no ecn":
        del capture["ports"][port.port]["tx-stats"]["tx-ecn-stats"]
    else:
        capture["ports"][port.port]["3"] = {"tx-frames": 1, "tx-bytes": 1024}
    path.write_text(json.dumps(capture))
    results = [r for r in _results(folder) if r.check == check and r.target == port.target]
    assert [r.status for r in results] == [Status.ERROR], results
    assert message.format(port=port.port) in results[0].message


def _nvue_captures(state: SwitchState, ports: list[str]) -> dict[str, str]:
    printers = {
        PFC: cumulus_incast.pfc_stats,
        QUEUES: cumulus_incast.egress_queue_stats,
        ROCE: cumulus_incast.roce_counters,
    }
    return {
        tool: port_capture(
            PORT_COMMANDS["cumulus"][tool], {port: printers[tool](state, port) for port in ports}
        )
        for tool in printers
    }


def _policy(pattern: str, replacement: str) -> Any:
    return lambda lines: [re.sub(pattern, replacement, line) for line in lines]


# (policy, the change to the leaf's rendered `nv set` lines, the checks failing at each receiver's port)
NVUE_POLICIES = [
    ("as rendered", lambda lines: lines, set()),
    ("ECN off on TC 3", _policy(r"(traffic-class 3 ecn) enable$", r"\1 disable"), {"incast_ecn_marks"}),
    (
        "PFC on priority 4",
        _policy(r"^(nv set qos pfc \S+ switch-priority) 3$", r"\1 4"),
        {"incast_lossless_drops"},
    ),
    # The load lands in TC 0, which drops (not the lossless class) and marks nothing: only the
    # receiver port's RoCE marks say the class is wrong.
    ("DSCP 26 on priority 0", _policy(r"(dscp 26 switch-priority) 3$", r"\1 0"), {"incast_ecn_marks"}),
]


@pytest.mark.parametrize(("policy", "change", "failing"), NVUE_POLICIES, ids=[p[0] for p in NVUE_POLICIES])
def test_the_checks_on_a_simulated_cumulus_leaf_follow_its_nvue_policy(
    tmp_path: Path, prod: tuple[Manifest, list], policy: str, change: Any, failing: set[str]
) -> None:
    """The prod plan's artifacts of a good incast, with the Cumulus leaf's captures printed by the
    simulator before and after the traffic model's load under its intended/prod lines."""
    manifest, plan = prod
    folder = _artifacts(tmp_path, manifest, plan, Incast())
    leaves = {
        r.receiver_port.switch
        for r in plan
        if manifest.switches[r.receiver_port.switch].platform == "cumulus"
    }
    assert leaves
    for leaf in leaves:
        lines = [
            line
            for line in (REPO_ROOT / "intended" / "prod" / f"{leaf}.cfg").read_text().splitlines()
            if line
        ]
        ports = list(dict.fromkeys(p.port for r in plan for p in r.path if p.switch == leaf))
        state = SwitchState("cumulus", leaf, config=change(lines), ports=ports)
        phases = {BEFORE: _nvue_captures(state, ports)}
        for rail in plan:
            for switch, load in rail_loads(rail).items():
                if switch == leaf:
                    apply_load(state, load)
        phases[AFTER] = _nvue_captures(state, ports)
        for phase, captures in phases.items():
            for tool, text in captures.items():
                (folder / "switches" / leaf / phase / f"{tool}.txt").write_text(text)
    switch_side = ("incast_ecn_marks", "incast_pfc_priority", "incast_lossless_drops")
    on_leaves = [r for r in _results(folder) if r.check in switch_side and r.target.split(":")[0] in leaves]
    edges = {r.receiver_port.target for r in plan if r.receiver_port.switch in leaves}
    failed = {(r.check, r.target) for r in on_leaves if r.status == Status.FAIL}
    assert failed == {(check, edge) for check in failing for edge in edges}, policy
    assert all(r.status == Status.PASS for r in on_leaves if (r.check, r.target) not in failed), [
        (r.check, r.target, r.status, r.message) for r in on_leaves if r.status != Status.PASS
    ]
