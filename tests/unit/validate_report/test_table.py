"""The terminal report fits a screen: problems first (capped unless --failures-only), passes only
counted per check, the terminal's width, colour only when asked for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpunet.validate.cli import main
from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report.table import MAX_PROBLEM_ROWS, render_table
from gpunet.validate.results import Result, Status
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"


@pytest.fixture(scope="module")
def bad_nic() -> Verdict:
    return judge(ARTIFACTS / "bad_nic")


def test_problems_come_first_and_passes_are_only_counted(bad_nic: Verdict) -> None:
    text = render_table(bad_nic, width=160)
    assert text.index("problems") < text.index("per check") < text.index("753 pass, 6 fail")
    assert "leaf03:Ethernet3/1" in text  # where to look
    problem_part = text[: text.index("per check")]
    assert "gpu03:mlx5_2" in problem_part and " pass " not in problem_part
    # One line per check, not one per result.
    assert "│ switch_pfc           │  177 │    0 │" in text
    assert len(text.splitlines()) < 60
    assert "14 devices: gpu01, gpu02" in text  # a small fabric's devices are all named


def test_failures_only_lists_problems_and_the_summary(bad_nic: Verdict) -> None:
    text = render_table(bad_nic, width=160, failures_only=True)
    assert "per check" not in text
    assert text.rstrip().endswith("753 pass, 6 fail, 0 error, 0 skipped, 0 not checked")


@pytest.mark.parametrize("width", [80, 120, 200])
def test_lines_fit_the_width(bad_nic: Verdict, width: int) -> None:
    assert max(len(line) for line in render_table(bad_nic, width=width).splitlines()) <= width


def test_width_comes_from_the_terminal(bad_nic: Verdict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "90")
    assert max(len(line) for line in render_table(bad_nic).splitlines()) <= 90


@pytest.mark.parametrize(("color", "escapes"), [(True, True), (False, False)])
def test_colour_only_when_asked(bad_nic: Verdict, color: bool, escapes: bool) -> None:
    assert ("\x1b[" in render_table(bad_nic, color=color)) == escapes


def test_many_problems_are_capped_with_a_pointer(bad_nic: Verdict) -> None:
    failing = [
        Result("nic_port_state", f"gpu{i:04d}:mlx5_0", Status.FAIL, "400 Gb/s", "200 Gb/s")
        for i in range(100)
    ]
    verdict = replace(bad_nic, results=failing)
    capped = render_table(verdict, width=160)
    assert f"gpu{MAX_PROBLEM_ROWS - 1:04d}" in capped and f"gpu{MAX_PROBLEM_ROWS:04d}" not in capped
    assert f"... and {100 - MAX_PROBLEM_ROWS} more problems" in capped
    assert "gpu0099" in render_table(verdict, width=160, failures_only=True)


def test_cli_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--from-artifacts", str(ARTIFACTS / "bad_nic"), "--failures-only", "--no-color"])
    out = capsys.readouterr().out
    assert code != 0
    assert "per check" not in out and "\x1b[" not in out and "nic_port_state" in out
