"""The canary wave (gpunet.netdev.rollout): which leaves go first, which hosts the gate judges, and
each canary's previous intent from Git, over inventories/prod and throw-away Git repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gpunet.model.check import load_fabric
from gpunet.netdev.rollout import (
    RolloutError,
    choose_canaries,
    hosts_behind,
    plan_canary,
    previous_intent,
    running_intent,
)
from tests.conftest import REPO_ROOT

PROD = load_fabric(REPO_ROOT / "inventories" / "prod")
PROD_LEAVES = [f"leaf0{n}" for n in range(1, 9)]
PROD_HOSTS = [f"gpu0{n}" for n in range(1, 9)]


@pytest.mark.parametrize(
    ("named", "canaries", "hosts"),
    [
        # prod: rail r of every node on leaf(r+1), so one leaf per rail is every leaf
        ((), PROD_LEAVES, PROD_HOSTS),
        (("leaf05",), ["leaf05"], PROD_HOSTS),
        (("leaf03", "leaf01", "leaf03"), ["leaf01", "leaf03"], PROD_HOSTS),
    ],
)
def test_canaries_and_the_hosts_behind_them(
    named: tuple[str, ...], canaries: list[str], hosts: list[str]
) -> None:
    chosen = choose_canaries(PROD, named)
    assert chosen == canaries
    assert hosts_behind(PROD, chosen) == hosts


def test_a_wave_of_every_leaf_says_so(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    intended = tmp_path / "prod"
    for leaf in PROD_LEAVES:
        commit(tmp_path, intended / f"{leaf}.cfg", "v1\n", leaf)
        (intended / f"{leaf}.cfg").write_text("v2\n")
    assert "every leaf" in plan_canary(PROD, intended).note
    assert plan_canary(PROD, intended, ["leaf01"]).note == ""


@pytest.mark.parametrize(("named", "why"), [(("spine01",), "spine01, not a leaf"), (("leaf99",), "leaf99")])
def test_a_canary_that_is_not_a_leaf_is_refused(named: tuple[str, ...], why: str) -> None:
    with pytest.raises(RolloutError, match=why):
        choose_canaries(PROD, named)


def test_no_host_behind_a_leaf_gives_no_canary_to_judge() -> None:
    empty = load_fabric(REPO_ROOT / "inventories" / "prod")
    object.__setattr__(empty, "hosts", {})
    with pytest.raises(RolloutError, match="no GPU host NIC on a leaf"):
        choose_canaries(empty)


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def commit(folder: Path, path: Path, text: str, message: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(folder, "add", str(path))
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    return tmp_path


def test_previous_intent_is_the_newest_committed_version_that_differs(repo: Path) -> None:
    config = repo / "intended" / "prod" / "leaf01.cfg"
    first = commit(repo, config, "v1\n", "v1")
    second = commit(repo, config, "v2\n", "v2")
    commit(repo, repo / "other.txt", "x", "unrelated")
    commit(repo, config, "v3\n", "v3")
    assert previous_intent(config) == (second, "v2\n")
    # An uncommitted edit: the last reviewed (committed) version is what rolls back.
    config.write_text("v4 not committed\n")
    assert previous_intent(config)[1] == "v3\n"
    # Back to a version Git holds: the newest other one.
    config.write_text("v2\n")
    assert previous_intent(config)[1] == "v3\n"
    assert first != second


@pytest.mark.parametrize(
    ("history", "why"),
    [
        (["v1\n"], "no earlier version"),  # the file's first rollout
        ([], "no earlier version"),  # never committed
    ],
)
def test_no_previous_intent_is_refused(repo: Path, history: list[str], why: str) -> None:
    config = repo / "intended" / "prod" / "leaf01.cfg"
    for n, text in enumerate(history):
        commit(repo, config, text, f"v{n}")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("v1\n")
    with pytest.raises(RolloutError, match=why):
        previous_intent(config)


def test_outside_git_there_is_no_previous_intent(tmp_path: Path) -> None:
    config = tmp_path / "leaf01.cfg"
    config.write_text("v1\n")
    with pytest.raises(RolloutError, match="not in a Git repository"):
        previous_intent(config)


def test_plan_refuses_a_canary_without_a_reviewed_config(repo: Path) -> None:
    intended = repo / "intended" / "prod"
    commit(repo, intended / "leaf01.cfg", "v1\n", "v1")
    (intended / "leaf01.cfg").write_text("v2\n")
    plan = plan_canary(PROD, intended, ["leaf01"])
    assert (plan.canaries, plan.previous["leaf01"].config) == (("leaf01",), "v1\n")
    assert plan.rest == tuple(PROD_LEAVES[1:])
    with pytest.raises(RolloutError, match="no reviewed config for leaf02"):
        plan_canary(PROD, intended, ["leaf01", "leaf02"])


def test_the_cli_writes_the_rollback_intents_as_intended_is_laid_out(repo: Path) -> None:
    intended = repo / "intended" / "prod"
    commit(repo, intended / "leaf02.cfg", "old leaf02\n", "v1")
    (intended / "leaf02.cfg").write_text("new leaf02\n")
    out = repo / "rollout"
    run = subprocess.run(
        [str(REPO_ROOT / ".venv/bin/gpunet"), "rollout-plan", "-i", str(REPO_ROOT / "inventories/prod"),
         "--canary", "leaf02", "--intended-dir", str(intended), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    plan = json.loads(run.stdout)
    assert plan == json.loads((out / "plan.json").read_text())
    assert (plan["canaries"], plan["hosts"], plan["fabric"]) == (["leaf02"], PROD_HOSTS, "prod")
    assert (out / "previous" / "prod" / "leaf02.cfg").read_text() == "old leaf02\n"
    refused = subprocess.run(
        [str(REPO_ROOT / ".venv/bin/gpunet"), "rollout-plan", "-i", str(REPO_ROOT / "inventories/prod"),
         "--canary", "spine01", "--intended-dir", str(intended), "--out", str(repo / "refused")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode == 2 and "spine01, not a leaf" in refused.stderr
    assert not (repo / "refused").exists()


def versions(name: str) -> tuple[str, str, str]:
    """v1 as rendered, v2 without its ECN line (a broken policy), v3 without its last owned line."""
    v1 = (REPO_ROOT / "intended" / "prod" / f"{name}.cfg").read_text()
    lines = v1.splitlines()
    ecn = next(line for line in lines if " ecn" in line)
    v2 = "\n".join(line for line in lines if line != ecn) + "\n"
    v3 = "\n".join(lines[:-1]) + "\n"
    return v1, v2, v3


@pytest.mark.parametrize("name", ["leaf01", "leaf05"])  # NX-OS, Cumulus
@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ("v1", "v1"),  # v2 was committed, failed its gate and was rolled back; now v3 is pushed
        ("v2", "v2"),  # the canary does run v2
        ("drift", None),  # it runs a line no committed version has
    ],
)
def test_the_rollback_is_the_version_the_canary_ran(
    repo: Path, name: str, runs: str, expected: str | None
) -> None:
    v1, v2, v3 = versions(name)
    config = repo / "intended" / "prod" / f"{name}.cfg"
    commits = {"v1": commit(repo, config, v1, "v1"), "v2": commit(repo, config, v2, "v2")}
    commit(repo, config, v3, "v3")
    running = {"v1": v1, "v2": v2, "drift": v1.replace(" ecn", " ecn\n    shutdown", 1)}[runs]
    found = running_intent(config, PROD.switches[name], running)
    assert previous_intent(config) == (commits["v2"], v2)  # the plan's choice, before the push
    assert found == (None if expected is None else (commits[expected], {"v1": v1, "v2": v2}[expected]))


def test_rollout_previous_rewrites_the_rollback_to_what_the_canary_ran(repo: Path) -> None:
    v1, v2, v3 = versions("leaf01")
    intended = repo / "intended" / "prod"
    first = commit(repo, intended / "leaf01.cfg", v1, "v1")
    commit(repo, intended / "leaf01.cfg", v2, "v2")
    commit(repo, intended / "leaf01.cfg", v3, "v3")
    out = repo / "rollout"
    gpunet = str(REPO_ROOT / ".venv/bin/gpunet")
    inventory = str(REPO_ROOT / "inventories/prod")
    planned = subprocess.run(
        [gpunet, "rollout-plan", "-i", inventory, "--canary", "leaf01", "--intended-dir", str(intended),
         "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    rollback = out / "previous" / "prod" / "leaf01.cfg"
    assert rollback.read_text() == v2  # the newest earlier version: the broken v2

    def previous(running: str) -> subprocess.CompletedProcess[str]:
        backup = repo / "backup.cfg"
        backup.write_text(running)
        return subprocess.run(
            [gpunet, "rollout-previous", "-i", inventory, "--plan", str(out / "plan.json"),
             "--switch", "leaf01", "--running", str(backup)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip

    drifted = previous(v1.replace(" ecn", " ecn\n    shutdown", 1))
    assert drifted.returncode == 0, drifted.stderr
    assert json.loads(drifted.stdout)["matched"] is False
    assert "ran no committed version" in json.loads(drifted.stdout)["note"]
    assert rollback.read_text() == v2  # nothing better known: the plan's choice stays
    ran_v1 = previous(v1)
    assert ran_v1.returncode == 0, ran_v1.stderr
    assert json.loads(ran_v1.stdout) == {"switch": "leaf01", "commit": first, "matched": True, "note": ""}
    assert rollback.read_text() == v1
    missing = subprocess.run(
        [gpunet, "rollout-previous", "-i", inventory, "--plan", str(out / "plan.json"), "--switch", "leaf01",
         "--running", str(repo / "no-such-backup.cfg")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert missing.returncode == 2 and "no-such-backup.cfg" in missing.stderr
