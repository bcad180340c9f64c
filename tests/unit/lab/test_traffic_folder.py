"""The lab's incast SIMULATION, host side (gpunet.lab.traffic_folder and the node image's
ib_write_bw stand-in, both LAB EQUIPMENT): rail 1 of the committed lab inventory (gpu03 and gpu04
into gpu02 behind leaf02, Cumulus) run on a simulated leaf02 holding intended/lab/leaf02.cfg or a
broken copy of it. What a sender is told (bandwidth) and what the NICs' hw_counters say follow the
policy the switch holds; the stand-in's report is perftest's, read by gpunet's own parser."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpunet.lab import traffic_folder
from gpunet.lab.switchsim.state import SwitchState
from gpunet.model.check import load_fabric
from gpunet.validate.incast import RailIncast, incast_plan
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT

STAND_IN = REPO_ROOT / "src" / "gpunet" / "lab" / "images" / "node" / "ib_write_bw"
LEAF02_PORTS = ["swp1", "swp2", "swp3", "swp4", "swp32"]


@pytest.fixture(scope="module")
def fabric() -> Any:
    return load_fabric(REPO_ROOT / "inventories" / "lab")


@pytest.fixture(scope="module")
def rail1(fabric: Any) -> RailIncast:
    rail = next(r for r in incast_plan(fabric) if r.rail == 1)
    assert rail.receiver_port.switch == "leaf02"
    return rail


def leaf02(change: Callable[[str], str] = lambda line: line, platform: str = "cumulus") -> SwitchState:
    rendered = (REPO_ROOT / "intended" / "lab" / "leaf02.cfg").read_text().splitlines()
    lines = [change(line) for line in rendered if line.strip()]
    return SwitchState(platform=platform, hostname="leaf02", config=lines, ports=LEAF02_PORTS)


def ecn_off(line: str) -> str:
    return re.sub(r"(traffic-class 3 ecn) enable$", r"\1 disable", line)


def pfc_on_4(line: str) -> str:
    return re.sub(r"^(nv set qos pfc \S+ switch-priority) 3$", r"\1 4", line)


def counters(folder: Path, host: str, nic: str) -> dict[str, int]:
    root = folder / "hosts" / host / "infiniband" / nic / "ports" / "1" / "hw_counters"
    return {path.name: int(path.read_text()) for path in root.iterdir()}


def request(folder: Path, rail: RailIncast, sender: Any, at: float, ident: str = "t") -> None:
    entry = traffic_folder.entry_name(sender.host, sender.nic, sender.port)
    data = {"id": ident, "host": sender.host, "device": sender.nic, "server": rail.receiver_ip}
    data |= {"port": sender.port, "tclass": rail.traffic_class, "seconds": rail.seconds, "at": at}
    (folder / "requests" / entry).write_text(json.dumps(data))


def listening(folder: Path, rail: RailIncast) -> None:
    for sender in rail.senders:
        entry = traffic_folder.entry_name(rail.receiver, rail.receiver_nic, sender.port)
        (folder / "servers" / entry).write_text("{}")


def requests_made(
    folder: Path, rail: RailIncast, senders: int | None = None, to: RailIncast | None = None
) -> float:
    """The receiver's servers listening and the first `senders` senders' requests (all by default),
    addressed to `to`'s receiver if given; returns the time they were made."""
    listening(folder, rail)
    now = time.time()
    for sender in rail.senders[:senders]:
        request(folder, to or rail, sender, now)
    return now


def outcome(folder: Path, sender: Any) -> dict[str, Any] | None:
    path = folder / "outcomes" / traffic_folder.entry_name(sender.host, sender.nic, sender.port)
    return json.loads(path.read_text()) if path.is_file() else None


def test_lab_up_leaves_every_nic_at_zero_and_the_wiring(tmp_path: Path, fabric: Any) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    wiring = json.loads((tmp_path / traffic_folder.WIRING).read_text())
    assert wiring["gpu02"]["mlx5_1"] == {"ip": "10.247.1.12", "gbps": 100, "switch": "leaf02", "port": "swp2"}
    for host in ("gpu01", "gpu02", "gpu03", "gpu04"):
        for nic in ("mlx5_0", "mlx5_1"):
            assert counters(tmp_path, host, nic) == dict.fromkeys(traffic_folder.NIC_COUNTERS, 0)
    assert (tmp_path / "requests").stat().st_mode & 0o1777 == 0o1777  # the nodes' ops user writes there


