"""Every broken inventory in tests/fixtures fails the real check (through Ansible's loader) with
exactly the problems its .expect.yml names: the data path and the message."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpunet.model.check import check_inventory
from tests.conftest import FIXTURES_DIR

BROKEN = FIXTURES_DIR / "inventories" / "broken"
CASES = sorted(BROKEN.glob("*.expect.yml"))


def _inventory(expect_file: Path) -> Path:
    return expect_file.parent / expect_file.name.removesuffix(".expect.yml")


def _path_matches(got: str, wanted: str) -> bool:
    # File locations are reported relative to the working directory; data paths exactly.
    return got == wanted or ("/" in wanted and got.endswith("/" + wanted))


def test_the_corpus_covers_every_rule() -> None:
    from gpunet.model.crosschecks import RULES

    assert len(CASES) >= len(RULES) + 10


@pytest.mark.parametrize("expect_file", CASES, ids=lambda p: p.name.removesuffix(".expect.yml"))
def test_broken_inventory_reports_exactly_its_problems(expect_file: Path) -> None:
    expected = yaml.safe_load(expect_file.read_text())
    result = check_inventory(_inventory(expect_file))

    assert not result.ok
    assert result.fabric is None
    assert len(result.problems) == len(expected), "\n".join(map(str, result.problems))
    for want in expected:
        matching = [p for p in result.problems if _path_matches(p.path, want["path"])]
        assert matching, f"no problem at {want['path']}; got:\n" + "\n".join(map(str, result.problems))
        assert any(want["message"] in str(p) for p in matching), "\n".join(map(str, matching))
