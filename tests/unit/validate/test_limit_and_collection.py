"""`--limit` never drops a check silently, and a collection playbook that fails before collecting
is one clear error (issue 29): judged over the committed artifact fixtures and a stand-in for
ansible-runner (the playbook itself is not run here)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpunet.validate import runner
from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.limit import left_out_by_collection, write_left_out
from gpunet.validate.manifest import read_manifest
from gpunet.validate.results import Status, exit_code
from tests.conftest import FIXTURES_DIR, REPO_ROOT

BAD_NIC = FIXTURES_DIR / "artifacts" / "bad_nic"  # slow and down NICs: some pairs fail
HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"


def _failed_pairs(results: list) -> set[str]:
    return {r.target for r in results if r.check == "pair_bandwidth" and r.status == Status.FAIL}


@pytest.mark.parametrize("host", ["gpu01", "gpu02", "gpu03", "gpu04"])
def test_a_limited_host_with_a_failing_path_fails(host: str) -> None:
    touching = {target for target in _failed_pairs(judge(BAD_NIC).results) if f"{host}:" in target}
    verdict = judge(BAD_NIC, limit={host})
    assert touching and _failed_pairs(verdict.results) == touching
    assert exit_code(verdict.results) == 4
    # The other ends take part as partners only: none of their own host checks is reported.
    for result in verdict.results:
        hosts = {end.split(":")[0] for end in result.target.split("<->")} & set(verdict.manifest.hosts)
        assert not hosts or host in hosts, result


def test_every_pair_touching_the_limit_is_judged() -> None:
    full = judge(HEALTHY)
    limited = judge(HEALTHY, limit={"gpu01"})
    touching = {r.target for r in full.results if r.check == "pair_latency" and "gpu01:" in r.target}
    assert {r.target for r in limited.results if r.check == "pair_latency"} == touching
    assert {r.target for r in limited.results if r.check == "nccl_busbw"} == {
        "nccl:single-gpu01",
        "nccl:all-nodes",
    }


def test_a_limited_collection_lists_what_it_could_not_run(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    full = read_manifest(HEALTHY)
    # What `-i --limit gpu01` collects: gpu01 alone, so no pair, no multi-node run, no iperf3.
    collected = replace(
        full,
        hosts={"gpu01": full.hosts["gpu01"]},
        pair_rounds=[[] for _ in full.pair_rounds],
        nccl_runs={"single-gpu01": full.nccl_runs["single-gpu01"]},
        iperf3_pairs=[],
    )
    write_left_out(folder, {"gpu01"}, left_out_by_collection(full, collected, {"gpu01"}))
    results = judge(folder, limit={"gpu01"}).results
    left_out = [r for r in results if r.actual == "not run"]
    expected_pairs = {
        r.target for r in judge(HEALTHY).results if r.check == "pair_bandwidth" and "gpu01:" in r.target
    }
    assert {r.target for r in left_out if r.check == "pair_bandwidth"} == expected_pairs
    assert {r.target for r in left_out if r.check == "nccl_busbw"} == {"nccl:all-nodes"}
    assert {r.target for r in left_out if r.check == "iperf3_throughput"} == {
        "gpu01<->gpu02",
        "gpu04<->gpu01",
    }
    assert all(r.status == Status.NOT_CHECKED and "outside the limit" in r.message for r in left_out)
    gpu02 = next(r for r in left_out if r.target == "gpu01<->gpu02")
    assert "gpu02 outside the limit" in gpu02.message and "--limit gpu01" in gpu02.message


def _fake_runner(monkeypatch: pytest.MonkeyPatch, rc: int, stdout: str, events: list[dict[str, Any]]) -> dict:
    import ansible_runner

    seen: dict[str, Any] = {}

    def fake_run(**kwargs: Any) -> SimpleNamespace:
        seen.update(kwargs)
        for event in events:
            kwargs["event_handler"](event)
        artifact_dir = Path(kwargs["private_data_dir"]) / "artifacts" / "job"
        artifact_dir.mkdir(parents=True)
        (artifact_dir / "stdout").write_text(stdout)
        return SimpleNamespace(rc=rc, config=SimpleNamespace(artifact_dir=str(artifact_dir)))

    monkeypatch.setattr(ansible_runner, "run", fake_run)
    monkeypatch.setenv(runner.PROJECT_DIR_VARIABLE, str(REPO_ROOT))
    return seen


# (what ansible-playbook printed before any task ran, the line the error must carry)
BEFORE_COLLECTING = [
    ("[ERROR]: The vault password file /tmp/x/pw was not found\n", "The vault password file /tmp/x/pw was"),
    ("ERROR! the playbook: playbooks/verify.yml could not be found\n", "the playbook: playbooks/verify.yml"),
    ("[WARNING]: no inventory\n[ERROR]: couldn't resolve module/action 'gpunet.fabric.x'\n",
     "couldn't resolve module/action 'gpunet.fabric.x'"),
]  # fmt: skip


@pytest.mark.parametrize(("stdout", "line"), BEFORE_COLLECTING)
def test_a_playbook_failing_before_collecting_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    stdout: str,
    line: str,
) -> None:
    _fake_runner(monkeypatch, 1, stdout, [{"event": "playbook_on_start"}])
    output = tmp_path / "report.json"
    code = main(["-i", str(MINIMAL), "--artifacts", str(tmp_path / "a"), "--quiet", "--format", "json",
                 "--output", str(output)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert f"failed before collecting anything (exit 1): {line}" in err
    assert str(tmp_path / "a" / ".runner" / "artifacts" / "job" / "stdout") in err
    assert not output.exists()  # nothing was judged: no 32 errors about unreachable hosts


def test_a_playbook_failing_after_collecting_is_judged(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = [{"event": "runner_on_failed", "event_data": {"host": "gpu01"}}]
    _fake_runner(monkeypatch, 2, "fatal: [gpu01]: FAILED!\n", events)
    output = tmp_path / "report.json"
    code = main(["-i", str(MINIMAL), "--artifacts", str(tmp_path / "a"), "--quiet", "--format", "json",
                 "--output", str(output)])  # fmt: skip
    assert "verify playbook exited 2; judging what was collected" in capsys.readouterr().err
    assert code == 3 and json.loads(output.read_text())["results"]


def test_a_relative_vault_password_file_reaches_the_playbook_resolved(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = _fake_runner(monkeypatch, 1, "[ERROR]: stop here\n", [])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pw").write_text("secret\n")
    main(["-i", str(MINIMAL), "--artifacts", "a", "--quiet", "--vault-password-file", "pw"])
    assert seen["cmdline"] == f"--vault-password-file {tmp_path / 'pw'}"


def test_no_playbook_exits_2_without_judging(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(runner.PROJECT_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(tmp_path / "no-collections"))
    output = tmp_path / "report.json"
    assert (
        main(["-i", str(MINIMAL), "--artifacts", str(tmp_path / "a"), "--quiet", "--output", str(output)])
        == 2
    )
    assert "no playbooks/verify.yml in" in capsys.readouterr().err
    assert not output.exists()


def test_a_limited_collection_writes_what_it_leaves_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = _fake_runner(monkeypatch, 1, "[ERROR]: stop here\n", [])
    main(["-i", str(MINIMAL), "--artifacts", str(tmp_path / "a"), "--quiet", "--limit", "gpu01"])
    document = json.loads((tmp_path / "a" / "limit.json").read_text())
    assert document["limit"] == ["gpu01"]
    assert {entry["check"] for entry in document["left_out"]} >= {"pair_bandwidth", "pair_latency"}
    assert all(entry["outside"] == "gpu02" for entry in document["left_out"])
    assert seen["limit"] == "gpu01,switches"


def _collection_in(root: Path) -> Path:
    """A stand-in for an installed gpunet.fabric: ansible_collections/gpunet/fabric/playbooks/verify.yml."""
    folder = root / runner.COLLECTION_FOLDER
    (folder / runner.PLAYBOOK).parent.mkdir(parents=True)
    (folder / runner.PLAYBOOK).write_text("- hosts: all\n")
    return folder


# (a checkout in GPUNET_PROJECT_DIR, a collection installed in a collection path,
#  the playbook ansible-runner gets: "checkout", the FQCN, or None for exit 2)
WHERE = [
    (True, True, "checkout"),  # the checkout wins: its behaviour is unchanged
    (True, False, "checkout"),
    (False, True, runner.COLLECTION_PLAYBOOK),
    (False, False, None),
]


@pytest.mark.parametrize(("checkout", "collection", "expected"), WHERE)
def test_the_checkout_else_the_installed_collection_runs(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    checkout: bool,
    collection: bool,
    expected: str | None,
) -> None:
    seen = _fake_runner(monkeypatch, 1, "[ERROR]: stop here\n", [])
    empty, installed = tmp_path / "empty", tmp_path / "installed"
    empty.mkdir()
    installed.mkdir()
    folder = _collection_in(installed) if collection else None
    # the first collection path holds nothing: the search goes on to the second
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", f"{empty}:{installed}")
    if not checkout:
        monkeypatch.setenv(runner.PROJECT_DIR_VARIABLE, str(empty))
    run = runner.run_collection(str(MINIMAL), tmp_path / "a", None, None, quiet=True)
    err = capsys.readouterr().err
    if expected is None:
        assert run.rc == runner.EXIT_NO_PLAYBOOK and run.no_playbook and not seen
        # one line naming both ways and where it looked
        assert len(err.strip().splitlines()) == 1, err
        assert f"no playbooks/verify.yml in {empty}" in err
        assert f"no gpunet.fabric collection with it in the collection paths ({empty}, {installed})" in err
        assert runner.PROJECT_DIR_VARIABLE in err and "ansible-galaxy collection install" in err
    elif expected == "checkout":
        assert seen["playbook"] == str(REPO_ROOT / runner.PLAYBOOK)
        assert seen["envvars"]["ANSIBLE_CONFIG"] == str(REPO_ROOT / "ansible.cfg")
    else:
        assert seen["playbook"] == expected
        assert seen["project_dir"] == str(folder)
        assert "ANSIBLE_CONFIG" not in seen["envvars"]  # the caller's configuration found the collection
