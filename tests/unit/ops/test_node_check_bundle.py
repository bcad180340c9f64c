"""The node check bundle the slurm_healthcheck role copies to GPU hosts: self-contained (runs with
no site-packages), the same bytes for the same code (a second copy changes nothing), and refusing
an interpreter older than gpunet's floor with one clear line; the role checks the node's Python
before installing (its own task, Ansible's templar)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpunet.nodecheck.bundle import MINIMUM_PYTHON, build_bundle, write_bundle
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bundle") / "nested" / "gpunet-node-check.pyz"
    assert write_bundle(path) == 0
    return path


def test_the_bundle_runs_without_any_installed_package(bundle: Path) -> None:
    # -I -S: no site-packages, no PYTHONPATH, no user site: only what the archive carries.
    done = subprocess.run([sys.executable, "-I", "-S", str(bundle), "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: gpunet-node-check")


def test_a_check_runs_from_the_bundle_and_judges(bundle: Path, tmp_path: Path) -> None:
    """A real judgement from the archive alone: an unreadable expectations file is exit 2, named."""
    missing = tmp_path / "none.json"
    argv = [sys.executable, "-I", "-S", str(bundle), "--expectations", str(missing)]
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(missing) in done.stdout + done.stderr


def test_the_same_code_gives_the_same_bytes(bundle: Path) -> None:
    assert build_bundle() == bundle.read_bytes()
    before = bundle.stat().st_mtime_ns
    write_bundle(bundle)
    assert bundle.stat().st_mtime_ns == before  # unchanged file not rewritten


def test_an_old_interpreter_is_refused_with_one_line(bundle: Path) -> None:
    pretend = (
        "import sys, runpy; sys.version_info = (3, 9, 18); runpy.run_path(sys.argv[1], run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", pretend, str(bundle)], capture_output=True, text=True
    )
    assert done.returncode == 2
    needs = f"needs Python {MINIMUM_PYTHON[0]}.{MINIMUM_PYTHON[1]} or newer"
    assert needs in done.stderr and "3.9.18" in done.stderr and "slurm_healthcheck_python" in done.stderr


def python_check() -> dict:
    tasks = yaml.safe_load((REPO_ROOT / "roles/slurm_healthcheck/tasks/main.yml").read_text())
    block = next(task for task in tasks if task.get("name") == "Install the node check from the controller")
    return next(
        task
        for task in block["block"]
        if task["name"] == "Stop where the node's Python is too old for gpunet"
    )


@pytest.mark.parametrize(
    ("rc", "stdout", "allowed"),
    [(0, "3.9\n", False), (0, "3.10\n", False), (0, "3.11\n", True), (0, "3.13\n", True), (2, "", False)],
)
def test_the_role_checks_the_nodes_python_first(rc: int, stdout: str, allowed: bool) -> None:
    values = {"slurm_healthcheck_python_version": {"rc": rc, "stdout": stdout}}
    that = python_check()["ansible.builtin.assert"]["that"]
    assert all(render_value("{{ (" + e + ") | bool }}", values) for e in that) is allowed
