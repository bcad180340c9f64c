"""A canary QoS rollout in the lab (issue 31): playbooks/switches.yml -e gpunet_rollout=canary with
leaf02 (Cumulus, rail 1) as the canary and the lab's four nodes behind it, previous intent from a
Git copy of intended/lab. The gate runs the incast stage as the lab's SIMULATION
(gpunet.lab.traffic_folder: the nodes' ib_write_bw stand-in talks over its real TCP port, leaf02's
simulator applies the load with its Cumulus traffic model to the lines it holds and writes the NICs'
hw_counters; inventories/lab sets gpunet_hardware.simulated_incast). So the policy is judged twice:
by switch_ecn and switch_pfc on what the running simulator prints (`nv show qos roce`), and by the
incast checks on rail 1 (gpu03 and gpu04 into gpu02 behind leaf02). ECN off on the lossless TC fails
switch_ecn, the marks on leaf02's receiver port and at gpu02's NIC, and the CNPs of every NIC of the
rail; PFC on priority 4 fails switch_pfc, the lossless drops (leaf02's port, gpu02's
out_of_sequence) and the bandwidth. Each is stopped and leaf02 pushed back to v1; the rendered
policy between them passes every incast check of rail 1 and goes on to leaf01 and spine01. Rail 0
(leaf01, NX-OS: no traffic model) is skipped, naming why. The same playbook path, with the incast
checks judging a SONiC canary, is tests/integration/push/test_canary_rollout.py.

Its first runs found two bugs of the live gate (1e69b63: gpunet-validate -i looked for
playbooks/playbooks/verify.yml; 0d8ca52: incast checks were errors on hosts without RDMA NICs);
since, it passed in 3 min 7 s on 2 cores under a load of 4 on the shared lab (tests/e2e/conftest.py:
the switches pushed over what test_lab left, three canary runs). With the simulated incast stage in
the gate (7 December 2026, 2 cores, mean load 2.8): the module run alone took 4 min 3 s, of which
its lab up and first deploy took 103 s and the test 125 s. On one warm lab, a rendered canary run took
34.1 s (28.8 s CPU) with simulated_incast off and 44.4 to 46.0 s (35.5 to 37.6 s CPU) with it, so
the stage adds about 11 s to each of the three runs, about 33 s to the module.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpunet.lab.paths import LabPaths
from gpunet.lab.state import LabState
from gpunet.validate.incast import PLAN_FILE, RailIncast, plan_from_document
from tests.conftest import REPO_ROOT
from tests.e2e.test_lab import INVENTORY, REJECTED_LINE, recap, run

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

CANARY = "leaf02"
# The incast checks with evidence from the lab's SIMULATION on a Cumulus leaf (no NVUE watchdog
# count, no alltoall_perf in the lab: those two skip).
INCAST_JUDGED = {
    "incast_ecn_marks", "incast_cnp", "incast_pfc_priority", "incast_lossless_drops", "incast_bandwidth"
}  # fmt: skip
ECN_LINE = REJECTED_LINE  # intended/lab/leaf02.cfg: ECN on traffic class 3, the lossless one


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True,
        check=True,
    )


def canary(intended: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run(
        "ansible-playbook", "playbooks/switches.yml", "-i", INVENTORY,
        "-e", "gpunet_rollout=canary", "-e", f"gpunet_canary={CANARY}",
        "-e", f"switch_qos_intended_dir={intended}", "-e", f"switches_rollout_dir={out}",
    )  # fmt: skip


def running(paths: LabPaths) -> list[str]:
    """The canary simulator's running config, from the state file it keeps."""
    state = LabState.load(paths.state_file)
    assert state is not None
    return json.loads(Path(state.switches[CANARY].state_file).read_text())["config"]


def gate_results(out: Path, *statuses: str) -> set[tuple[str, str]]:
    results = json.loads((out / "after.json").read_text())["results"]
    return {(r["check"], r["target"]) for r in results if r["status"] in statuses}


def gate_failures(out: Path) -> set[tuple[str, str]]:
    return gate_results(out, "fail", "error")


def canary_rail(out: Path) -> RailIncast:
    """The incast plan's rail whose receiver is behind the canary, as the gate's stage ran it."""
    plan = plan_from_document(json.loads((out / "after-artifacts" / PLAN_FILE).read_text()))
    return next(rail for rail in plan if rail.receiver_port.switch == CANARY)


