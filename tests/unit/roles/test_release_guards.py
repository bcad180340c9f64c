"""The host roles stop, before changing anything, on a distribution they are not built for and on a
driver branch NVIDIA no longer supports or whose apt packages NVIDIA renamed (table-driven: each
task's own `that` evaluated by Ansible's templar)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import facts
from tests.unit.roles.templar import render_value, role_defaults, role_vars

# Facts of distributions NVIDIA publishes repositories for that the roles do not handle yet, and
# of one NVIDIA has none for, as `setup` reports them.
UNCLAIMED = {
    "ubuntu2604": {"os_family": "Debian", "distribution": "Ubuntu", "distribution_version": "26.04",
                   "distribution_major_version": "26", "distribution_release": "resolute"},
    "debian13": {"os_family": "Debian", "distribution": "Debian", "distribution_version": "13.1",
                 "distribution_major_version": "13", "distribution_release": "trixie"},
    "rhel10": {"os_family": "RedHat", "distribution": "RedHat", "distribution_version": "10.0",
               "distribution_major_version": "10", "distribution_release": "Coughlan"},
    "sles15": {"os_family": "Suse", "distribution": "SLES", "distribution_version": "15.6",
               "distribution_major_version": "15", "distribution_release": ""},
}  # fmt: skip
FAMILY_VARS = {"Debian": "Debian", "RedHat": "RedHat"}


def task(role: str, file: str, name: str) -> dict[str, Any]:
    tasks = yaml.safe_load((REPO_ROOT / "roles" / role / "tasks" / file).read_text())
    return next(t for t in tasks if t.get("name") == name)


def holds(role: str, file: str, name: str, values: dict[str, Any]) -> bool:
    """The task's assertion, evaluated as Ansible would (its `vars` first)."""
    found = task(role, file, name)
    values = values | {k: render_value(v, values) for k, v in (found.get("vars") or {}).items()}
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


@pytest.mark.parametrize("distro", ["debian12", "ubuntu2204", "ubuntu2404", "rhel9", "rocky9"])
def test_claimed_distributions_pass(distro: str) -> None:
    assert holds("nvidia_repo", "main.yml", REFUSE_DISTRO, repo_values(facts(distro)))


@pytest.mark.parametrize("distro", list(UNCLAIMED))
def test_unclaimed_distributions_stop_unless_allowed(distro: str) -> None:
    ansible_facts = {**UNCLAIMED[distro], "architecture": "x86_64"}
    assert not holds("nvidia_repo", "main.yml", REFUSE_DISTRO, repo_values(ansible_facts))
    allowed = repo_values(ansible_facts, nvidia_repo_allow_unclaimed_distro=True)
    assert holds("nvidia_repo", "main.yml", REFUSE_DISTRO, allowed)


def driver_values(distro: str, **overrides: Any) -> dict[str, Any]:
    role = REPO_ROOT / "roles/nvidia_driver"
    values = role_defaults(role) | role_vars(role, "branches")
    return values | {"ansible_facts": facts(distro)} | overrides


UNSUPPORTED = "Refuse a driver branch NVIDIA no longer supports"
RENAMED = "Refuse an apt branch whose packages NVIDIA renamed (590 and later)"
BRANCH_CASES = [
    # (distro, branch, supported by NVIDIA, installable by the role's apt/dnf path)
    ("ubuntu2404", "580", True, True),
    ("debian12", "580", True, True),
    ("rhel9", "580", True, True),
    ("ubuntu2404", "550", False, True),  # end of life
    ("ubuntu2404", "595", True, False),  # unversioned package names from 590
    ("debian12", "620", True, False),
    ("rocky9", "595", True, True),  # dnf: module streams per branch
]


@pytest.mark.parametrize(("distro", "branch", "supported", "installable"), BRANCH_CASES)
def test_driver_branch_guards(distro: str, branch: str, supported: bool, installable: bool) -> None:
    values = driver_values(distro, nvidia_driver_branch=branch)
    assert holds("nvidia_driver", "install.yml", UNSUPPORTED, values) is supported
    assert holds("nvidia_driver", "install.yml", RENAMED, values) is installable


def test_the_default_branch_is_a_supported_long_term_one() -> None:
    values = driver_values("ubuntu2404")
    assert values["nvidia_driver_supported_branches"][values["nvidia_driver_branch"]] == "LTSB"
    assert holds("nvidia_driver", "install.yml", RENAMED, values)


def test_an_unsupported_branch_can_be_forced() -> None:
    values = driver_values(
        "ubuntu2404", nvidia_driver_branch="550", nvidia_driver_allow_unsupported_branch=True
    )
    assert holds("nvidia_driver", "install.yml", UNSUPPORTED, values)


def test_the_distro_package_source_is_not_held_to_nvidias_names() -> None:
    values = driver_values("ubuntu2404", nvidia_driver_branch="595", gpunet_package_source="distro")
    assert holds("nvidia_driver", "install.yml", RENAMED, values)
