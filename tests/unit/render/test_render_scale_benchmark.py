"""benchmarks/render_scale.py runs (at a small size) and reports every step; no timing is asserted."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import REPO_ROOT


def test_the_benchmark_builds_a_valid_fabric_and_reports_each_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location(
        "render_scale", REPO_ROOT / "benchmarks" / "render_scale.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--hosts", "80", "--leaves", "16", "--spines", "2", "--write"]) == 0
    output = capsys.readouterr().out
    assert "| fabric | 80 hosts, 640 NICs, 18 switches, 704 ports |" in output
    for step in ("inventory validation", "render per switch", "write every .cfg/.md"):
        assert step in output
