"""verify_traffic runs perftest in the fabric's lossless class: --tclass on both ends, from the same
policy NCCL_IB_TC comes from (roles/verify_traffic defaults and tasks/main.yml, Ansible's templar)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults, trusted

ROLE = REPO_ROOT / "roles/verify_traffic"


def rounds_task_vars() -> dict[str, Any]:
    tasks = yaml.safe_load((ROLE / "tasks/main.yml").read_text())
    return next(t for t in tasks if t["name"] == "Run perftest between host pairs per rail")["vars"]


@pytest.mark.parametrize(
    ("fabric", "override", "args"),
    [
        ({}, None, ["--tclass=106"]),  # defaults: DSCP 26 -> 26 << 2 | ECT0
        ({"qos": {"roce_dscp": 24}}, None, ["--tclass=98"]),
        ({"transport": "ib"}, None, []),  # InfiniBand: service levels, no IP traffic class
        ({}, "", []),  # the operator leaves the NIC's own default
        ({}, "96", ["--tclass=96"]),
    ],
)
def test_perftest_runs_in_the_lossless_class(fabric: dict, override: str | None, args: list[str]) -> None:
    values = role_defaults(ROLE) | {"gpunet_fabric": fabric}
    if override is not None:
        values["verify_traffic_perftest_tclass"] = override
    expression = trusted(rounds_task_vars())["verify_traffic_tclass_args"]
    assert render_value(expression, values) == args
