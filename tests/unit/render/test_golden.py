"""Golden tests: feature-focused inventories under tests/fixtures/render/<case>/hosts.yml render
exactly to the committed files in <case>/expected/.

After an intended change of the templates or design, regenerate with
    GPUNET_UPDATE_GOLDEN=1 pytest tests/unit/render/test_golden.py
and review the diff like any config change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpunet.model.check import load_fabric
from gpunet.render import render_fabric, write_intended
from tests.conftest import FIXTURES_DIR

CASES = sorted(path.parent for path in (FIXTURES_DIR / "render").glob("*/hosts.yml"))
UPDATE = os.environ.get("GPUNET_UPDATE_GOLDEN") == "1"


def test_there_is_a_golden_case_per_platform() -> None:
    platforms = {case.name.split("_")[0] for case in CASES}
    assert platforms == {"nxos", "eos", "cumulus", "sonic", "junos"}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_rendered_output_matches_the_expected_files(case: Path) -> None:
    rendered = render_fabric(load_fabric(case / "hosts.yml"))
    report = write_intended(rendered, case / "expected", check=not UPDATE)
    assert report.up_to_date or UPDATE, "rendered output differs from the golden files:\n" + "".join(
        report.diffs.values()
    )
