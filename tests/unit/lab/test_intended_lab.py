"""intended/lab/ is what the lab inventory renders to (site.yml's render stage leaves it unchanged)."""

from __future__ import annotations

import shutil
from pathlib import Path

from gpunet.model.check import load_fabric
from gpunet.render import render_fabric, write_intended
from tests.conftest import REPO_ROOT


def test_intended_lab_is_up_to_date(tmp_path: Path) -> None:
    committed = tmp_path / "lab"
    shutil.copytree(REPO_ROOT / "inventories" / "lab", committed, ignore=shutil.ignore_patterns("generated"))
    rendered = render_fabric(load_fabric(committed))
    report = write_intended(rendered, REPO_ROOT / "intended" / "lab", check=True)
    stale = report.missing + report.changed + report.extra
    assert not stale, f"intended/lab is stale ({', '.join(stale)}): run `gpunet render -i inventories/lab`"
    assert len(report.unchanged) == 2 * len(rendered)