# policy; each sender's bandwidth (None: under its share); whether the NICs count marks and CNPs;
# whether the receiver counts out-of-sequence packets (the leaf dropped)
@pytest.mark.parametrize(
    ("case", "change", "gbps", "marks", "drops"),
    [
        ("as rendered: marks, pauses, no drop", lambda line: line, 50.0, True, False),
        ("ECN off on the lossless TC: no mark, no CNP", ecn_off, 50.0, False, False),
        ("PFC on priority 4: the lossless TC drops", pfc_on_4, None, True, True),
    ],
)
def test_a_receivers_group_runs_the_policy_the_leaf_holds(
    tmp_path: Path, fabric: Any, rail1: RailIncast, case: str, change, gbps, marks: bool, drops: bool
) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    state = leaf02(change)
    now = requests_made(tmp_path, rail1)
    said = traffic_folder.serve(tmp_path, "leaf02", state, now)
    assert len(said) == 1 and "SIMULATED 200 Gb/s into 100 Gb/s on swp2" in said[0], case
    told = [outcome(tmp_path, s) for s in rail1.senders]
    assert all(t is not None and t["error"] == "" and t["id"] == "t" for t in told), told
    if gbps is None:
        assert all(0 < t["gbps"] < 50.0 for t in told), told  # the drops cost the senders goodput
    else:
        assert [t["gbps"] for t in told] == [gbps, gbps], case
    receiver = counters(tmp_path, rail1.receiver, rail1.receiver_nic)
    assert (receiver["np_ecn_marked_roce_packets"] > 0) is marks, case
    assert (receiver["np_cnp_sent"] > 0) is marks, case
    assert (receiver["out_of_sequence"] > 0) is drops, case
    handled = [counters(tmp_path, s.host, s.nic)["rp_cnp_handled"] for s in rail1.senders]
    assert sum(handled) == receiver["np_cnp_sent"] and all((h > 0) is marks for h in handled), case
    assert (state.counters["swp2"].get("ecn_marked", [0] * 8)[3] > 0) is marks, "the switch's own count"
    # nothing else moved: rail 0's NICs and the hosts outside the rail
    assert counters(tmp_path, "gpu01", "mlx5_1") == dict.fromkeys(traffic_folder.NIC_COUNTERS, 0)
    assert all(v == 0 for h in ("gpu01", "gpu02", "gpu03") for v in counters(tmp_path, h, "mlx5_0").values())
    assert traffic_folder.serve(tmp_path, "leaf02", state, now) == [], "an answered request runs once"


@pytest.mark.parametrize(
    ("case", "requested", "wait_s", "runs"),
    [
        ("every listening server has its sender", 2, 0.0, True),
        ("one sender still to come", 1, 0.0, False),
        ("one sender missing past the grace time", 1, traffic_folder.GRACE_S + 0.1, True),
        ("a request its client gave up on long ago", 2, 10 + traffic_folder.STALE_S + 1, False),
    ],
)
def test_a_group_waits_for_the_senders_of_its_listening_servers(
    tmp_path: Path, fabric: Any, rail1: RailIncast, case: str, requested: int, wait_s: float, runs: bool
) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    now = requests_made(tmp_path, rail1, senders=requested)
    said = traffic_folder.serve(tmp_path, "leaf02", leaf02(), now + wait_s)
    assert bool(said) is runs, case
    assert (outcome(tmp_path, rail1.senders[0]) is not None) is runs, case


@pytest.mark.parametrize(
    ("case", "switch", "platform", "server", "error"),
    [
        ("a leaf without a traffic model", "leaf02", "nxos", None, "leaf02 is nxos"),
        ("an address no lab NIC has", "leaf01", "nxos", "10.9.9.9", "no lab NIC has the address 10.9.9.9"),
    ],
)
def test_what_cannot_be_simulated_is_answered_with_an_error(
    tmp_path: Path, fabric: Any, rail1: RailIncast, case: str, switch: str, platform: str, server, error: str
) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    now = requests_made(tmp_path, rail1, to=None if server is None else _to(rail1, server))
    traffic_folder.serve(tmp_path, switch, leaf02(platform=platform), now)
    told = outcome(tmp_path, rail1.senders[0])
    assert told is not None and error in told["error"] and told["gbps"] == 0, (case, told)
    receiver = counters(tmp_path, rail1.receiver, rail1.receiver_nic)
    assert receiver == dict.fromkeys(traffic_folder.NIC_COUNTERS, 0), case


