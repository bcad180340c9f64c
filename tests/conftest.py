"""Shared test fixtures: project paths and the recorded tool outputs in ../shared/samples."""

from __future__ import annotations

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
