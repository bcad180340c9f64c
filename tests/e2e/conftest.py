"""One lab for all of tests/e2e: `gpunet lab up` once, every module's tests on it in file order
(test_lab deploys and breaks things one at a time and puts each back; the canary, MPI and Slurm
modules deploy what they need on top), and `gpunet lab down` after the last of them. test_lab's
test_down_removes_everything, which checks that down leaves nothing behind, runs last.

Each module bringing up its own lab cost three more lab ups and downs and three first deploys
instead of runs with nothing to change: about three minutes of the CI's 45 (the 7 December 2026
durations: lab up 15-19 s, down 4-5 s, a first site.yml 79 s against 41 s for a second)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpunet.lab.paths import LabPaths
from tests.conftest import REPO_ROOT
from tests.e2e.test_lab import ALL_NODES_AT_ONCE, INVENTORY, run

HERE = Path(__file__).parent
LAST = "test_down_removes_everything"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The down test right after the lab's last other test, wherever its module sorts (the session's
    other tests stay where they are)."""
    downs = [item for item in items if getattr(item, "originalname", item.name) == LAST]
    for item in downs:
        items.remove(item)
    in_here = [index for index, item in enumerate(items) if item.path.is_relative_to(HERE)]
    at = in_here[-1] + 1 if in_here else len(items)
    items[at:at] = downs


@pytest.fixture(scope="package")
def lab() -> Iterator[LabPaths]:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed")
    paths = LabPaths(root=REPO_ROOT)
    if paths.state_file.exists():
        pytest.skip("a lab is already running here and this test would tear it down: `gpunet lab down` first")
    up = run("gpunet", "lab", "up", timeout=600)
    try:
        assert up.returncode == 0, up.stderr
        yield paths
    finally:
        run("gpunet", "lab", "down", timeout=300)


@pytest.fixture(scope="package")
def first_deploy(lab: LabPaths) -> subprocess.CompletedProcess[str]:
    """site.yml on the fresh lab, once: test_lab judges it, and the modules after it start from the
    nodes it deployed instead of deploying them again."""
    return run("ansible-playbook", "site.yml", "-i", INVENTORY, *ALL_NODES_AT_ONCE)
