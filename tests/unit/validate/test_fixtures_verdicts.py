"""--from-artifacts on the committed fixture folders: verdicts, exit codes and all five reports."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.results import Status, exit_code
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"

# (fixture, exit code, the non-passing (check, target, status) results, exactly)
EXPECTED = [
    ("healthy", 0, set()),
    (
        "bad_nic",
        4,
        {
            ("nic_port_state", "gpu03:mlx5_2", Status.FAIL),
            ("pair_bandwidth", "gpu02:mlx5_2<->gpu03:mlx5_2", Status.FAIL),
            ("pair_bandwidth", "gpu03:mlx5_2<->gpu04:mlx5_2", Status.FAIL),
            ("pair_bandwidth", "gpu01:mlx5_5<->gpu02:mlx5_5", Status.FAIL),
            ("fault_localisation", "gpu03:mlx5_2", Status.FAIL),
            ("fault_localisation", "gpu01:mlx5_5<->gpu02:mlx5_5", Status.FAIL),
        },
    ),
    ("failed_nccl", 4, {("nccl_busbw", "nccl:all-nodes", Status.FAIL)}),
]


@pytest.mark.parametrize(("fixture", "code", "problems"), EXPECTED)
def test_fixture_verdicts(fixture: str, code: int, problems: set[tuple[str, str, Status]]) -> None:
    results = judge(ARTIFACTS / fixture).results
    assert {(r.check, r.target, r.status) for r in results if r.status != Status.PASS} == problems
    assert exit_code(results) == code


def test_healthy_fixture_runs_every_catalog_check() -> None:
    checks = {r.check for r in judge(ARTIFACTS / "healthy").results}
    assert {"nic_port_state", "nccl_busbw", "pair_bandwidth", "switch_pfc", "lossless_queue_drops"} <= checks
    assert len(checks - {"coverage"}) == 23


def test_suspect_nic_names_its_switch_port() -> None:
    results = judge(ARTIFACTS / "bad_nic").results
    suspect = next(r for r in results if r.check == "fault_localisation" and r.target == "gpu03:mlx5_2")
    assert "leaf03:Ethernet3/1" in suspect.message
    assert "gpu02, gpu04" in suspect.actual
    single = next(r for r in results if r.check == "fault_localisation" and "<->" in r.target)
    assert "leaf06:Ethernet0" in single.message and "leaf06:Ethernet8" in single.message


def test_failed_nccl_run_says_why() -> None:
    failed = next(r for r in judge(ARTIFACTS / "failed_nccl").results if r.status == Status.FAIL)
    assert "ibv_modify_qp failed" in failed.message


@pytest.mark.parametrize("fixture", ["healthy", "bad_nic", "failed_nccl"])
@pytest.mark.parametrize("report_format", ["table", "json", "junit", "markdown", "html"])
def test_every_report_format(tmp_path: Path, fixture: str, report_format: str) -> None:
    output = tmp_path / f"report.{report_format}"
    code = main(
        ["--from-artifacts", str(ARTIFACTS / fixture), "--format", report_format, "--output", str(output)]
    )
    expected_code = next(code for name, code, _ in EXPECTED if name == fixture)
    assert code == expected_code
    text = output.read_text()
    if report_format == "json":
        document = json.loads(text)
        assert document["exit_code"] == expected_code
        assert len(document["pairs"]) == 32
    elif report_format == "junit":
        root = ET.fromstring(text.split("\n", 1)[1])
        failures = int(root.get("failures", "-1"))
        assert failures == sum(
            1 for _, _, status in dict.fromkeys(_problems(fixture)) if status == Status.FAIL
        )
        assert root.find("testsuite/testcase") is not None
    elif report_format == "html":
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "<script" not in text
        view = text[text.index('<div class="pv">') : text.index("<h2>Fabric</h2>")]
        # The pair view: one cell per NIC, 4 hosts x 8 rails, each naming its host and NIC.
        assert len(re.findall(r'<[ia] [^>]*title="gpu0\d mlx5_\d: ', view)) == 32
    elif report_format == "markdown":
        assert text.startswith("## gpunet-validate") and f"exit code {expected_code}" in text
    else:
        assert "gpunet-validate: fabric prod" in text
        assert ("\n758 pass, 0 fail" in text) == (fixture == "healthy")


def _problems(fixture: str) -> set[tuple[str, str, Status]]:
    return next(problems for name, _, problems in EXPECTED if name == fixture)


def test_lab_without_rdma_skips_with_the_inventory_reason(tmp_path: Path) -> None:
    folder = _copy_without(tmp_path, "ibstat.txt")
    manifest = json.loads((folder / "manifest.json").read_text())
    for host in manifest["hosts"].values():
        host["has_rdma_nics"] = False
        host["hardware_reason"] = "container lab: no RDMA NICs"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    results = [r for r in judge(folder).results if r.check == "nic_port_state"]
    assert {r.status for r in results} == {Status.SKIPPED}
    assert all("container lab: no RDMA NICs" in r.message for r in results)
    assert exit_code(judge(folder).results) == 0


def test_fault_localisation_without_measured_pairs_is_skipped_not_passed(tmp_path: Path) -> None:
    folder = _copy_without(tmp_path)
    for path in folder.glob("pairs/[0-9]*/*.ib_write_bw.txt"):
        path.write_text("Couldn't find device mlx5_0\n")
    manifest = json.loads((folder / "manifest.json").read_text())
    for host in manifest["hosts"].values():
        host.update(has_rdma_nics=False, hardware_reason="container lab: no RDMA NICs")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    results = [r for r in judge(folder).results if r.check == "fault_localisation"]
    assert [(r.status, r.target) for r in results] == [(Status.SKIPPED, "prod")]
    assert "container lab: no RDMA NICs" in results[0].message


def test_missing_input_without_a_declaration_is_an_error(tmp_path: Path) -> None:
    folder = _copy_without(tmp_path, "ibstat.txt")
    results = judge(folder).results
    errors = [r for r in results if r.status == Status.ERROR]
    assert {r.check for r in errors} == {"nic_port_state"} and len(errors) == 32
    assert "ibstat.txt was not collected" in errors[0].message
    assert exit_code(results) == 3


def test_unreadable_input_is_an_error_naming_the_file(tmp_path: Path) -> None:
    folder = _copy_without(tmp_path)
    (folder / "hosts" / "gpu02" / "chronyc-tracking.txt").write_text("506 Cannot talk to daemon\n")
    error = next(r for r in judge(folder).results if r.status == Status.ERROR)
    assert (error.check, error.target) == ("ntp_offset", "gpu02")
    assert "chronyc-tracking.txt" in error.message and "506 Cannot talk to daemon" in error.message


def _copy_without(tmp_path: Path, name: str | None = None) -> Path:
    folder = tmp_path / "artifacts"
    shutil.copytree(ARTIFACTS / "healthy", folder)
    if name:
        for path in folder.glob(f"hosts/*/{name}"):
            path.unlink()
    return folder


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--from-artifacts", "/nonexistent/folder"], "manifest.json: not found"),
        (["--from-artifacts", str(ARTIFACTS / "healthy"), "--checks", "/nonexistent.yml"], "No such file"),
        (["-i", "/nonexistent/inventory"], "problem(s)"),
    ],
)
def test_usage_and_inventory_errors_exit_2(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_catalog_selects_checks_and_overrides_thresholds(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yml"
    # 97 % of 400G is above what the healthy fixture measured (96.5 %): every pair now fails.
    catalog.write_text("checks: [pair_bandwidth]\nthresholds:\n  perftest_min_fraction: 0.97\n")
    output = tmp_path / "report.json"
    code = main(["--from-artifacts", str(ARTIFACTS / "healthy"), "--checks", str(catalog), "--format", "json",
                 "--output", str(output)])  # fmt: skip
    document = json.loads(output.read_text())
    assert code == 4
    assert {r["check"] for r in document["results"]} == {"pair_bandwidth", "coverage"}
    assert document["summary"]["fail"] == 32
    # No host is left out (the pairs name them all); every switch is listed as not checked.
    unchecked = {r["target"] for r in document["results"] if r["status"] == "not checked"}
    assert unchecked == set(json.loads((ARTIFACTS / "healthy" / "manifest.json").read_text())["switches"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("checks: [no_such_check]\n", "unknown ['no_such_check']"),
        ("checks: [nvlink]\nthresholds: {perftest_min_fraction: -1}\n", "perftest_min_fraction: expected a"),
        ("checks: [nvlink]\nthresholds: {perftest_min_fraction: 1.2}\n", "perftest_min_fraction: expected a"),
        ("checks: [nvlink]\nthresholds: {nccl_min_fraction: 80}\n", "nccl_min_fraction: expected a fraction"),
        ("checks: [nvlink]\nthresholds: {perftest_max_latency_us: 0}\n", "perftest_max_latency_us"),
        ("checks: [nvlink]\nthresholds: {iperf3_min_gbps: yes}\n", "iperf3_min_gbps"),
        ("checks: [nvlink]\nthresholds: {typo: 1}\n", "unknown threshold(s) ['typo']"),
        ("checks: [nvlink]\nextra: 1\n", "expected a mapping"),
    ],
)
def test_bad_catalog_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    catalog = tmp_path / "catalog.yml"
    catalog.write_text(content)
    assert main(["--from-artifacts", str(ARTIFACTS / "healthy"), "--checks", str(catalog)]) == 2
    assert message in capsys.readouterr().err
