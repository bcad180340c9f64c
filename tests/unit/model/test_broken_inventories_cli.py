"""`gpunet inventory check` on every broken inventory: exit 2, each expected message on stderr, and
a count line; for the rules of issue 15 the .expect.yml holds the whole line, so it must match."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpunet.cli import main
from tests.conftest import FIXTURES_DIR

BROKEN = FIXTURES_DIR / "inventories" / "broken"
CASES = sorted(BROKEN.glob("*.expect.yml"))
# Problems whose expected message is the whole printed line (path included).
WHOLE_LINE_CASES = (
    "nic_rail_differs_on_leaf",
    "nic_ip_without_prefix",
    "fabric_null",
    "switch_asics_not_sonic",
    # issue 34's name rule: tests/fixtures/inventories/generate.py NAME_RULE_CASES
    "host_name_path_escape",
    "host_name_absolute_path",
    "host_name_shell_word",
    "host_name_confusable",
    "host_name_line_feed",
    "host_name_case_twin",
    "fabric_name_line_feed",
    "queue_name_line_feed",
)


def _name(expect_file: Path) -> str:
    return expect_file.name.removesuffix(".expect.yml")


@pytest.mark.parametrize("expect_file", CASES, ids=_name)
def test_check_exits_2_and_prints_every_problem(
    expect_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = yaml.safe_load(expect_file.read_text())
    inventory = BROKEN / _name(expect_file)
    assert main(["inventory", "check", "-i", str(inventory)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == f"{len(expected)} problem(s) in {inventory}"
    for want in expected:
        assert any(want["message"] in line for line in lines[:-1]), "\n".join(lines)


@pytest.mark.parametrize("name", WHOLE_LINE_CASES)
def test_issue_15_rules_print_exactly_their_line(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = yaml.safe_load((BROKEN / f"{name}.expect.yml").read_text())
    assert main(["inventory", "check", "-i", str(BROKEN / name)]) == 2
    assert capsys.readouterr().err.splitlines()[:-1] == [want["message"] for want in expected]
