"""Fixtures of the node check tests: one host's expectations and fake host tools on PATH."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from gpunet.nodecheck.expectations import expectations_json
from gpunet.validate.manifest import read_manifest
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
RECORDED = HEALTHY / "hosts" / "gpu01"
UNSYNCHRONISED = """Reference ID    : 00000000 ()
Stratum         : 0
Ref time (UTC)  : Thu Jan 01 00:00:00 1970
System time     : 0.000000000 seconds fast of NTP time
Last offset     : +0.000000000 seconds
RMS offset      : 0.000000000 seconds
Frequency       : 0.000 ppm slow
Residual freq   : +0.000 ppm
Skew            : 0.000 ppm
Root delay      : 1.000000000 seconds
Root dispersion : 1.000000000 seconds
Update interval : 0.0 seconds
Leap status     : Not synchronised
"""


def fake_tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """gpu01's expectations (cut from the healthy fixture's manifest) and a bin folder first on PATH."""
    manifest = read_manifest(HEALTHY)
    one = replace(
        manifest, hosts={"gpu01": manifest.hosts["gpu01"]}, switches={}, pair_rounds=[], nccl_runs={}
    )
    (tmp_path / "expect.json").write_text(expectations_json(one))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_tool(bin_dir, "nft", f"cat {RECORDED / 'nft-ruleset.txt'}")
    fake_tool(bin_dir, "ibstat", f"cat {RECORDED / 'ibstat.txt'}")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path
