"""Before/after comparison of two gpunet-validate JSON reports (gpunet.validate.regressions), the
canary gate's baseline mode: table-driven over hand-made reports, and over the reports the real
gpunet-validate writes for the recorded healthy and bad_nic artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.validate.cli import main as validate
from gpunet.validate.regressions import ReportError, compare, load_report
from tests.conftest import REPO_ROOT


def report(*results: tuple[str, str, str], fabric: str = "prod") -> dict:
    return {"fabric": fabric, "results": [{"check": c, "target": t, "status": s} for c, t, s in results]}


@pytest.mark.parametrize(
    ("before", "after", "new", "known", "fixed"),
    [
        ([("a", "x", "pass")], [("a", "x", "fail")], 1, 0, 0),
        ([("a", "x", "fail")], [("a", "x", "fail")], 0, 1, 0),
        ([("a", "x", "fail")], [("a", "x", "error")], 0, 1, 0),  # still a problem, not a new one
        ([("a", "x", "fail")], [("a", "x", "pass")], 0, 0, 1),
        ([], [("a", "x", "error")], 1, 0, 0),  # a check the baseline did not have
        ([("a", "x", "skipped")], [("a", "x", "fail")], 1, 0, 0),
        ([("a", "x", "not checked")], [("a", "x", "not checked")], 0, 0, 0),
        # one key, several results: its worst counts before, each problem counts after
        ([("a", "x", "pass"), ("a", "x", "fail")], [("a", "x", "fail"), ("a", "x", "fail")], 0, 2, 0),
        ([("a", "x", "fail")], [("a", "y", "fail")], 1, 0, 1),  # another target
        ([("a", "x", "pass")], [("a", "x", "bogus")], 1, 0, 0),  # an unknown status is a problem
    ],
)
def test_what_got_worse(before, after, new, known, fixed) -> None:
    comparison = compare(report(*before), report(*after))
    assert (len(comparison.regressions), len(comparison.known), len(comparison.fixed)) == (new, known, fixed)
    assert comparison.exit_code == (4 if new else 0)


def test_reports_of_two_fabrics_are_not_compared() -> None:
    with pytest.raises(ReportError, match="fabrics 'prod' and 'lab'"):
        compare(report(), report(fabric="lab"))


@pytest.mark.parametrize("text", ["not json", '{"fabric": "prod"}', '{"results": [{"check": "a"}]}'])
def test_a_file_that_is_no_report_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(ReportError, match=str(path)):
        load_report(path)


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("reports")
    reports = {}
    for name in ("healthy", "bad_nic"):
        out = folder / f"{name}.json"
        argv = ["--from-artifacts", str(REPO_ROOT / "tests/fixtures/artifacts" / name), "--format", "json"]
        assert validate([*argv, "--output", str(out), "--quiet"]) in (0, 4)
        reports[name] = json.loads(out.read_text())
    return reports


def test_the_recorded_slow_nic_is_new_against_healthy_and_known_against_itself(real_reports) -> None:
    worse = compare(real_reports["healthy"], real_reports["bad_nic"])
    assert {r["target"] for r in worse.regressions if r["check"] == "nic_port_state"} == {"gpu03:mlx5_2"}
    assert worse.exit_code == 4 and worse.known == []
    same = compare(real_reports["bad_nic"], real_reports["bad_nic"])
    assert same.exit_code == 0 and len(same.known) == len(worse.regressions)
    better = compare(real_reports["bad_nic"], real_reports["healthy"])
    assert better.exit_code == 0 and ("nic_port_state", "gpu03:mlx5_2") in better.fixed
