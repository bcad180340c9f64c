"""What lets a no-change site.yml skip work, evaluated from the task files themselves with Ansible's
templar over recorded command output: the one read of the installed packages, the package tasks'
guards on it, and verify_traffic's wait for a round's servers to listen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults, role_vars, trusted

ROLES = REPO_ROOT / "roles"

# `dpkg-query -W -f '${db:Status-Abbrev}${Package}\n'` on a lab node (Debian 12, after site.yml),
# excerpt; the last four lines are the other states dpkg-query(1) documents: removed with its
# configuration kept, held, unpacked only, and installed but needing reinstallation.
DPKG_QUERY = """\
ii chrony
ii ethtool
ii ibverbs-utils
ii infiniband-diags
ii iperf3
ii iproute2
ii nftables
ii perftest
ii procps
ii rdma-core
rc libnccl2
hi libnccl-dev
iU kmod
iiRbuild-essential
"""
INSTALLED = [
    "chrony",
    "ethtool",
    "ibverbs-utils",
    "infiniband-diags",
    "iperf3",
    "iproute2",
    "nftables",
    "perftest",
    "procps",
    "rdma-core",
    "libnccl-dev",
]

# `ss -H -l -t -n` on a lab node while an iperf3 server (dual-stack, shown as *) listened on 5201
# and 5299, plus an IPv4-only perftest-style listener on 18515 (the last line, same layout).
SS_LISTENING = """\
LISTEN 0      128    0.0.0.0:22   0.0.0.0:*
LISTEN 0      4096   0.0.0.0:6818 0.0.0.0:*
LISTEN 0      128       [::]:22      [::]:*
LISTEN 0      4096         *:5201       *:*
LISTEN 0      4096         *:5299       *:*
LISTEN 0      1      0.0.0.0:18515 0.0.0.0:*
"""


def tasks(path: Path) -> list[dict[str, Any]]:
    """Every task of a task file, blocks opened."""
    found = []
    for task in yaml.safe_load(path.read_text()):
        found.extend(task.get("block", [task]))
    return found


def task_named(path: Path, name: str) -> dict[str, Any]:
    (task,) = [task for task in tasks(path) if task["name"] == name]
    return task


def condition(expression: Any, variables: dict[str, Any]) -> bool:
    """A `when`/`until` entry evaluated as Ansible does: the bare expression inside {{ }}."""
    return render_value("{{ " + str(expression) + " }}", variables) is True


def when_holds(task: dict[str, Any], variables: dict[str, Any]) -> bool:
    when = task.get("when", [])
    return all(condition(entry, variables) for entry in (when if isinstance(when, list) else [when]))


def test_the_read_keeps_only_installed_packages() -> None:
    read = tasks(REPO_ROOT / "playbooks/tasks/installed_packages.yml")
    keep = read[1]["ansible.builtin.set_fact"]["gpunet_installed_packages"]
    found = render_value(keep, {"gpunet_installed_packages_read": {"stdout_lines": DPKG_QUERY.splitlines()}})
    assert found == INSTALLED


@pytest.mark.parametrize(
    ("os_family", "argv0"), [("Debian", "dpkg-query"), ("RedHat", "rpm"), ("Suse", None)]
)
def test_the_read_runs_once_per_run_on_the_families_it_knows(os_family: str, argv0: str | None) -> None:
    read = tasks(REPO_ROOT / "playbooks/tasks/installed_packages.yml")[0]
    variables = trusted({**read["vars"], "ansible_facts": {"os_family": os_family}})
    assert when_holds(read, variables) is (argv0 is not None)
    assert when_holds(read, {**variables, "gpunet_installed_packages": []}) is False
    if argv0:
        assert render_value(read["ansible.builtin.command"]["argv"], variables)[0] == argv0


# (task file, task name, role) of every package task guarded by the read; the names it installs on
# Debian come from the role's own defaults and vars.
GUARDED = [
    ("chrony/tasks/main.yml", "Install chrony", "chrony"),
    ("firewall/tasks/nftables.yml", "Install nftables", "firewall"),
    ("nccl_env/tasks/main.yml", "Install sysctl", "nccl_env"),
    ("rdma_tools/tasks/main.yml", "Install the RDMA user space and diagnostics", "rdma_tools"),
    ("roce_host/tasks/configure.yml", "Install the tools the NIC settings need", "roce_host"),
    ("nccl_tests/tasks/build.yml", "Install the build tools", "nccl_tests"),
    ("verify_traffic/tasks/main.yml", "Install iperf3", "verify_traffic"),
]


def test_every_present_only_package_task_of_the_lab_stages_is_guarded() -> None:
    guarded = {(file, name) for file, name, _ in GUARDED}
    unguarded = [
        (str(path.relative_to(ROLES)), task["name"])
        for role in sorted({role for _, _, role in GUARDED})
        for path in sorted((ROLES / role / "tasks").glob("*.yml"))
        for task in tasks(path)
        if "ansible.builtin.package" in task
    ]
    assert sorted(unguarded) == sorted(guarded)


@pytest.mark.parametrize(("file", "name", "role"), GUARDED)
def test_a_package_task_runs_unless_the_read_lists_every_name(file: str, name: str, role: str) -> None:
    task = task_named(ROLES / file, name)
    has_os_vars = (ROLES / role / "vars/Debian.yml").exists()
    variables = {**role_defaults(ROLES / role), **(role_vars(ROLES / role, "Debian") if has_os_vars else {})}
    wanted = render_value(task["ansible.builtin.package"]["name"], variables)
    wanted = [wanted] if isinstance(wanted, str) else list(wanted)
    assert wanted, name
    assert when_holds(task, variables) is True, "no read (role run on its own): the task runs"
    assert when_holds(task, {**variables, "gpunet_installed_packages": [*wanted, "bash"]}) is False
    for missing in wanted:
        others = [package for package in wanted if package != missing]
        assert when_holds(task, {**variables, "gpunet_installed_packages": others}) is True, missing


ROUND = ROLES / "verify_traffic/tasks/round.yml"


def wait_variables(ports: list[int], ss_stdout: str, attempt: int, start_s: int = 10) -> dict[str, Any]:
    wait = task_named(ROUND, "Wait until this round's servers listen")
    return {
        **trusted(wait["vars"]),
        "verify_traffic_server_start_s": start_s,
        "verify_traffic_round": {"servers": [{"argv": ["x"], "port": port} for port in ports], "clients": []},
        "verify_traffic_listening": {"stdout_lines": ss_stdout.splitlines(), "attempts": attempt},
        "verify_traffic_tool": "iperf3",
        "inventory_hostname": "gpu01",
    }


@pytest.mark.parametrize(
    ("ports", "ss_stdout", "attempt", "done", "missing"),
    [
        ([5201], SS_LISTENING, 1, True, []),
        ([5201, 5299], SS_LISTENING, 1, True, []),
        ([18515], SS_LISTENING, 1, True, []),
        ([22], SS_LISTENING, 1, True, []),
        ([5202], SS_LISTENING, 1, False, ["5202"]),
        ([5201, 5202], SS_LISTENING, 39, False, ["5202"]),
        # The last attempt ends the wait; the next task names what is missing.
        ([5201, 5202], SS_LISTENING, 40, True, ["5202"]),
        ([5201], "", 1, False, ["5201"]),
        # 2 s and 0.25 s polls: eight attempts.
        ([5201], "", 8, True, ["5201"]),
    ],
)
def test_the_wait_ends_when_every_server_listens_or_time_is_up(
    ports: list[int], ss_stdout: str, attempt: int, done: bool, missing: list[str]
) -> None:
    wait = task_named(ROUND, "Wait until this round's servers listen")
    start_s = 2 if attempt == 8 else 10
    variables = wait_variables(ports, ss_stdout, attempt, start_s)
    assert condition(wait["until"], variables) is done
    say = task_named(ROUND, "Say which servers did not start listening")
    variables = {**variables, **trusted(say["vars"])}
    assert render_value(say["vars"]["verify_traffic_missing"], variables) == missing
    assert when_holds(say, variables) is bool(missing)
    if missing:
        assert f"port(s) {', '.join(missing)}" in render_value(say["ansible.builtin.debug"]["msg"], variables)


@pytest.mark.parametrize(("start_s", "attempts"), [(10, 40), (2, 8), (1, 4), (0, 1)])
def test_the_wait_polls_four_times_a_second_up_to_the_limit(start_s: int, attempts: int) -> None:
    wait = task_named(ROUND, "Wait until this round's servers listen")
    variables = wait_variables([5201], "", 1, start_s)
    assert int(render_value(wait["retries"], variables)) == attempts - 1
    assert float(render_value(wait["delay"], variables)) == 0.25


NVIDIA_MAIN = ROLES / "nvidia_driver/tasks/main.yml"


@pytest.mark.parametrize(
    ("hardware", "without_gpu", "looks", "pci_stdout", "runtime"),
    [
        ({}, False, True, "8 4", True),
        ({}, False, True, "0 0", False),
        ({"gpus": False}, True, True, "0 0", False),
        # The lab's nodes: no GPUs by the inventory, nothing to install, so no look at the bus.
        ({"gpus": False}, False, False, None, False),
    ],
)
def test_the_pci_look_runs_only_where_its_count_matters(
    hardware: dict[str, Any], without_gpu: bool, looks: bool, pci_stdout: str | None, runtime: bool
) -> None:
    variables = {
        **role_defaults(ROLES / "nvidia_driver"),
        "gpunet_hardware": hardware,
        "nvidia_driver_install_without_gpu": without_gpu,
    }
    assert (
        when_holds(task_named(NVIDIA_MAIN, "Look for NVIDIA GPUs and NVSwitches on the PCI bus"), variables)
        is looks
    )
    pci = {"stdout": pci_stdout} if looks else {"skipped": True}
    summary = task_named(NVIDIA_MAIN, "Summarise what the host has")
    facts = summary["ansible.builtin.set_fact"]
    variables = {**variables, **trusted(summary["vars"]), "nvidia_driver_pci": pci}
    assert render_value(facts["nvidia_driver_runtime"], variables) is runtime
    assert int(render_value(facts["nvidia_driver_gpu_count"], variables)) == int(
        (pci_stdout or "0 0").split()[0]
    )
