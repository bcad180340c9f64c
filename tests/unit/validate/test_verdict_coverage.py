"""Nothing is left unjudged: an empty catalog or a run without results exits 3, every device of
the manifest appears in every report, --limit works on an artifacts folder, an unreachable host
is one result."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.report import FORMATS
from gpunet.validate.results import Result, Status, exit_code
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
MANIFEST = json.loads((HEALTHY / "manifest.json").read_text())
DEVICES = set(MANIFEST["hosts"]) | set(MANIFEST["switches"])


def _catalog(tmp_path: Path, text: str) -> str:
    path = tmp_path / "catalog.yml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text", ["checks: []\n", "{}\n", "thresholds: {nccl_min_fraction: 0.5}\n"])
def test_a_catalog_without_checks_exits_3(tmp_path: Path, capsys, text: str) -> None:
    assert main(["--from-artifacts", str(HEALTHY), "--checks", _catalog(tmp_path, text)]) == 3
    assert "nothing was checked" in capsys.readouterr().err


def test_a_run_where_no_check_produced_a_result_exits_3(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["nccl_runs"] = {}  # nccl_busbw has nothing to judge
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code = main(["--from-artifacts", str(folder), "--checks", _catalog(tmp_path, "checks: [nccl_busbw]\n")])
    assert code == 3
    assert "nothing was checked" in capsys.readouterr().err


def test_only_not_checked_results_never_pass() -> None:
    not_checked = Result("coverage", "leaf01", Status.NOT_CHECKED, "a check", "not checked", "why")
    assert exit_code([not_checked]) == 3
    assert exit_code([]) == 3
    assert exit_code([not_checked, replace(not_checked, check="ntp_offset", status=Status.PASS)]) == 0


@pytest.mark.parametrize(
    "catalog", ["checks: [ntp_offset]\n", "checks: [switch_pfc]\n", "checks: [nccl_busbw]\n"]
)
@pytest.mark.parametrize("report_format", FORMATS)
def test_every_device_appears_in_every_report(tmp_path: Path, catalog: str, report_format: str) -> None:
    output = tmp_path / "report"
    arguments = ["--from-artifacts", str(HEALTHY), "--checks", _catalog(tmp_path, catalog)]
    main([*arguments, "--format", report_format, "--output", str(output)])
    text = output.read_text()
    missing = [device for device in DEVICES if device not in text]
    assert not missing
    results = judge(HEALTHY).results
    assert {r.group for r in results} >= DEVICES


def test_not_checked_says_why(tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    main(["--from-artifacts", str(HEALTHY), "--checks", _catalog(tmp_path, "checks: [switch_pfc]\n"),
          "--format", "json", "--output", str(output)])  # fmt: skip
    results = {r["target"]: r for r in json.loads(output.read_text())["results"] if r["check"] == "coverage"}
    assert "no check of the catalog (switch_pfc) applies" in results["gpu01"]["message"]
    assert not set(results) & set(MANIFEST["switches"])  # every switch OS has a PFC view
    drops_only = _catalog(tmp_path, "checks: [lossless_queue_drops]\n")
    main(
        [
            "--from-artifacts",
            str(HEALTHY),
            "--checks",
            drops_only,
            "--format",
            "json",
            "--output",
            str(output),
        ]
    )
    results = {r["target"]: r for r in json.loads(output.read_text())["results"] if r["check"] == "coverage"}
    assert "no selected check reads nxos output (checks that do: switch_pfc)" in results["leaf01"]["message"]
    assert results["leaf01"]["status"] == "not checked"
    assert "leaf08" not in results


def test_limit_with_from_artifacts(tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    code = main(["--from-artifacts", str(HEALTHY), "--limit", "gpu01,gpu02", "--format", "json",
                 "--output", str(output)])  # fmt: skip
    results = json.loads(output.read_text())["results"]
    hosts = set(MANIFEST["hosts"])
    for result in results:  # every host result is about a limited host; a pair touches one
        named = {end.split(":")[0] for end in result["target"].split("<->")} & hosts
        assert not named or named & {"gpu01", "gpu02"}, result
        assert "<->" in result["target"] or not named - {"gpu01", "gpu02"}, result
    assert code == 0
    pairs = {r["target"] for r in results if r["check"] == "pair_bandwidth"}
    assert "gpu01:mlx5_0<->gpu02:mlx5_0" in pairs  # the pairs between the two remain
    assert "gpu02:mlx5_0<->gpu03:mlx5_0" in pairs  # and those with a partner outside the limit


def test_limit_naming_an_unknown_host_exits_2(capsys) -> None:
    assert main(["--from-artifacts", str(HEALTHY), "--limit", "gpu01,nosuch"]) == 2
    assert "nosuch" in capsys.readouterr().err


@pytest.mark.parametrize(
    "reason", [None, "UNREACHABLE! ssh: connect to host gpu03 port 22: No route to host"]
)
def test_an_unreachable_host_is_one_result(tmp_path: Path, reason: str | None) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    shutil.rmtree(folder / "hosts" / "gpu03")
    for path in folder.glob("pairs/*/*gpu03*"):
        path.unlink()
    for path in folder.glob("nccl/*gpu03*"):
        path.unlink()
    if reason:
        (folder / "hosts" / "gpu03").mkdir()
        (folder / "hosts" / "gpu03" / "collection-error.txt").write_text(reason + "\n")
    results = judge(folder).results
    about_gpu03 = [r for r in results if r.status == Status.ERROR and "gpu03" in r.target]
    assert [(r.check, r.target) for r in about_gpu03] == [("host_collected", "gpu03")]
    assert "gpu03 is unreachable" in about_gpu03[0].message
    assert (reason or "nothing was collected") in about_gpu03[0].message
    assert exit_code(results) == 3


def test_the_runner_records_why_a_host_was_unreachable(tmp_path: Path) -> None:
    from gpunet.validate.runner import note_unreachable, write_unreachable

    unreachable: dict[str, str] = {}
    events = [
        {"event": "runner_on_ok", "event_data": {"host": "gpu01"}},
        {
            "event": "runner_on_unreachable",
            "event_data": {"host": "gpu03", "res": {"msg": "ssh: No route to host"}},
        },
        {"event": "runner_on_unreachable", "event_data": {"host": "gpu03", "res": {"msg": "second"}}},
    ]
    for event in events:
        note_unreachable(event, unreachable)
    assert unreachable == {"gpu03": "UNREACHABLE: ssh: No route to host"}
    (tmp_path / "hosts" / "gpu03").mkdir(parents=True)
    write_unreachable(tmp_path, {**unreachable, "leaf01": "UNREACHABLE: a switch"})
    assert not (tmp_path / "hosts" / "leaf01").exists()
    assert (
        tmp_path / "hosts" / "gpu03" / "collection-error.txt"
    ).read_text() == "UNREACHABLE: ssh: No route to host\n"