def test_a_sender_behind_another_leaf_enters_by_the_uplinks(
    tmp_path: Path, fabric: Any, rail1: RailIncast
) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    wiring = json.loads((tmp_path / traffic_folder.WIRING).read_text())
    far = rail1.senders[-1]
    wiring[far.host][far.nic] |= {"switch": "leaf09", "port": "swp9"}
    (tmp_path / traffic_folder.WIRING).write_text(json.dumps(wiring))
    state = leaf02()
    state.neighbours = {"swp2": ["gpu02", "rail1"], "swp3": ["gpu03", "rail1"]}
    state.neighbours["swp32"] = ["spine01", "Ethernet2"]
    now = requests_made(tmp_path, rail1)
    said = traffic_folder.serve(tmp_path, "leaf02", state, now)
    assert len(said) == 1 and "pauses from swp3, swp32," in said[0], said
    assert state.counters["swp32"]["tx_pfc"][3] > 0 and state.counters["swp4"]["tx_pfc"][3] == 0


def test_another_leafs_receivers_are_left_to_its_simulator(
    tmp_path: Path, fabric: Any, rail1: RailIncast
) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    now = requests_made(tmp_path, rail1)
    assert traffic_folder.serve(tmp_path, "leaf01", leaf02(platform="nxos"), now + 5) == []
    assert outcome(tmp_path, rail1.senders[0]) is None


def _to(rail: RailIncast, address: str) -> RailIncast:
    return replace(rail, receiver_ip=address)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stand_in(folder: Path, host: str, argv: list[str]) -> subprocess.Popen[str]:
    """`argv` as the verify role runs it (ib_write_bw first), with the stand-in for the program."""
    assert argv[0] == "ib_write_bw"
    env = {**os.environ, "GPUNET_LAB_TRAFFIC": str(folder), "GPUNET_LAB_HOSTNAME": host}
    pipes: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    return subprocess.Popen([sys.executable, str(STAND_IN), *argv[1:]], env=env, **pipes)


@pytest.mark.parametrize(
    ("case", "change", "platform", "reported"),
    [
        ("as rendered", lambda line: line, "cumulus", 50.0),
        ("a leaf without a traffic model", lambda line: line, "nxos", None),
    ],
)
def test_the_stand_in_talks_over_tcp_and_prints_perftests_report(
    tmp_path: Path, fabric: Any, rail1: RailIncast, case: str, change, platform: str, reported: float | None
) -> None:
    """Server and clients as the verify role runs them (its argv), on 127.0.0.1 standing for the
    receiver's rail address; the test plays the leaf's simulator loop."""
    traffic_folder.prepare(tmp_path, fabric)
    wiring = json.loads((tmp_path / traffic_folder.WIRING).read_text())
    wiring[rail1.receiver][rail1.receiver_nic]["ip"] = "127.0.0.1"
    (tmp_path / traffic_folder.WIRING).write_text(json.dumps(wiring))
    ports = {sender.host: _free_port() for sender in rail1.senders}
    senders = [replace(s, port=ports[s.host]) for s in rail1.senders]
    rail = replace(rail1, senders=tuple(senders), receiver_ip="127.0.0.1")
    servers = [_stand_in(tmp_path, rail.receiver, rail.server_argv(s)) for s in senders]
    deadline = time.monotonic() + 10
    while len(list((tmp_path / "servers").glob("*.json"))) < len(senders) and time.monotonic() < deadline:
        time.sleep(0.05)
    clients = [_stand_in(tmp_path, s.host, rail.client_argv(s)) for s in senders]
    state = leaf02(change, platform)
    while any(c.poll() is None for c in clients) and time.monotonic() < deadline:
        traffic_folder.serve(tmp_path, "leaf02", state)
        time.sleep(0.05)
    outputs = [c.communicate(timeout=5) for c in clients]
    for server in servers:
        server.wait(timeout=5)
    for (out, err), client, sender in zip(outputs, clients, senders, strict=True):
        parsed = parse("perftest", f"$ {' '.join(rail.client_argv(sender))}\n{out}{err}")
        if reported is None:
            assert client.returncode == 1 and parsed["error"] and "nxos" in parsed["error"], (case, out, err)
        else:
            assert client.returncode == 0, (case, out, err)
            assert parsed["error"] is None and parsed["complete"], (case, out)
            assert parsed["results"][-1]["bw_avg_gbps"] == reported, case
            assert parsed["traffic_class"] == rail.traffic_class
    assert list((tmp_path / "servers").iterdir()) == [], "each server took its one client and left"
    assert list((tmp_path / "requests").iterdir()) == [] and list((tmp_path / "outcomes").iterdir()) == []


