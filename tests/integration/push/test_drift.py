"""`gpunet drift` against simulated switches on 127.0.0.1 (a re-addressed copy of inventories/prod):
in sync, drifted by hand (a line added, a line removed), and an unreachable switch."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import socket

import pytest

from gpunet.cli import main
from gpunet.netdev.push import Connection, push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.test_playbook import PASSWORD, lab_copy_of_prod

# One switch per platform keeps the test short; --limit picks them.
CHOSEN = ["leaf01", "leaf03", "leaf05", "leaf07", "leaf08"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    from gpunet.lab.switchsim import SimulatorFleet
    from gpunet.model.check import load_fabric

    with SimulatorFleet() as fleet:
        lab = lab_copy_of_prod(tmp_path_factory.mktemp("drift"), fleet, reject={})
        fabric = load_fabric(lab["inventory"])
        connection = Connection(password=PASSWORD, host_key_checking=False, timeout_s=5)
        for name in CHOSEN:
            sim = lab["sims"][name]
            switch = dataclasses.replace(fabric.switches[name], mgmt_address="127.0.0.1", mgmt_port=sim.port)
            intended = (lab["intended"] / fabric.name / f"{name}.cfg").read_text()
            push_switch(
                switch, intended, connection, check_mode=False, backup_root=lab["backups"],
                options=PushOptions(confirm_timeout_s=3, command_timeout_s=20),
            )  # fmt: skip
        lab["fleet"], lab["fabric"] = fleet, fabric
        yield lab


def drift(lab, capsys, *limit: str) -> tuple[int, dict]:
    code = main([
        "drift", "-i", str(lab["inventory"]), "--intended-dir", str(lab["intended"] / lab["fabric"].name),
        "--limit", ",".join(limit or CHOSEN), "--format", "json", "--timeout", "3",
    ])  # fmt: skip
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def edit(lab, name: str, change) -> None:  # type: ignore[no-untyped-def]
    sim = lab["sims"][name]
    lab["fleet"].call(lambda: setattr(sim.state, "config", change(sim.state.config)))


def test_in_sync_fabric_exits_0(lab, capsys):
    code, report = drift(lab, capsys)
    assert code == 0
    assert {name: s["status"] for name, s in report["switches"].items()} == dict.fromkeys(CHOSEN, "in sync")


def test_hand_edits_show_as_drift_and_change_nothing(lab, capsys):
    added_by_hand = "set class-of-service schedulers sch-roce priority strict-high"
    removed_by_hand = "   service-profile GPUNET-ROCE"
    foreign = "set system ntp server 192.0.2.1"  # an operator's line, not in the factory config
    edit(lab, "leaf08", lambda config: [*config, added_by_hand, foreign])
    eos_before = lab["fleet"].call(lambda: list(lab["sims"]["leaf03"].state.config))
    first = eos_before.index(removed_by_hand)
    edit(lab, "leaf03", lambda config: config[:first] + config[first + 1 :])
    junos_before = lab["fleet"].call(lambda: list(lab["sims"]["leaf08"].state.config))
    try:
        code, report = drift(lab, capsys)
        assert code == 4
        switches = report["switches"]
        assert switches["leaf08"]["status"] == "drift"
        assert switches["leaf08"]["removed"] == [added_by_hand]  # the foreign line is not gpunet's
        # A leaf statement is deleted by its name, without the value.
        assert switches["leaf08"]["commands"] == ["delete class-of-service schedulers sch-roce priority"]
        assert switches["leaf03"]["status"] == "drift"
        assert [line.strip() for line in switches["leaf03"]["added"]][-1] == removed_by_hand.strip()
        assert any(line.strip() == removed_by_hand.strip() for line in switches["leaf03"]["commands"])
        assert {switches[n]["status"] for n in ("leaf01", "leaf05", "leaf07")} == {"in sync"}
        assert lab["fleet"].call(lambda: list(lab["sims"]["leaf08"].state.config)) == junos_before
    finally:
        edit(lab, "leaf08", lambda config: [line for line in config if line not in (added_by_hand, foreign)])
        edit(lab, "leaf03", lambda config: eos_before)


def test_text_output_names_each_switch_once(lab, capsys):
    code = main([
        "drift", "-i", str(lab["inventory"]), "--intended-dir", str(lab["intended"] / lab["fabric"].name),
        "--limit", "leaf01,leaf07", "--timeout", "3",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert re.findall(r"(?m)^(\S+) \((\w+)\): (.*)$", out) == [
        ("leaf01", "nxos", "in sync"),
        ("leaf07", "sonic", "in sync"),
    ]
    assert out.splitlines()[-1] == "2 switch(es): 2 in sync, 0 drift, 0 unreadable"
    assert PASSWORD not in out


@contextlib.contextmanager
def unreachable(lab, name: str):
    """`name`'s inventory points at a port on 127.0.0.1 nobody listens on, until the block ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    host_vars = lab["inventory"] / "host_vars" / f"{name}.yml"
    text = host_vars.read_text()
    host_vars.write_text(re.sub(r"(?m)^ansible_port: .*$", f"ansible_port: {closed}", text))
    try:
        yield closed
    finally:
        host_vars.write_text(text)


def test_an_unreachable_switch_is_one_line_of_text(lab, capsys):
    """netmiko's connection errors carry a list of common causes; the text names each switch once."""
    with unreachable(lab, "leaf05") as closed:
        code = main([
            "drift", "-i", str(lab["inventory"]), "--intended-dir", str(lab["intended"] / lab["fabric"].name),
            "--limit", "leaf05", "--timeout", "3",
        ])  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert code == 3
    assert len(out) == 2 and out[0].startswith("leaf05 (cumulus): unreadable: ") and f":{closed}" in out[0]
    assert out[1] == "1 switch(es): 0 in sync, 0 drift, 1 unreadable"


def test_unreachable_switch_exits_3(lab, capsys):
    with unreachable(lab, "leaf05") as closed:
        code, report = drift(lab, capsys, "leaf05", "leaf01")
    assert code == 3
    assert report["switches"]["leaf05"]["status"] == "unreadable"
    assert f"127.0.0.1:{closed}" in report["switches"]["leaf05"]["error"]
    assert not report["switches"]["leaf05"]["error"].startswith("leaf05")
    assert report["switches"]["leaf01"]["status"] == "in sync"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--limit", "nosuchswitch"], "matches no switch"),
        (["--intended-dir", "/nonexistent"], "no reviewed config"),
    ],
)
def test_usage_errors_exit_2(lab, capsys, args, message):
    code = main(["drift", "-i", str(lab["inventory"]), *args])
    assert code == 2
    assert message in capsys.readouterr().err
