"""status and fault on a lab that is not running: reported as such, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpunet.lab import lifecycle
from gpunet.lab.errors import LabError
from gpunet.lab.paths import LabPaths
from tests.conftest import REPO_ROOT


@pytest.fixture
def idle_lab(tmp_path: Path) -> LabPaths:
    """A scratch project root holding the committed lab inventory and no lab state."""
    shutil.copytree(
        REPO_ROOT / "inventories" / "lab",
        tmp_path / "inventories" / "lab",
        ignore=shutil.ignore_patterns("generated"),
    )
    return LabPaths(root=tmp_path)


@pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed")
def test_status_of_a_lab_that_never_started(idle_lab: LabPaths) -> None:
    report = lifecycle.status(idle_lab)
    assert report.state == "down"
    kinds = sorted({c.kind for c in report.components})
    assert kinds == ["inventory", "node", "ntp", "slurm", "switch"]
    switches = {c.name: c.detail for c in report.components if c.kind == "switch"}
    assert switches == {
        "leaf01": "nxos simulator not started",
        "leaf02": "cumulus simulator not started",
        "spine01": "eos simulator not started",
    }


def test_status_names_a_broken_inventory(idle_lab: LabPaths) -> None:
    (idle_lab.inventory / "host_vars" / "leaf01.yml").write_text("gpunet_platform: ios\n")
    report = lifecycle.status(idle_lab)
    assert report.state == "down"
    assert [c.kind for c in report.components] == ["inventory"]
    assert "leaf01" in report.components[0].detail


def test_fault_needs_a_running_lab(idle_lab: LabPaths) -> None:
    with pytest.raises(
        LabError, match=r"no running lab switch 'leaf09' \(lab switches: leaf01, leaf02, spine01"
    ):
        lifecycle.set_switch_faults(idle_lab, "leaf09", [], False, print)


@pytest.mark.parametrize(
    ("running", "expected"),
    [((True, True), "up"), ((True, False), "degraded"), ((False, False), "down"), ((), "down")],
)
def test_overall_state(running: tuple[bool, ...], expected: str) -> None:
    report = lifecycle.LabStatus([lifecycle.Component("node", f"n{i}", "", r) for i, r in enumerate(running)])
    assert report.state == expected
