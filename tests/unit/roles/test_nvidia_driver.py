"""nvidia_driver per distro: packages, kernel headers, pins and locks from the role's own vars and
templates (Ansible's templar), against NVIDIA's package facts; the persistence-mode override."""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Any

import pytest

from gpunet.hosts.settings import persistenced_exec_start
from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import facts
from tests.unit.roles.templar import render_role_template, render_value, role_defaults, role_vars

ROLE = REPO_ROOT / "roles/nvidia_driver"
VARS_FILE = {
    "debian12": "Debian",
    "ubuntu2204": "Ubuntu",
    "ubuntu2404": "Ubuntu",
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
