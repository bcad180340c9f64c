"""nvidia_driver per distro: packages, kernel headers, pins and locks from the role's own vars and
templates (Ansible's templar), against NVIDIA's package facts; the persistence-mode override."""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Any

import pytest
import yaml

from gpunet.hosts.settings import persistenced_exec_start
from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import facts
from tests.unit.roles.templar import render_role_template, render_value, role_defaults, role_vars

ROLE = REPO_ROOT / "roles/nvidia_driver"
VARS_FILE = {
    "debian12": "Debian",
    "ubuntu2204": "Ubuntu",
    "ubuntu2404": "Ubuntu",
    "ubuntu2604": "Ubuntu",
    "debian13": "Debian",
    "rhel9": "RedHat",
    "rocky9": "RedHat",
    "rhel10": "RedHat",
    "rocky10": "RedHat",
}


def variables(distro: str, **overrides: Any) -> dict[str, Any]:
    values = role_defaults(ROLE) | role_vars(ROLE, VARS_FILE[distro])
    values |= {"ansible_facts": facts(distro), "ansible_managed": "Ansible managed"} | overrides
    return values


def value(distro: str, name: str, **overrides: Any) -> Any:
    values = variables(distro, **overrides)
    return render_value(values[name], values)


# Every package of a driver branch must be held with it (Driver Installation Guide, "Version locking").
# Ubuntu: the per-branch names NVIDIA lists in "Recent updates: Ubuntu 590 package renames" (branch
# 580 there, the default here). Debian: cuda-drivers' dependencies as NVIDIA's forum thread 353805
# quotes them, and the driver's parts in NVIDIA's debian12 repository.
BRANCH_PACKAGES = {
    "Ubuntu": [
        "cuda-drivers-580", "libnvidia-cfg1-580", "libnvidia-common-580", "libnvidia-compute-580",
        "libnvidia-decode-580", "libnvidia-encode-580", "libnvidia-extra-580", "libnvidia-fbc1-580",
        "libnvidia-gl-580", "libnvidia-gpucomp-580", "libnvidia-nscq-580", "libnvsdm-580", "libxnvctrl0",
        "nvidia-dkms-580", "nvidia-dkms-580-open", "nvidia-driver-580-open", "nvidia-utils-580",
        "nvidia-compute-utils-580", "nvidia-kernel-common-580", "nvidia-kernel-source-580-open",
        "nvidia-firmware-580-580.95.05", "nvidia-fabricmanager-580", "xserver-xorg-video-nvidia-580",
        "nvidia-headless-no-dkms-580-open",
    ],
    "Debian": [
        "cuda-drivers", "nvidia-driver", "nvidia-driver-cuda", "nvidia-kernel-dkms",
        "nvidia-kernel-open-dkms",
        "nvidia-settings", "nvidia-xconfig", "nvidia-smi", "nvidia-persistenced", "libcuda1", "libnvidia-ml1",
        "libnvidia-cfg1", "nvidia-kernel-support", "nvidia-alternative", "firmware-nvidia-gsp",
        "nvidia-fabricmanager-580", "libnvidia-nscq-580",
    ],
}  # fmt: skip


@pytest.mark.parametrize("family", ["Ubuntu", "Debian"])
def test_the_apt_pin_covers_every_package_of_the_branch(family: str) -> None:
    distro = "ubuntu2404" if family == "Ubuntu" else "debian12"
    globs = value(distro, "nvidia_driver_os_pinned_globs")
    uncovered = [name for name in BRANCH_PACKAGES[family] if not any(fnmatch(name, glob) for glob in globs)]
    assert uncovered == []
    assert not any(fnmatch("libnvidia-container1", glob) for glob in globs)


