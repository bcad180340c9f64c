"""The worked example in docs/planner.md is what `gpunet plan` prints today."""

from __future__ import annotations

import pytest

from gpunet.cli import main
from tests.conftest import REPO_ROOT

COMMAND = "$ gpunet plan --gpus 256 --switch-radix 64\n"


def test_worked_example_matches_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    doc = (REPO_ROOT / "docs" / "planner.md").read_text()
    start = doc.index(COMMAND) + len(COMMAND)
    documented = doc[start : doc.index("```", start)]
    assert main(COMMAND.split()[2:]) == 0
    assert capsys.readouterr().out == documented