def test_a_client_without_a_listening_server_fails_as_perftest_does(tmp_path: Path, fabric: Any) -> None:
    traffic_folder.prepare(tmp_path, fabric)
    argv = ["ib_write_bw", "-d", "mlx5_1", "-p", str(_free_port()), "-D", "10", "127.0.0.1"]
    client = _stand_in(tmp_path, "gpu03", argv)
    out, err = client.communicate(timeout=10)
    assert client.returncode == 1
    assert parse("perftest", out + err)["error"], out + err
    assert list((tmp_path / "requests").iterdir()) == []


def test_a_simulator_started_with_the_traffic_folder_serves_it(
    tmp_path: Path, fabric: Any, rail1: RailIncast
) -> None:
    """start_switch hands the traffic folder (`lab up`: LabPaths.traffic_dir) to the simulator, which
    applies the load to its own running state (what the incast collection then reads over SSH)."""
    from gpunet.lab import switches
    from gpunet.lab.plan import plan_lab

    lab_switch = next(s for s in plan_lab(fabric).switches if s.name == "leaf02")
    workdir = tmp_path / "switches"
    workdir.mkdir()
    state_file = workdir / "leaf02.state.json"
    switches.seed_state(lab_switch, state_file)
    state = SwitchState.load(state_file)
    state.config = leaf02().config
    state.save(state_file)
    folder = tmp_path / "traffic"
    traffic_folder.prepare(folder, fabric)
    listening(folder, rail1)
    running = switches.start_switch(lab_switch, workdir, "admin", "pw-test", traffic_dir=folder)
    try:
        assert f"--traffic-dir={folder}".encode() in Path(f"/proc/{running.pid}/cmdline").read_bytes()
        for sender in rail1.senders:
            request(folder, rail1, sender, time.time())
        deadline = time.monotonic() + 10
        while outcome(folder, rail1.senders[-1]) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [(outcome(folder, s) or {}).get("gbps") for s in rail1.senders] == [50.0, 50.0]
        # The simulator writes the outcomes while it applies the load and saves its state after
        # (switchsim.cli serve_traffic): the file may lag the last outcome by a moment.
        marked = [0] * 8
        while marked[3] == 0 and time.monotonic() < deadline + 5:
            marked = SwitchState.load(state_file).counters["swp2"].get("ecn_marked", [0] * 8)
            time.sleep(0 if marked[3] else 0.1)
        assert marked[3] > 0, "the simulator saved the marks on its egress port's lossless TC"
    finally:
        switches.stop_switch(running)
    assert "traffic: leaf02: incast into gpu02:mlx5_1" in Path(running.log_file).read_text()


@pytest.mark.parametrize(
    ("edited", "restarts"),
    [("lab/traffic_folder.py", True), ("lab/switchsim/server.py", True), ("lab/nodes.py", False)],
)
def test_lab_up_restarts_the_simulators_when_the_code_they_serve_with_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edited: str, restarts: bool
) -> None:
    """The simulators import traffic_folder for --traffic-dir: a change to it is a change of their code."""
    import gpunet
    from gpunet.lab import switches

    package = tmp_path / "gpunet"
    files = ("__init__.py", "lab/traffic_folder.py", "lab/switchsim/server.py", "lab/nodes.py", "grammar/a")
    for name in files:
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text("x = 1\n")
    monkeypatch.setattr(gpunet, "__file__", str(package / "__init__.py"))
    before = switches.simulator_code_digest()
    (package / edited).write_text("x = 2\n")
    assert (switches.simulator_code_digest() != before) is restarts
