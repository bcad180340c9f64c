"""rdma_tools' memlock limit: the limits.d file it renders and the domain rule it enforces
(the role's own template and task, Ansible's templar)."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_role_template, render_value, role_defaults

ROLE = REPO_ROOT / "roles/rdma_tools"


def test_the_default_lets_every_login_lock_unbounded_memory() -> None:
    values = role_defaults(ROLE) | {"ansible_managed": "Ansible managed"}
    text = render_role_template(ROLE / "templates/gpunet-rdma-memlock.conf.j2", values)
    rules = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    assert rules == [["*", "soft", "memlock", "unlimited"], ["*", "hard", "memlock", "unlimited"]]


def domain_check() -> dict:
    tasks = yaml.safe_load((ROLE / "tasks/main.yml").read_text())
    return next(t for t in tasks if t["name"] == "Check the memlock domains")


@pytest.mark.parametrize(
    ("domains", "allowed"),
    [
        (["*"], True),
        (["@rdma", "ops", "%gpu"], True),
        (["ops soft nofile 1"], False),  # a second rule smuggled into the file
        (["ops\n* hard core unlimited"], False),
        (["ops\n"], False),  # a trailing newline is no domain either
    ],
)
def test_each_domain_is_one_limits_conf_word(domains: list[str], allowed: bool) -> None:
    task = domain_check()
    values: dict = {"rdma_tools_memlock_domains": domains}
    values |= {name: render_value(value, values) for name, value in task["vars"].items()}
    that = task["ansible.builtin.assert"]["that"]
    assert render_value("{{ (" + that + ") | bool }}", values) is allowed
