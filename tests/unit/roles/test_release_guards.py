"""The host roles stop, before changing anything, on a distribution they are not built for and on a
driver branch NVIDIA no longer supports or whose apt packages NVIDIA renamed (table-driven: each
task's own `that` evaluated by Ansible's templar)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpunet.hosts import published_versions
from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import facts
from tests.unit.roles.templar import render_value, role_defaults, role_vars

# Facts of a distribution NVIDIA has no repository for, and of a future one the release table could
# list unclaimed, as `setup` reports them.
UNCLAIMED = {
    "sles15": {"os_family": "Suse", "distribution": "SLES", "distribution_version": "15.6",
               "distribution_major_version": "15", "distribution_release": ""},
    "ubuntu2804": {"os_family": "Debian", "distribution": "Ubuntu", "distribution_version": "28.04",
                   "distribution_major_version": "28", "distribution_release": "future"},
}  # fmt: skip
FAMILY_VARS = {"Debian": "Debian", "RedHat": "RedHat"}


def task(role: str, file: str, name: str) -> dict[str, Any]:
    tasks = yaml.safe_load((REPO_ROOT / "roles" / role / "tasks" / file).read_text())
    return next(t for t in tasks if t.get("name") == name)


def holds(role: str, file: str, name: str, values: dict[str, Any]) -> bool:
    """The task's assertion, evaluated as Ansible would (its `vars` first)."""
    found = task(role, file, name)
    for name, expression in (found.get("vars") or {}).items():  # in order: a var may use an earlier one
        values = values | {name: render_value(expression, values)}
    that = found["ansible.builtin.assert"]["that"]
    expressions = that if isinstance(that, list) else [that]
    return all(render_value("{{ (" + str(e).strip() + ") | bool }}", values) for e in expressions)


