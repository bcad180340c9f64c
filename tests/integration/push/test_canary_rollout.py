"""playbooks/switches.yml -e gpunet_rollout=canary end to end: ansible-playbook -> gpunet rollout-plan
(previous intent from a real Git history) -> push to the canary -> gpunet-validate gate -> rollback
or the rest, against simulated switches on 127.0.0.1.

The gate judges recorded artifacts (tests/fixtures/artifacts: a healthy fabric and one with a slow
NIC, four hosts of prod) with the real gpunet-validate, because the GPU hosts and their traffic do
not exist here; the gate's collection path (-i) is the one test_live_collection drives.

The policy cases (test_a_broken_policy_on_a_sonic_canary_is_stopped_by_its_incast_evidence) make the
gate's verdict come from the policy itself: the canary is a SONiC leaf, and the incast stage's
artifacts are the simulator's traffic model (gpunet.lab.switchsim.traffic, a labelled SIMULATION)
run on the CONFIG_DB the canary push sends, judged by the six incast checks.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import apply_load, rail_loads
from gpunet.model.check import load_fabric
from gpunet.netdev.rollout_gate import GATE_CHECKS
from gpunet.render import render_fabric
from gpunet.validate.incast import AFTER, BEFORE, incast_plan
from gpunet.validate.manifest import build_manifest
from tests.conftest import REPO_ROOT
from tests.integration.push.test_playbook import configs, lab_copy_of_prod, push, recap
from tests.unit.validate.test_incast_checks import Incast, _artifacts
from tests.unit.validate.test_incast_checks_simulated import SWITCH_SIDE, _captures, _ecn_off, _pfc_on_4

ARTIFACTS = REPO_ROOT / "tests" / "fixtures" / "artifacts"
DROPPED = "    pause pfc-cos 3\n"  # the v2 policy change on the NX-OS leaves


def block_tree(lines: list[str]) -> tuple:
    """A CLI config as its blocks, each block's children in order-free form: NX-OS prints a class's
    lines in its own order, the simulator in the order they were typed, and both mean the same."""
    roots: list[tuple[str, list]] = []
    stack: list[tuple[int, list]] = [(-1, roots)]
    for line in lines:
        depth = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        children: list = []
        stack[-1][1].append((line.strip(), children))
        stack.append((depth, children))

    def freeze(nodes: list) -> tuple:
        return tuple(sorted((text, freeze(kids)) for text, kids in nodes))

    return freeze(roots)


def canonical(states: dict) -> dict:
    return {name: block_tree(c) if isinstance(c, list) else c for name, c in states.items()}


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True,
        check=True,
    )


def canary(lab: dict, tmp_path: Path, gate: str, name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return push(
        lab,
        "-e", "gpunet_rollout=canary",
        "-e", "gpunet_canary=leaf01",
        "-e", f"switches_rollout_dir={tmp_path / name}",
        "-e", f"switches_rollout_gate_artifacts={ARTIFACTS / gate}",
        "-e", "switches_rollout_gate_hosts=gpu01,gpu02,gpu03,gpu04",
        *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def pushed_v1(fleet, tmp_path_factory):
    """prod on simulators, on its v1 intent (committed in Git and pushed), once for the module: the
    first push is the slowest step of every case, and each case only needs where it leaves things."""
    lab = lab_copy_of_prod(tmp_path_factory.mktemp("v1"), fleet, reject={})
    git(lab["intended"], "init", "-q")
    git(lab["intended"], "add", ".")
    git(lab["intended"], "commit", "-q", "-m", "v1")
    first = push(lab)
    assert first.returncode == 0, first.stdout[-3000:]
    states = fleet.call(lambda: {name: copy.deepcopy(sim.state) for name, sim in lab["sims"].items()})
    return lab, states


@pytest.fixture
def lab(fleet, pushed_v1, tmp_path):
    """A case's own copy of the v1 folders (inventory, intended/ with its Git history, backups), and
    every simulated switch back on the state the v1 push left: no pending confirm, no later history."""
    v1, states = pushed_v1

    def restore() -> None:
        for name, sim in v1["sims"].items():
            sim.cancel_confirm_timer()
            sim.state = copy.deepcopy(states[name])
            sim.changed_once = False
            sim.persist()

    fleet.call(restore)
    lab = {"sims": v1["sims"]}
    for key in ("inventory", "intended", "backups"):
        if v1[key].exists():
            shutil.copytree(v1[key], tmp_path / key, symlinks=True)
        lab[key] = tmp_path / key
    return lab


def change_nxos_leaves(lab: dict) -> None:
    for leaf in ("leaf01", "leaf02"):
        path = lab["intended"] / "prod" / f"{leaf}.cfg"
        path.write_text(path.read_text().replace(DROPPED, "", 1))
    git(lab["intended"], "commit", "-q", "-am", "v2: no PFC on cos 3")


def test_a_failed_gate_rolls_the_canary_back_and_pushes_nothing_else(fleet, lab, tmp_path):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)
    result = canary(lab, tmp_path, "bad_nic", "failed")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "the canary gate failed (exit 4" in output and "gpunet-validate exit 4 (failed)" in output
    assert "leaf01 is back on its previous intent from" in output, output[-6000:]
    assert "exit code 4" in (tmp_path / "failed" / "gate.md").read_text()
    assert canonical(configs(fleet, lab)) == canonical(v1), "the canary is back on v1, nothing else pushed"
    counts = recap(result.stdout)
    assert set(counts) == {"leaf01"}, counts  # the run stopped after the canary's play
    assert counts["leaf01"]["changed"] == 2  # the canary push and its rollback


def test_the_rollback_is_the_version_the_canary_ran_not_a_later_undeployed_one(fleet, lab, tmp_path):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)  # v2, committed and never pushed (say it failed a gate elsewhere)
    path = lab["intended"] / "prod" / "leaf01.cfg"
    v3 = path.read_text().replace("maximum-threshold 1500 kbytes", "maximum-threshold 1400 kbytes", 1)
    assert v3 != path.read_text()
    path.write_text(v3)
    git(lab["intended"], "commit", "-q", "-am", "v3: v2 with another ECN maximum")
    result = canary(lab, tmp_path, "bad_nic", "after-v2")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    first = subprocess.run(
        ["git", "-C", str(lab["intended"]), "rev-list", "--max-parents=0", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    plan = json.loads((tmp_path / "after-v2" / "plan.json").read_text())
    assert plan["previous"]["leaf01"] != first  # the plan's choice before the push: v2
    said = " ".join(output.split())  # Ansible folds long messages
    assert f"leaf01 is back on its previous intent from {first[:12]}" in said, output[-6000:]
    assert canonical(configs(fleet, lab)) == canonical(v1), "the canary runs v1 again, not the broken v2"


def test_a_passed_gate_goes_on_to_the_other_leaves_and_the_spines(fleet, lab, tmp_path):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)
    result = canary(lab, tmp_path, "healthy", "passed")
    assert result.returncode == 0, result.stdout[-3000:]
    v2 = configs(fleet, lab)
    assert {name for name in v2 if canonical(v2)[name] != canonical(v1)[name]} == {"leaf01", "leaf02"}
    assert "exit code 0" in (tmp_path / "passed" / "gate.md").read_text()
    counts = recap(result.stdout)
    assert sorted(counts) == sorted(lab["sims"]), "every switch is reached after the gate"
    assert {name: c["changed"] for name, c in counts.items() if c["changed"]} == {"leaf01": 1, "leaf02": 1}


@pytest.mark.parametrize(
    ("before", "after", "goes_on", "said"),
    [
        # the slow NIC was there before the push: not the policy's doing, the rollout goes on
        ("bad_nic", "bad_nic", True, "0 new problem(s), 4 already there before"),
        # it appeared with the push: the canary is rolled back
        ("healthy", "bad_nic", False, "4 new problem(s), 0 already there before"),
        ("bad_nic", "healthy", True, "0 new problem(s), 0 already there before, 4 fixed"),
    ],
)
def test_a_baseline_gate_stops_only_on_what_got_worse(fleet, lab, tmp_path, before, after, goes_on, said):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)
    result = canary(
        lab, tmp_path, after, "baseline",
        "-e", "switches_rollout_baseline=true",
        "-e", f"switches_rollout_baseline_artifacts={ARTIFACTS / before}",
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert (result.returncode == 0) is goes_on, output[-3000:]
    assert said in " ".join(output.split()), output[-4000:]  # the callback wraps long lines
    assert all((tmp_path / "baseline" / f"{phase}.json").is_file() for phase in ("before", "after"))
    changed = {name for name, c in canonical(configs(fleet, lab)).items() if c != canonical(v1)[name]}
    assert changed == ({"leaf01", "leaf02"} if goes_on else set())


def test_a_canary_without_a_previous_intent_is_refused_before_any_push(fleet, lab, tmp_path):
    # v1 is the only version Git holds: a failed gate would have nothing to roll back to.
    v1 = configs(fleet, lab)
    leaf01 = lab["intended"] / "prod" / "leaf01.cfg"
    leaf01.write_text(leaf01.read_text().replace(DROPPED, "", 1))  # not committed: HEAD is v1
    assert canary(lab, tmp_path, "healthy", "control").returncode == 0  # HEAD's v1 is the rollback
    git(lab["intended"], "commit", "-q", "-am", "v2")
    git(lab["intended"], "checkout", "-q", "--orphan", "fresh")  # a history that holds only v2
    git(lab["intended"], "commit", "-q", "-m", "v2, first commit")
    refused = canary(lab, tmp_path, "healthy", "refused")
    assert refused.returncode != 0
    assert "Git holds no earlier version" in refused.stdout + refused.stderr
    assert configs(fleet, lab)["leaf02"] == v1["leaf02"]


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (("-e", "gpunet_rollout=everything"), "gpunet_rollout is all (the default) or canary"),
        (("-e", "gpunet_rollout=canary", "--limit", "leaf01"), "drop --limit"),
        (("-e", "gpunet_rollout=canary", "-e", "gpunet_canary=spine01"), "spine01, not a leaf"),
    ],
)
def test_a_rollout_asked_wrongly_is_refused_before_any_push(fleet, lab, tmp_path, extra, why):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)
    result = push(lab, "-e", f"switches_rollout_dir={tmp_path / 'x'}", *extra)
    assert result.returncode != 0
    assert why in result.stdout + result.stderr
    assert configs(fleet, lab) == v1


def test_check_mode_shows_the_canary_wave_and_changes_nothing(fleet, lab, tmp_path):
    v1 = configs(fleet, lab)
    change_nxos_leaves(lab)
    result = canary(lab, tmp_path, "bad_nic", "checked", "--check", "--diff")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "canaries leaf01;" in result.stdout
    shown = result.stdout.split("+++ leaf01 intended", 1)[1]
    assert "no pause pfc-cos 3" in shown, shown[:2000]  # what the push would send
    assert not (tmp_path / "checked" / "gate.md").exists(), "nothing pushed, nothing to judge"
    assert configs(fleet, lab) == v1


SONIC_CANARY = "leaf07"  # prod's rail 6 leaf, SONiC
# The gate's checks here: the six of the incast stage (the generated artifacts hold no pair tests).
INCAST_CHECKS = ",".join(c for c in GATE_CHECKS if c.startswith("incast_"))


def write_sonic_policy(lab: dict, leaf: str, change: Callable[[dict[str, Any]], None], message: str) -> dict:
    """The leaf's CONFIG_DB as rendered, changed by `change`, written to intended/prod/<leaf>.cfg as
    gpunet render writes it, and committed."""
    config = render_fabric(load_fabric(lab["inventory"]))[leaf].config
    config = json.loads(config)
    change(config)
    path = lab["intended"] / "prod" / f"{leaf}.cfg"
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    git(lab["intended"], "commit", "-q", "-am", message)
    return config


def incast_artifacts(lab: dict, folder: Path, leaf: str, config: dict[str, Any]) -> Path:
    """The incast stage's artifacts of the lab's prod plan (test_incast_checks: a good incast on
    every rail), with `leaf`'s captures replaced by what the simulated SONiC prints before and after
    the modelled load under `config`, the CONFIG_DB the canary push sends it."""
    fabric = load_fabric(lab["inventory"])
    plan = incast_plan(fabric)
    _artifacts(folder, build_manifest(fabric), plan, Incast())
    state = SwitchState("sonic", leaf, config=copy.deepcopy(config), ports=sorted(config["PORT"]))
    phases = {BEFORE: _captures(state)}
    for rail in plan:
        for switch, load in rail_loads(rail).items():
            if switch == leaf:
                apply_load(state, load)
    phases[AFTER] = _captures(state)
    for phase, captures in phases.items():
        for tool, text in captures.items():
            (folder / "switches" / leaf / phase / f"{tool}.txt").write_text(text)
    return folder


def as_rendered(config: dict[str, Any]) -> None:
    pass


@pytest.mark.parametrize(
    ("policy", "before", "change", "failing"),
    [
        # A fix of a broken fabric goes on to the other leaves and the spines.
        ("as rendered", _ecn_off, as_rendered, set()),
        # ECN off: the receiver's lossless queue never marks (DCQCN is not engaged).
        ("ECN off", as_rendered, _ecn_off, {"incast_ecn_marks"}),
        # PFC on priority 4: the lossless class is not paused, its queue overflows and drops.
        ("PFC on priority 4", as_rendered, _pfc_on_4, {"incast_lossless_drops"}),
    ],
)  # fmt: skip
def test_a_broken_policy_on_a_sonic_canary_is_stopped_by_its_incast_evidence(
    fleet, lab, tmp_path, policy, before, change, failing
):
    if before is not as_rendered:  # the canary's previous intent is that policy, pushed and in Git
        write_sonic_policy(lab, SONIC_CANARY, before, "v1: the previous policy")
        assert push(lab, "--limit", SONIC_CANARY).returncode == 0
    pushed = write_sonic_policy(lab, SONIC_CANARY, change, f"v2: {policy}")
    v1 = configs(fleet, lab)
    gate_artifacts = incast_artifacts(lab, tmp_path / "gate-artifacts", SONIC_CANARY, pushed)
    result = push(
        lab,
        "-e", "gpunet_rollout=canary",
        "-e", f"gpunet_canary={SONIC_CANARY}",
        "-e", f"switches_rollout_dir={tmp_path / 'rollout'}",
        "-e", f"switches_rollout_gate_artifacts={gate_artifacts}",
        "-e", f"switches_rollout_gate_checks={INCAST_CHECKS}",
    )  # fmt: skip
    output = result.stdout + result.stderr
    judged_report = tmp_path / "rollout" / "after.json"
    assert judged_report.is_file(), output[-4000:]
    results = json.loads(judged_report.read_text())["results"]
    # Other OSes' ports are skipped where their counter is not collected (docs/validation.md), never passed.
    failed = {(r["check"], r["target"]) for r in results if r["status"] in ("fail", "error")}
    receivers = {r.receiver_port.target for r in incast_plan(load_fabric(lab["inventory"]))}
    on_canary = {t for t in receivers if t.startswith(f"{SONIC_CANARY}:")}
    assert on_canary, "the canary receives an incast"
    assert failed == {(check, edge) for check in failing for edge in on_canary}, (policy, failed)
    judged = {
        r["check"]
        for r in results
        if r["target"].startswith(f"{SONIC_CANARY}:") and r["status"] in ("pass", "fail")
    }
    assert judged == set(SWITCH_SIDE), "every switch-side check judged the canary's ports, none skipped"
    counts = recap(result.stdout)
    after = configs(fleet, lab)
    if failing:
        assert result.returncode != 0, output[-3000:]
        assert f"{SONIC_CANARY} is back on its previous intent from" in output, output[-6000:]
        assert after == v1, "the canary is back on its previous intent, nothing else pushed"
        # The run stopped after the canary's play: besides the canary, only the planning play's
        # first leaf (its run_once tasks) is in the recap, and it changed nothing.
        assert set(counts) <= {SONIC_CANARY, "leaf01"}, counts
        assert {name: c["changed"] for name, c in counts.items() if c["changed"]} == {SONIC_CANARY: 2}
    else:
        assert result.returncode == 0, output[-3000:]
        assert sorted(counts) == sorted(lab["sims"]), "every switch is reached after the gate"
        assert {name for name in after if after[name] != v1[name]} == {SONIC_CANARY}
        # Each entry the push sent of the tables the policies differ in is what the canary runs (the
        # simulated SONiC keeps its factory entries beside them), so the gate judged that policy.
        running = after[SONIC_CANARY]
        sent = {(t, key): value for t in ("WRED_PROFILE", "PORT_QOS_MAP") for key, value in pushed[t].items()}
        assert {(t, key): running[t].get(key) for t, key in sent} == sent