# What the role installs from NVIDIA's apt repository, per distro and branch (nvidia_releases.yml,
# apt_driver; NVIDIA Driver Installation Guide, Ubuntu: "Selecting a Branch or Specific Driver
# Version" and "Compute-only System"). Below 590: today's names, held by the role's own pin. From
# 590: NVIDIA's pinning package first, then the unversioned compute-only set, no name carrying the
# branch and no glob.
UBUNTU_COMPUTE_OPEN = ["libnvidia-compute", "nvidia-dkms-open", "nvidia-utils", "nvidia-compute-utils"]
APT_CASES = [
    # (distro, branch, modules, version, pinning package, packages, fabric manager)
    ("ubuntu2204", "580", "open", "", "", ["nvidia-driver-580-open"], "nvidia-fabricmanager-580"),
    ("ubuntu2404", "580", "open", "", "", ["nvidia-driver-580-open"], "nvidia-fabricmanager-580"),
    ("ubuntu2404", "580", "proprietary", "", "", ["nvidia-driver-580"], "nvidia-fabricmanager-580"),
    (
        "debian12", "580", "open", "", "",
        ["nvidia-driver", "nvidia-kernel-open-dkms", "nvidia-persistenced"], "nvidia-fabricmanager-580",
    ),
    (
        "ubuntu2404", "595", "open", "", "nvidia-driver-pinning-595",
        UBUNTU_COMPUTE_OPEN, "nvidia-fabricmanager",
    ),
    (
        "ubuntu2604", "595", "open", "", "nvidia-driver-pinning-595",
        UBUNTU_COMPUTE_OPEN, "nvidia-fabricmanager",
    ),
    (
        "ubuntu2604", "620", "open", "620.10.05", "nvidia-driver-pinning-620.10.05",
        UBUNTU_COMPUTE_OPEN, "nvidia-fabricmanager",
    ),
    (
        "ubuntu2404", "595", "proprietary", "", "nvidia-driver-pinning-595",
        ["libnvidia-compute", "nvidia-dkms", "nvidia-utils", "nvidia-compute-utils"], "nvidia-fabricmanager",
    ),
    (
        "debian13", "595", "open", "", "nvidia-driver-pinning-595",
        ["nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-persistenced"], "nvidia-fabricmanager-595",
    ),
]  # fmt: skip


def apt_values(distro: str, **overrides: Any) -> dict[str, Any]:
    values = variables(distro, **overrides)
    for name in (
        "nvidia_driver_os_packages",
        "nvidia_driver_os_fabricmanager_package",
        "nvidia_driver_os_pinning_package",
    ):
        values[name] = render_value(values[name], values)
    return values


@pytest.mark.parametrize(
    ("distro", "branch", "modules", "version", "pinning", "packages", "fabric"), APT_CASES
)
def test_apt_packages_and_lock_per_branch(
    distro: str, branch: str, modules: str, version: str, pinning: str, packages: list[str], fabric: str
) -> None:
    values = apt_values(
        distro,
        nvidia_driver_branch=branch,
        nvidia_driver_kernel_modules=modules,
        nvidia_driver_version=version,
    )
    assert values["nvidia_driver_os_pinning_package"].strip() == pinning
    assert values["nvidia_driver_os_packages"]["nvidia"] == packages
    assert values["nvidia_driver_os_packages"]["mirror"] == packages
    assert values["nvidia_driver_os_fabricmanager_package"].strip() == fabric
    if pinning:  # the lock is NVIDIA's package: no driver package name carries the branch, none is a glob
        installed = values["nvidia_driver_os_packages"]["nvidia"]
        assert not [name for name in installed if branch in name or "*" in name]


def test_the_distro_source_keeps_the_archives_per_branch_names_and_the_roles_pin() -> None:
    values = apt_values("ubuntu2404", nvidia_driver_branch="595", gpunet_package_source="distro")
    assert values["nvidia_driver_os_pinning_package"].strip() == ""
    assert values["nvidia_driver_os_packages"]["distro"] == ["nvidia-driver-595-server-open"]
    assert values["nvidia_driver_os_fabricmanager_package"].strip() == "nvidia-fabricmanager-595"


def apt_tasks() -> list[dict[str, Any]]:
    tasks = yaml.safe_load((ROLE / "tasks/apt.yml").read_text())
    flat = []
    for item in tasks:
        flat.append(item)
        flat += [child | {"when": item["when"]} for child in item.get("block", [])]
    return flat


def runs(task: dict[str, Any], values: dict[str, Any]) -> bool:
    conditions = task.get("when", [])
    conditions = conditions if isinstance(conditions, list) else [conditions]
    return all(render_value("{{ (" + str(c) + ") | bool }}", values) for c in conditions)


PIN_TEMPLATE = "Pin the driver to its branch or version"
PIN_REMOVED = "Remove the role's own pin where NVIDIA's pinning package holds the branch"
PINNING = "Install NVIDIA's pinning package before the driver"
PINNING_CHECK = "Stop where the repository cannot lock this branch"
INSTALL = "Install the driver packages at the pinned version"


