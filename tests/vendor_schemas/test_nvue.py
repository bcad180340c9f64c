"""Every rendered Cumulus Linux `nv set` line is a command of NVIDIA's NVUE reference (5.10) and
its keys and value meet NVUE's OpenAPI rules (5.3.0). Data: ../shared/vendor-schemas/nvue."""

from __future__ import annotations

from typing import Any

import pytest

from tests.vendor_schemas.corpus import RenderedConfig, configs_of
from tests.vendor_schemas.schemas import NVUE_DIR, require

CUMULUS_CONFIGS = configs_of("cumulus")


@pytest.fixture(scope="module")
def nvue() -> tuple[Any, Any]:
    require(NVUE_DIR)
    from tests.vendor_schemas.nvue import NvueCommands, NvueOpenApi

    return NvueCommands.load(NVUE_DIR / "nv-set-commands-5.10.txt"), NvueOpenApi(
        NVUE_DIR / "nvue-openapi-5.3.0.json"
    )


def _problems(text: str, nvue: tuple[Any, Any]) -> list[str]:
    from tests.vendor_schemas.nvue import judge_nv_set_lines

    problems, _uncovered = judge_nv_set_lines(text, *nvue)
    return [str(problem) for problem in problems]


def test_there_are_cumulus_configs_to_judge() -> None:
    assert {c.label for c in CUMULUS_CONFIGS} >= {"intended/prod/leaf05", "intended/lab/leaf02"}


@pytest.mark.parametrize("config", CUMULUS_CONFIGS, ids=[c.label for c in CUMULUS_CONFIGS])
def test_rendered_nv_set_lines_meet_nvidias_reference(config: RenderedConfig, nvue: tuple[Any, Any]) -> None:
    problems = _problems(config.text, nvue)
    assert problems == [], f"{config.label}.cfg breaks the NVUE reference:\n" + "\n".join(problems)


# A deliberately wrong line per rule, and the message the validator must give.
WRONG_LINES = [
    ("nv set qos pfc p1 xoff-limit 5", "no command of NVIDIA's NVUE reference (5.10) matches"),
    ("nv set qos roce bogus on", "no command of NVIDIA's NVUE reference (5.10) matches"),
    ("nv set interface swp1 qos pfc profile", "no command of NVIDIA's NVUE reference (5.10) matches"),
    ("net add interface swp1 mtu 9216", "not an `nv set` command"),
    ("nv set qos pfc p1 cable-length 200000", "value '200000': above the maximum 100000"),
    ("nv set qos pfc p1 xoff-threshold 0", "value '0': below the minimum 1"),
    ("nv set qos pfc p1 tx maybe", "value 'maybe': not one of ['enable', 'disable']"),
    ("nv set qos pfc p1 switch-priority 8", "key '8': above the maximum 7"),
    ("nv set qos mapping default-global dscp 64 switch-priority 0", "key '64': above the maximum 63"),
    ("nv set qos mapping default-global dscp 3 switch-priority 9", "value '9': above the maximum 7"),
    (
        "nv set qos egress-scheduler default-global traffic-class 3 bw-percent 101",
        "value '101': above the maximum 100",
    ),
    ("nv set qos egress-scheduler default-global traffic-class 3 mode wfq", "value 'wfq': not one of"),
    ("nv set qos congestion-control default-global traffic-class 3 ecn maybe", "value 'maybe': not one of"),
    ("nv set interface swp1 link mtu 99999", "value '99999': above the maximum 9216"),
    ("nv set interface swp1 link speed 7G", "value '7G': not one of"),
]


@pytest.mark.parametrize(("line", "message"), WRONG_LINES, ids=[line for line, _ in WRONG_LINES])
def test_a_wrong_line_is_refused_with_the_rule_it_breaks(
    line: str, message: str, nvue: tuple[Any, Any]
) -> None:
    problems = _problems(f"nv set qos mapping default-global trust l3\n{line}\n", nvue)
    assert len(problems) == 1
    assert problems[0].startswith(f"line 2: `{line}`: ")
    assert message in problems[0]


def test_an_attribute_newer_than_the_spec_is_not_called_wrong(nvue: tuple[Any, Any]) -> None:
    from tests.vendor_schemas.nvue import judge_nv_set_lines

    problems, uncovered = judge_nv_set_lines("nv set interface swp1 qos pfc-watchdog state enable\n", *nvue)
    assert (problems, uncovered) == ([], 1)
