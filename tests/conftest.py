"""Shared test fixtures: project paths and the recorded tool outputs in ../shared/samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = REPO_ROOT.parent / "shared" / "samples"
FIXTURES_DIR = REPO_ROOT / "tests" / "fixtures"


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def samples_dir() -> Path:
    """../shared/samples, or a clean skip where that folder is absent."""
    if not SAMPLES_DIR.is_dir():
        pytest.skip("../shared/samples is not present")
    return SAMPLES_DIR


def sample_files(pattern: str) -> list[Path]:
    """Sample files for parametrising tests; empty (so the tests skip) when the folder is absent."""
    return sorted(SAMPLES_DIR.glob(pattern)) if SAMPLES_DIR.is_dir() else []


# pytest-xdist (`make pytest` runs two workers): which tests must share one worker, in order. A
# module's tests stay together so its module- and package-scoped fixtures (a simulator fleet, a
# first push) are made once. The lab's modules share one lab that `gpunet lab up` names globally
# (containers, networks, .lab/, inventories/lab/generated/), and the Slurm test builds the same lab
# images, so they run one after another on one worker; the package tests share
# .cache/quickstart-wheelhouse, which they fill without a lock.
SHARED_GROUPS = {
    "tests/e2e/": "lab",
    "tests/integration/ops/test_slurm_healthcheck.py": "lab",
    "tests/integration/package/": "package",
}


def xdist_group_of(nodeid: str) -> str:
    """The group of a test: its SHARED_GROUPS entry, else its module."""
    module = nodeid.split("::", 1)[0]
    for prefix, group in SHARED_GROUPS.items():
        if module.startswith(prefix):
            return group
    return module


# An xdist worker starts with COLUMNS=80 in its environment, which a plain pytest run does not
# have: the CLIs' tables (shutil.get_terminal_size) would fold at 80 columns there and not here.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)


# xdist's own --dist loadgroup cannot be used: it tags a test's group onto item._nodeid, which
# pytest 9 no longer reads (Node.nodeid comes from Node._id), so every test was its own group and
# the lab's modules ran on both workers, each bringing up and tearing down the same lab. Its
# scheduler hook with LoadScopeScheduling's one extension point, the scope of a node id, does it.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class SharedGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

    return SharedGroupScheduling(config, log)