def incast_failures(out: Path, kind: str) -> set[tuple[str, str]]:
    """What the incast checks must fail on the canary's rail for a policy broken by `kind`."""
    rail = canary_rail(out)
    edge, receiver = rail.receiver_port.target, rail.receiver_target
    if kind == "ecn":  # nothing marks, so no NIC sees a CNP
        senders = {("incast_cnp", s.target) for s in rail.senders}
        return {
            ("incast_ecn_marks", edge),
            ("incast_ecn_marks", receiver),
            ("incast_cnp", receiver),
        } | senders
    # PFC on another priority: the lossless class drops at the receiver's edge and loses goodput
    return {
        ("incast_lossless_drops", edge),
        ("incast_lossless_drops", receiver),
        ("incast_bandwidth", receiver),
    }


def pfc_on_4(config: str) -> str:
    """PFC on switch priority 4 in every PFC profile, instead of the lossless priority 3."""
    return "\n".join(
        line.replace(" switch-priority 3", " switch-priority 4")
        if line.startswith("nv set qos pfc ")
        else line
        for line in config.split("\n")
    )


def assert_stopped_and_rolled_back(
    paths: LabPaths,
    run_: subprocess.CompletedProcess[str],
    out: Path,
    failing: set[tuple[str, str]],
    v1: list[str],
) -> None:
    said = " ".join((run_.stdout + run_.stderr).split())  # Ansible folds long lines
    assert run_.returncode != 0
    assert f"{CANARY} is back on its previous intent from" in said
    failures = gate_failures(out)
    assert failures == failing, failures
    assert sorted(running(paths)) == sorted(v1), "the canary is back on v1"
    hosts = recap(run_.stdout)
    assert "spine01" not in hosts, "the run stopped before the spines"
    assert {name: h["changed"] for name, h in hosts.items() if h["changed"]} == {CANARY: 2}  # push, rollback


def test_broken_policies_are_rolled_back_and_the_rendered_one_goes_on(
    first_deploy, lab, tmp_path: Path
) -> None:
    assert first_deploy.returncode == 0
    # The switches back on the rendered intent (test_lab's last fault leaves leaf02 factory-reset).
    switches = run("ansible-playbook", "playbooks/switches.yml", "-i", INVENTORY)
    assert switches.returncode == 0
    intended = tmp_path / "intended"
    shutil.copytree(REPO_ROOT / "intended" / "lab", intended / "lab")
    git(intended, "init", "-q")
    git(intended, "add", ".")
    git(intended, "commit", "-q", "-m", "v1: as rendered, as site.yml pushed it")
    v1 = running(lab)
    config = intended / "lab" / f"{CANARY}.cfg"
    rendered = config.read_text()
    assert ECN_LINE + "\n" in rendered and pfc_on_4(rendered) != rendered

    config.write_text(rendered.replace(ECN_LINE + "\n", "", 1))
    git(intended, "commit", "-q", "-am", "v2: ECN off on the lossless TC")
    stopped = canary(intended, tmp_path / "ecn-off")
    failing = {("switch_ecn", CANARY)} | incast_failures(tmp_path / "ecn-off", "ecn")
    assert_stopped_and_rolled_back(lab, stopped, tmp_path / "ecn-off", failing, v1)

    # The good policy: the rendered one, committed again after the failed v2, goes on to every switch.
    config.write_text(rendered)
    git(intended, "commit", "-q", "-am", "v3: as rendered again")
    went_on = canary(intended, tmp_path / "rendered")
    assert went_on.returncode == 0
    assert gate_failures(tmp_path / "rendered") == set()
    rail = canary_rail(tmp_path / "rendered")
    judged = {rail.receiver_port.target, rail.receiver_target, *(s.target for s in rail.senders)}
    passed = {check for check, target in gate_results(tmp_path / "rendered", "pass") if target in judged}
    assert passed == INCAST_JUDGED, "the canary's rail was judged on its simulated traffic, not skipped"
    hosts = recap(went_on.stdout)
    assert {"leaf01", CANARY, "spine01"} <= set(hosts), "every switch is reached after the gate"
    assert sorted(running(lab)) == sorted(v1)

    config.write_text(pfc_on_4(rendered))
    git(intended, "commit", "-q", "-am", "v4: PFC on priority 4")
    stopped = canary(intended, tmp_path / "pfc-on-4")
    failing = {("switch_pfc", CANARY)} | incast_failures(tmp_path / "pfc-on-4", "pfc")
    assert_stopped_and_rolled_back(lab, stopped, tmp_path / "pfc-on-4", failing, v1)