@pytest.mark.parametrize(
    ("distro", "branch", "pinned_by_package"),
    [("ubuntu2204", "580", False), ("ubuntu2404", "580", False), ("debian12", "580", False),
     ("ubuntu2404", "595", True), ("ubuntu2604", "620", True), ("debian13", "595", True)],
)  # fmt: skip
def test_which_lock_the_apt_tasks_write(distro: str, branch: str, pinned_by_package: bool) -> None:
    values = apt_values(distro, nvidia_driver_branch=branch)
    by_name = {task["name"]: task for task in apt_tasks()}
    assert runs(by_name[PIN_TEMPLATE], values) is not pinned_by_package
    assert runs(by_name[PIN_REMOVED], values) is pinned_by_package
    assert runs(by_name[PINNING], values) is pinned_by_package
    assert runs(by_name[PINNING_CHECK], values) is pinned_by_package
    assert runs(by_name[INSTALL], values)


def test_the_pinning_package_is_checked_and_installed_before_the_driver() -> None:
    names = [task["name"] for task in apt_tasks()]
    assert names.index(PIN_REMOVED) < names.index(PINNING_CHECK) < names.index(PINNING) < names.index(INSTALL)
    values = apt_values("ubuntu2404", nvidia_driver_branch="595")
    install = next(task for task in apt_tasks() if task["name"] == PINNING)
    assert render_value(install["ansible.builtin.apt"]["name"], values).strip() == "nvidia-driver-pinning-595"


@pytest.mark.parametrize(
    ("branch", "version", "suffix"),
    [("580", "580.95.05", "=580.95.05-*"), ("595", "595.71.05", ""), ("595", "", "")],
)
def test_an_exact_version_is_chosen_by_the_roles_pin_or_by_nvidias(
    branch: str, version: str, suffix: str
) -> None:
    values = apt_values("ubuntu2404", nvidia_driver_branch=branch, nvidia_driver_version=version)
    install = next(task for task in apt_tasks() if task["name"] == INSTALL)
    assert render_value(install["vars"]["nvidia_driver_version_suffix"], values).strip() == suffix


PINNING_NAMES = "nvidia-driver-pinning-580\nnvidia-driver-pinning-595\nnvidia-driver-pinning-595.71.05\n"


@pytest.mark.parametrize(
    ("package", "expected"),
    [
        ("nvidia-driver-pinning-595", ""),
        ("nvidia-driver-pinning-620", "it has 580, 595, 595.71.05"),
    ],
)
def test_the_pinning_check_names_what_the_repository_can_lock(package: str, expected: str) -> None:
    check = next(task for task in apt_tasks() if task["name"] == PINNING_CHECK)
    values = {
        "nvidia_driver_pinning_names": {"stdout": PINNING_NAMES},
        "nvidia_driver_os_pinning_package": package,
    }
    problem = render_value(check["vars"]["nvidia_driver_pinning_problem"], values).strip()
    assert problem.endswith(expected)
    assert bool(problem) is bool(expected)


@pytest.mark.parametrize(
    ("version", "pin"), [("", "Pin: version 580.*"), ("580.95.05", "Pin: version 580.95.05-*")]
)
def test_apt_preferences_pin_the_branch_or_the_version(version: str, pin: str) -> None:
    values = variables("ubuntu2204", nvidia_driver_version=version)
    values["nvidia_driver_os_pinned_globs"] = render_value(values["nvidia_driver_os_pinned_globs"], values)
    text = render_role_template(ROLE / "templates/apt-preferences.j2", values)
    assert pin in text.splitlines()
    assert "Pin-Priority: 1001" in text.splitlines()


# (distro, running-kernel packages DKMS builds against, prerequisites): Driver Installation Guide.
HEADERS = [
    ("debian12", ["linux-headers-6.1.0-28-amd64"], []),
    ("ubuntu2404", ["linux-headers-6.8.0-49-generic"], []),
    # EL 9/10: kernel-devel-matched (the kernel-devel of the running kernel, wherever it is in the
    # repositories), not kernel-devel-$(uname -r), which is gone once the host is behind.
    ("rocky9", ["kernel-devel-matched", "kernel-headers"], ["python3-dnf-plugin-versionlock", "dkms"]),
    ("rhel10", ["kernel-devel-matched", "kernel-headers"], ["python3-dnf-plugin-versionlock", "dkms"]),
]


@pytest.mark.parametrize(("distro", "kernel_packages", "prerequisites"), HEADERS)
def test_kernel_headers_of_the_running_kernel(
    distro: str, kernel_packages: list[str], prerequisites: list[str]
) -> None:
    assert value(distro, "nvidia_driver_os_kernel_packages") == kernel_packages
    assert value(distro, "nvidia_driver_os_prerequisites") == prerequisites


