"""slurm_healthcheck's slurmd locked-memory limit, judged from the role's own task files with Ansible's
templar over recorded output: when the drop-in is written, what it says, the running slurmd's limit,
Slurm's PropagateResourceLimits, and the handlers' order (reload, check, restart)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_role_template, render_value, role_defaults, role_vars, trusted

ROLE = REPO_ROOT / "roles/slurm_healthcheck"
TASKS = ROLE / "tasks/slurmd_memlock.yml"

# `systemctl show slurmd.service --property=LoadState,MainPID,LimitMEMLOCK,LimitMEMLOCKSoft`, recorded in
# the lab's Slurm image (Debian 12, slurm-wlm 22.05, whose unit has LimitMEMLOCK=infinity as Slurm's
# own etc/slurmd.service.in has), then with a site drop-in `LimitMEMLOCK=65536`, then for a unit that
# does not exist (systemd's default limit: 8 MiB).
SHOW_SLURM_UNIT = "MainPID=48\nLimitMEMLOCK=infinity\nLimitMEMLOCKSoft=infinity\nLoadState=loaded\n"
SHOW_SITE_LIMIT = "MainPID=48\nLimitMEMLOCK=65536\nLimitMEMLOCKSoft=65536\nLoadState=loaded\n"
SHOW_NOT_FOUND = "MainPID=0\nLimitMEMLOCK=8388608\nLimitMEMLOCKSoft=8388608\nLoadState=not-found\n"
# A unit whose soft limit alone is low (`LimitMEMLOCK=64K:infinity`): jobs get the soft limit.
SHOW_SOFT_ONLY = "MainPID=48\nLimitMEMLOCK=infinity\nLimitMEMLOCKSoft=65536\nLoadState=loaded\n"

# `grep '^Max locked memory' /proc/<slurmd>/limits`: in the lab container (its runtime's 8 MiB hard
# limit caps the unit's infinity) and on a host where systemd grants it.
LIMITS_CAPPED = "Max locked memory         8388608              8388608              bytes     "
LIMITS_UNLIMITED = "Max locked memory         unlimited            unlimited            bytes     "

# `scontrol show config | grep Propagate` from slurmctld 22.05 with slurm.conf setting neither, then
# PropagateResourceLimitsExcept=MEMLOCK, then PropagateResourceLimits=CORE,MEMLOCK (all recorded);
# the last two rows are written in the same layout.
SCONTROL_DEFAULT = (
    "PropagatePrioProcess    = 0\nPropagateResourceLimits = ALL\nPropagateResourceLimitsExcept = (null)\n"
)
SCONTROL_EXCEPT_MEMLOCK = (
    "PropagatePrioProcess    = 0\nPropagateResourceLimits = (null)\nPropagateResourceLimitsExcept = MEMLOCK\n"
)
SCONTROL_CORE_MEMLOCK = (
    "PropagatePrioProcess    = 0\nPropagateResourceLimits = CORE,MEMLOCK\n"
    "PropagateResourceLimitsExcept = (null)\n"
)
SCONTROL_NONE = "PropagateResourceLimits = NONE\nPropagateResourceLimitsExcept = (null)\n"
SCONTROL_EXCEPT_CORE = "PropagateResourceLimits = (null)\nPropagateResourceLimitsExcept = CORE,NOFILE\n"


def load(path: Any) -> list[dict[str, Any]]:
    return yaml.safe_load(path.read_text())


def task_named(name: str, path: Any = TASKS) -> dict[str, Any]:
    (task,) = [task for task in load(path) if task["name"] == name]
    return task


def holds(task: dict[str, Any], variables: dict[str, Any]) -> bool:
    """A task's `when` list, evaluated as Ansible does (every entry a bare expression)."""
    when = task.get("when", [])
    for expression in [when] if isinstance(when, str) else when:
        if render_value("{{ (" + str(expression) + ") | bool }}", variables) is not True:
            return False
    return True


def unit_facts(show: str) -> dict[str, Any]:
    """The role's own set_fact over recorded `systemctl show` output."""
    fact = task_named("Keep slurmd's unit settings")["ansible.builtin.set_fact"]
    result = {"stdout": show, "stdout_lines": show.splitlines()}
    unit = render_value(fact["slurm_healthcheck_slurmd_unit"], {"slurm_healthcheck_slurmd_show": result})
    return {"slurm_healthcheck_slurmd_unit": unit}


def base() -> dict[str, Any]:
    return role_defaults(ROLE) | role_vars(ROLE, "main") | {"inventory_hostname": "gpu03"}


@pytest.mark.parametrize(
    ("show", "written"),
    [
        (SHOW_SLURM_UNIT, False),  # Slurm's own unit already has it: no extra file
        (SHOW_SITE_LIMIT, True),
        (SHOW_SOFT_ONLY, True),
        (SHOW_NOT_FOUND, False),  # no slurmd here: nothing to raise
    ],
)
def test_the_drop_in_is_written_only_where_slurmds_unit_has_less(show: str, written: bool) -> None:
    values = base() | unit_facts(show)
    assert holds(task_named("Raise slurmd's locked-memory limit to infinity"), values) is written
    says_missing = holds(task_named("Say that slurmd is not installed"), values)
    assert says_missing is (show == SHOW_NOT_FOUND)