def repo_values(ansible_facts: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    role = REPO_ROOT / "roles/nvidia_repo"
    values = role_defaults(role) | role_vars(role, "claimed")
    if ansible_facts["os_family"] in FAMILY_VARS:
        values |= role_vars(role, FAMILY_VARS[ansible_facts["os_family"]])
    return values | {"ansible_facts": ansible_facts, "inventory_hostname": "gpu01"} | overrides


REFUSE_DISTRO = "Refuse a distribution the host roles are not built for"


CLAIMED = [
    "debian12", "debian13", "ubuntu2204", "ubuntu2404", "ubuntu2604", "rhel9", "rocky9", "rhel10", "rocky10",
]  # fmt: skip


@pytest.mark.parametrize("distro", CLAIMED)
def test_claimed_distributions_pass(distro: str) -> None:
    assert holds("nvidia_repo", "main.yml", REFUSE_DISTRO, repo_values(facts(distro)))


@pytest.mark.parametrize("distro", list(UNCLAIMED))
def test_unclaimed_distributions_stop_unless_allowed(distro: str) -> None:
    ansible_facts = {**UNCLAIMED[distro], "architecture": "x86_64"}
    assert not holds("nvidia_repo", "main.yml", REFUSE_DISTRO, repo_values(ansible_facts))
    allowed = repo_values(ansible_facts, nvidia_repo_allow_unclaimed_distro=True)
    assert holds("nvidia_repo", "main.yml", REFUSE_DISTRO, allowed)


def refusal(ansible_facts: dict[str, Any]) -> str:
    found = task("nvidia_repo", "main.yml", REFUSE_DISTRO)
    values = repo_values(ansible_facts)
    for name, expression in found["vars"].items():
        values |= {name: render_value(expression, values)}
    return " ".join(render_value(found["ansible.builtin.assert"]["fail_msg"], values).split())


def test_ubuntu2604_is_claimed_now() -> None:
    assert (
        "ubuntu2604" in role_vars(REPO_ROOT / "roles/nvidia_repo", "claimed")["nvidia_repo_claimed_folders"]
    )
    assert published_versions.distro_refusal("ubuntu2604") == ""


def test_an_unclaimed_folder_is_refused_with_the_reason_the_release_table_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = published_versions.releases()
    row = {"claimed": False, "family": "Debian", "refused": "its driver packages are not built here yet"}
    unclaimed = {**table, "distributions": {**table["distributions"], "ubuntu2804": row}}
    monkeypatch.setattr(published_versions, "releases", lambda: unclaimed)
    message = refusal({**UNCLAIMED["ubuntu2804"], "architecture": "x86_64"})
    assert "(ubuntu2804)" in message
    assert ": its driver packages are not built here yet. Nothing was changed" in message
    assert "ubuntu2604" in message  # the claimed list it names


def driver_values(distro: str, **overrides: Any) -> dict[str, Any]:
    role = REPO_ROOT / "roles/nvidia_driver"
    values = role_defaults(role) | role_vars(role, "branches")
    return values | {"ansible_facts": facts(distro)} | overrides


UNSUPPORTED = "Refuse a driver branch NVIDIA no longer supports"
OPEN_ONLY_BRANCH = "Refuse proprietary kernel modules on a branch NVIDIA ships open modules only for"
BRANCH_CASES = [
    # (distro, branch, supported by NVIDIA): every supported branch installs, 590+ apt ones through
    # NVIDIA's pinning package (test_nvidia_driver.py), so no branch is refused for its package names.
    ("ubuntu2404", "580", True),
    ("debian12", "580", True),
    ("rhel9", "580", True),
    ("ubuntu2404", "550", False),  # end of life
    ("ubuntu2404", "595", True),
    ("debian12", "620", True),
    ("rocky9", "595", True),
    ("rocky10", "620", True),
]


@pytest.mark.parametrize(("distro", "branch", "supported"), BRANCH_CASES)
def test_driver_branch_guards(distro: str, branch: str, supported: bool) -> None:
    values = driver_values(distro, nvidia_driver_branch=branch)
    assert holds("nvidia_driver", "install.yml", UNSUPPORTED, values) is supported
    assert holds("nvidia_driver", "install.yml", OPEN_ONLY_BRANCH, values)


def test_the_default_branch_is_a_supported_long_term_one() -> None:
    values = driver_values("ubuntu2404")
    branch = render_value(values["nvidia_driver_branch"], values)
    assert values["nvidia_driver_supported_branches"][branch] == "LTSB"


def test_an_unsupported_branch_can_be_forced() -> None:
    values = driver_values(
        "ubuntu2404", nvidia_driver_branch="550", nvidia_driver_allow_unsupported_branch=True
    )
    assert holds("nvidia_driver", "install.yml", UNSUPPORTED, values)


# NVIDIA ships open kernel modules only from 620 (Driver Installation Guide 620, "Kernel Modules").
@pytest.mark.parametrize(
    ("branch", "modules", "allowed"),
    [
        ("620", "proprietary", False),
        ("620", "open", True),
        ("595", "proprietary", True),
        ("580", "proprietary", True),
    ],
)
def test_proprietary_modules_stop_where_the_branch_has_open_ones_only(
    branch: str, modules: str, allowed: bool
) -> None:
    values = driver_values("ubuntu2404", nvidia_driver_branch=branch, nvidia_driver_kernel_modules=modules)
    assert holds("nvidia_driver", "install.yml", OPEN_ONLY_BRANCH, values) is allowed


PUBLISHED = "Refuse a branch NVIDIA does not publish for this distribution"


@pytest.mark.parametrize(
    ("folder", "branch", "published"),
    [
        ("debian13", "580", True),
        ("debian13", "570", False),  # Debian 13 is listed from the r580 guide
        ("rhel10", "575", False),
        ("rhel10", "580", True),
        ("ubuntu2404", "550", True),  # older branches were published there
        ("ubuntu2604", "580", False),  # 590 and later only
        ("ubuntu2604", "595", True),
        ("ubuntu2604", "620", True),
    ],
)
def test_driver_branch_published_per_distribution(folder: str, branch: str, published: bool) -> None:
    values = driver_values("debian12", nvidia_driver_branch=branch, nvidia_repo_os_folder=folder)
    assert holds("nvidia_driver", "install.yml", PUBLISHED, values) is published


def published_message(folder: str, branch: str) -> str:
    found = task("nvidia_driver", "install.yml", PUBLISHED)
    values = driver_values("debian12", nvidia_driver_branch=branch, nvidia_repo_os_folder=folder)
    values |= {"inventory_hostname": "gpu01"}
    for name, expression in found["vars"].items():
        values |= {name: render_value(expression, values)}
    return " ".join(render_value(found["ansible.builtin.assert"]["fail_msg"], values).split())


def test_an_unpublished_branch_is_refused_naming_the_branches_published_there() -> None:
    message = published_message("ubuntu2604", "580")
    assert "NVIDIA publishes driver branch 590 or later for ubuntu2604, not 580" in message
    assert "supported branches published there: 595, 620" in message
    assert "No driver was installed" in message
    assert "supported branches published there: 580, 595, 620" in published_message("debian13", "570")


OPEN_ONLY = "Refuse proprietary kernel modules where only the open driver is installed"


@pytest.mark.parametrize(
    ("distro", "modules", "allowed"),
    [("rocky9", "proprietary", True), ("rhel10", "proprietary", False), ("rhel10", "open", True)],
)
def test_rhel10_installs_only_the_open_driver(distro: str, modules: str, allowed: bool) -> None:
    role = REPO_ROOT / "roles/nvidia_driver"
    values = driver_values(distro, nvidia_driver_kernel_modules=modules) | role_vars(role, "RedHat")
    streams = values["nvidia_driver_os_module_streams"]
    values["nvidia_driver_os_module_streams"] = render_value(streams, values)
    assert holds("nvidia_driver", "install.yml", OPEN_ONLY, values) is allowed


CUDA_DRIVER = "Check the CUDA pin against the driver branch"


@pytest.mark.parametrize(
    ("cuda", "branch", "runs"), [("13.0.2", "580", True), ("13.0.2", "550", False), ("12.9.1", "550", True)]
)
def test_cuda_13_needs_branch_580(cuda: str, branch: str, runs: bool) -> None:
    values = {"cuda_toolkit_version": cuda, "nvidia_driver_branch": branch, "inventory_hostname": "gpu01"}
    assert holds("cuda_toolkit", "install.yml", CUDA_DRIVER, values) is runs