@pytest.mark.parametrize(("version", "spec"), [("", "*nvidia*580*"), ("580.95.05", "*nvidia*580.95.05*")])
def test_rhel_locks_every_package_of_the_branch(version: str, spec: str) -> None:
    assert value("rhel9", "nvidia_driver_os_versionlock_specs", nvidia_driver_version=version) == [spec]


@pytest.mark.parametrize(
    ("modules", "stream"), [("open", "nvidia-driver:580-open"), ("proprietary", "nvidia-driver:580-dkms")]
)
def test_rhel_fabric_manager_comes_from_the_drivers_own_stream(modules: str, stream: str) -> None:
    assert value(
        "rocky9", "nvidia_driver_os_fabricmanager_package", nvidia_driver_kernel_modules=modules
    ) == (f"@{stream}/fm")


def test_gpudirect_defaults_to_dmabuf() -> None:
    assert role_defaults(ROLE)["nvidia_driver_gpudirect"] == "dmabuf"


# `systemctl cat` of Ubuntu's packaged unit (NVIDIA/ubuntu-packaging-nvidia-driver
# debian/nvidia-persistenced.service), before and after gpunet's drop-in.
UBUNTU_UNIT = """# /lib/systemd/system/nvidia-persistenced.service
[Unit]
Description=NVIDIA Persistence Daemon

[Service]
Type=forking
ExecStart=/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode --verbose
ExecStopPost=/bin/rm -rf /var/run/nvidia-persistenced
"""
WITH_DROPIN = (
    UBUNTU_UNIT
    + """
# /etc/systemd/system/nvidia-persistenced.service.d/gpunet-persistence-mode.conf
[Service]
ExecStart=
ExecStart=/usr/bin/nvidia-persistenced --user nvidia-persistenced --verbose --persistence-mode
"""
)
WANT = "/usr/bin/nvidia-persistenced --user nvidia-persistenced --verbose --persistence-mode"


@pytest.mark.parametrize("unit", [UBUNTU_UNIT, WITH_DROPIN], ids=["packaged unit", "second run"])
def test_persistence_mode_override_keeps_the_units_command_line(unit: str) -> None:
    assert persistenced_exec_start(unit) == WANT


def test_a_unit_without_execstart_is_refused() -> None:
    with pytest.raises(ValueError, match="ExecStart"):
        persistenced_exec_start("[Service]\nType=forking\n")


@pytest.mark.parametrize(
    ("model", "nvlsm"),
    [("B200-SXM-180GB", True), ("GB200", True), ("B300", True), ("H100-SXM5-80GB", False), ("A100", False)],
)
def test_nvlink_subnet_manager_only_for_blackwell(model: str, nvlsm: bool) -> None:
    expression = "{{ gpunet_gpus.model is match('^G?B[1-9][0-9]{2}') }}"
    tasks = (ROLE / "tasks/install.yml").read_text()
    assert "is match('^G?B[1-9][0-9]{2}')" in tasks
    assert render_value(expression, {"gpunet_gpus": {"model": model}}) is nvlsm


# RHEL 10 has no module streams: nvidia-open of the branch, held by versionlock (Driver Installation
# Guide 620, "Kernel Modules"); RHEL 9 keeps the stream.
RHEL_PACKAGES = [
    ("rocky9", "", ["@nvidia-driver:580-open"], "@nvidia-driver:580-open/fm"),
    ("rhel10", "", ["nvidia-open-580*"], "nvidia-fabric-manager-580*"),
    ("rocky10", "580.95.05", ["nvidia-open-580.95.05*"], "nvidia-fabric-manager-580.95.05*"),
]


@pytest.mark.parametrize(("distro", "version", "packages", "fabric_manager"), RHEL_PACKAGES)
def test_rhel_packages_per_major(distro: str, version: str, packages: list[str], fabric_manager: str) -> None:
    values = variables(distro, nvidia_driver_version=version)
    chosen = render_value(values["nvidia_driver_os_packages"], values)["nvidia"]
    assert chosen == packages
    fabric = value(distro, "nvidia_driver_os_fabricmanager_package", nvidia_driver_version=version)
    assert fabric == fabric_manager
    spec = f"*nvidia*{version or '580'}*"
    assert value(distro, "nvidia_driver_os_versionlock_specs", nvidia_driver_version=version) == [spec]
    assert value(distro, "nvidia_driver_os_module_streams") is distro.endswith("9")