def test_the_drop_in_sets_both_limits_to_infinity_late_among_the_units_drop_ins() -> None:
    values = base() | {"ansible_managed": "Ansible managed"}
    text = render_role_template(ROLE / "templates/slurmd-memlock.conf.j2", values)
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines == ["[Service]", "LimitMEMLOCK=infinity"]  # one value: soft and hard (systemd.exec(5))
    dropin = render_value("{{ slurm_healthcheck_memlock_dropin }}", values)
    assert dropin.startswith("/etc/systemd/system/slurmd.service.d/90-gpunet")
    assert task_named("Raise slurmd's locked-memory limit to infinity")["notify"] == "Slurmd unit changed"


@pytest.mark.parametrize(
    ("limits", "reported"),
    [(LIMITS_CAPPED, True), (LIMITS_UNLIMITED, False)],
)
def test_a_running_slurmd_below_unlimited_is_reported(limits: str, reported: bool) -> None:
    values = base() | unit_facts(SHOW_SLURM_UNIT)
    values["slurm_healthcheck_memlock_written"] = {"changed": False, "skipped": True}
    assert holds(task_named("Read the running slurmd's locked-memory limit"), values)
    values["slurm_healthcheck_slurmd_limits"] = {"rc": 0, "stdout": limits}
    report = task_named("Say that the running slurmd has a lower locked-memory limit")
    assert holds(report, values) is reported


def test_the_running_limit_is_not_read_while_a_restart_is_pending() -> None:
    values = base() | unit_facts(SHOW_SITE_LIMIT)
    values["slurm_healthcheck_memlock_written"] = {"changed": True}
    assert not holds(task_named("Read the running slurmd's locked-memory limit"), values)


@pytest.mark.parametrize(
    ("config", "warned", "shown"),
    [
        (SCONTROL_DEFAULT, True, "PropagateResourceLimits=ALL"),
        (SCONTROL_EXCEPT_MEMLOCK, False, ""),
        (SCONTROL_CORE_MEMLOCK, True, "PropagateResourceLimits=CORE,MEMLOCK"),
        (SCONTROL_NONE, False, ""),
        (SCONTROL_EXCEPT_CORE, True, "PropagateResourceLimitsExcept=CORE,NOFILE"),
    ],
)
def test_slurm_propagating_the_submitters_memlock_is_reported(config: str, warned: bool, shown: str) -> None:
    task = task_named("Say that Slurm passes the submitting shell's memlock limit to jobs")
    values = base() | {"slurm_healthcheck_slurm_config": {"rc": 0, "stdout": config}}
    values |= trusted(task["vars"])
    assert holds(task, values) is warned
    if warned:
        message = render_value(task["ansible.builtin.debug"]["msg"], values)
        assert shown in message and "PropagateResourceLimitsExcept=MEMLOCK in slurm.conf" in message


def test_an_unreachable_controller_warns_nothing() -> None:
    task = task_named("Say that Slurm passes the submitting shell's memlock limit to jobs")
    values = base() | {"slurm_healthcheck_slurm_config": {"rc": 1, "stdout": ""}} | trusted(task["vars"])
    assert not holds(task, values)


def test_handlers_reload_then_check_then_restart_a_running_slurmd() -> None:
    handlers = [h for h in load(ROLE / "handlers/main.yml") if h.get("listen") == "Slurmd unit changed"]
    assert [h["name"] for h in handlers] == [
        "Reload systemd's units",
        "Read slurmd's unit with the drop-in",
        "Stop where slurmd's unit still has a lower locked-memory limit",
        "Restart slurmd",
        "Say that slurmd keeps its old limit until it restarts",
    ]
    restart = handlers[3]
    # try-restart leaves a stopped slurmd stopped; the knob turns the restart off.
    assert restart["ansible.builtin.command"]["argv"] == ["systemctl", "try-restart", "slurmd.service"]
    for restart_on in (True, False):
        values = base() | {"slurm_healthcheck_slurmd_restart": restart_on, "ansible_check_mode": False}
        assert holds(restart, values) is restart_on
        assert holds(handlers[4], values) is not restart_on


@pytest.mark.parametrize("enabled", [True, False])
def test_the_knob_turns_the_whole_thing_off_and_removes_gpunets_drop_in(enabled: bool) -> None:
    tasks = {task["name"]: task for task in load(ROLE / "tasks/main.yml")}
    values = base() | {"slurm_healthcheck_slurmd_memlock": enabled}
    include = tasks["Give slurmd an unbounded locked-memory limit"]
    remove = tasks["Remove the slurmd drop-in gpunet wrote where none is wanted"]
    assert include["ansible.builtin.include_tasks"] == "slurmd_memlock.yml"
    assert holds(include, values) is enabled
    assert holds(remove, values) is not enabled
    assert render_value(remove["ansible.builtin.file"]["path"], values) == render_value(
        "{{ slurm_healthcheck_memlock_dropin }}", values
    )
    # The check after the reload only holds gpunet's own limit to infinity.
    check = task_named(
        "Stop where slurmd's unit still has a lower locked-memory limit", ROLE / "handlers/main.yml"
    )
    assert holds(check, values | {"ansible_check_mode": False}) is enabled
