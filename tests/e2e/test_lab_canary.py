"""A canary QoS rollout in the lab (issue 31): playbooks/switches.yml -e gpunet_rollout=canary with
leaf02 (Cumulus, rail 1) as the canary and the lab's four nodes behind it, previous intent from a
Git copy of intended/lab. The lab cannot run the incast stage yet: leaf02's Cumulus has a traffic
model (gpunet.lab.switchsim.traffic_nvue), but the nodes have no RDMA NIC and no perftest stand-in
to drive it (docs/validation.md), so the gate's traffic checks skip there and the
policy is judged by switch_ecn and switch_pfc on what the running simulator prints (`nv show qos
roce`, built from its configured lines): ECN off on the lossless TC, and PFC on priority 4, are
each stopped and leaf02 pushed back to v1; the rendered policy between them goes on to leaf01 and
spine01. The same playbook path, with the incast checks judging a SONiC canary, is
tests/integration/push/test_canary_rollout.py.

Its first runs found two bugs of the live gate (1e69b63: gpunet-validate -i looked for
playbooks/playbooks/verify.yml; 0d8ca52: incast checks were errors on hosts without RDMA NICs);
since, it passes in 3 min 7 s on 2 cores under a load of 4 on the shared lab (tests/e2e/conftest.py:
the switches pushed over what test_lab left, three canary runs).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpunet.lab.paths import LabPaths
from gpunet.lab.state import LabState
from tests.conftest import REPO_ROOT
from tests.e2e.test_lab import INVENTORY, REJECTED_LINE, recap, run

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

CANARY = "leaf02"
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


def gate_failures(out: Path) -> set[tuple[str, str]]:
    results = json.loads((out / "after.json").read_text())["results"]
    return {(r["check"], r["target"]) for r in results if r["status"] in ("fail", "error")}


def pfc_on_4(config: str) -> str:
    """PFC on switch priority 4 in every PFC profile, instead of the lossless priority 3."""
    return "\n".join(
        line.replace(" switch-priority 3", " switch-priority 4")
        if line.startswith("nv set qos pfc ")
        else line
        for line in config.split("\n")
    )


def assert_stopped_and_rolled_back(
    paths: LabPaths, run_: subprocess.CompletedProcess[str], out: Path, failing: str, v1: list[str]
) -> None:
    said = " ".join((run_.stdout + run_.stderr).split())  # Ansible folds long lines
    assert run_.returncode != 0
    assert f"{CANARY} is back on its previous intent from" in said
    failures = gate_failures(out)
    assert failures == {(failing, CANARY)}, failures
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
    assert_stopped_and_rolled_back(lab, stopped, tmp_path / "ecn-off", "switch_ecn", v1)

    # The good policy: the rendered one, committed again after the failed v2, goes on to every switch.
    config.write_text(rendered)
    git(intended, "commit", "-q", "-am", "v3: as rendered again")
    went_on = canary(intended, tmp_path / "rendered")
    assert went_on.returncode == 0
    assert gate_failures(tmp_path / "rendered") == set()
    hosts = recap(went_on.stdout)
    assert {"leaf01", CANARY, "spine01"} <= set(hosts), "every switch is reached after the gate"
    assert sorted(running(lab)) == sorted(v1)

    config.write_text(pfc_on_4(rendered))
    git(intended, "commit", "-q", "-am", "v4: PFC on priority 4")
    stopped = canary(intended, tmp_path / "pfc-on-4")
    assert_stopped_and_rolled_back(lab, stopped, tmp_path / "pfc-on-4", "switch_pfc", v1)
