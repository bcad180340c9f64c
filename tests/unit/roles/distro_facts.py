"""Ansible facts of the supported distributions, as `setup` reports them, and NVIDIA's per-distro facts.

VENDOR_FACTS is the table the per-distro role tests compare against; every row names its source.
"""

from __future__ import annotations

from typing import Any

DISTROS: dict[str, dict[str, str]] = {
    "debian12": {
        "os_family": "Debian",
        "distribution": "Debian",
        "distribution_version": "12.8",
        "distribution_major_version": "12",
        "distribution_release": "bookworm",
    },
    "ubuntu2204": {
        "os_family": "Debian",
        "distribution": "Ubuntu",
        "distribution_version": "22.04",
        "distribution_major_version": "22",
        "distribution_release": "jammy",
    },
    "ubuntu2404": {
        "os_family": "Debian",
        "distribution": "Ubuntu",
        "distribution_version": "24.04",
        "distribution_major_version": "24",
        "distribution_release": "noble",
    },
    "ubuntu2604": {
        "os_family": "Debian",
        "distribution": "Ubuntu",
        "distribution_version": "26.04",
        "distribution_major_version": "26",
        "distribution_release": "resolute",
    },
    "debian13": {
        "os_family": "Debian",
        "distribution": "Debian",
        "distribution_version": "13.2",
        "distribution_major_version": "13",
        "distribution_release": "trixie",
    },
    "rhel9": {
        "os_family": "RedHat",
        "distribution": "RedHat",
        "distribution_version": "9.4",
        "distribution_major_version": "9",
        "distribution_release": "Plow",
    },
    "rocky9": {
        "os_family": "RedHat",
        "distribution": "Rocky",
        "distribution_version": "9.4",
        "distribution_major_version": "9",
        "distribution_release": "Blue Onyx",
    },
    "rhel10": {
        "os_family": "RedHat",
        "distribution": "RedHat",
        "distribution_version": "10.1",
        "distribution_major_version": "10",
        "distribution_release": "Coughlan",
    },
    "rocky10": {
        "os_family": "RedHat",
        "distribution": "Rocky",
        "distribution_version": "10.1",
        "distribution_major_version": "10",
        "distribution_release": "Red Quartz",
    },
}

KERNELS = {"Debian": "6.1.0-28-amd64", "Ubuntu": "6.8.0-49-generic", "RedHat": "5.14.0-427.13.1.el9_4.x86_64"}


def facts(distro: str, arch: str = "x86_64") -> dict[str, Any]:
    values: dict[str, Any] = dict(DISTROS[distro])
    kernel = KERNELS.get(values["distribution"], KERNELS["RedHat"])
    values |= {"architecture": arch, "kernel": kernel, "processor_vcpus": 16}
    return values


DRIVER_GUIDE = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/"
NVIDIA_ROLE = "NVIDIA/ansible-role-nvidia-driver defaults/main.yml"
CUDA_REPOS = "https://developer.download.nvidia.com/compute/cuda/repos/"

# distro -> (NVIDIA repository folder, signing key file, Debian components needed, source)
VENDOR_FACTS: dict[str, dict[str, Any]] = {
    "debian12": {
        "folder": "debian12",
        "key": "3bf863cc.pub",
        "components": ["contrib"],
        "source": f"{DRIVER_GUIDE} (Debian: network repository, enable contrib); {NVIDIA_ROLE}",
    },
    "ubuntu2204": {
        "folder": "ubuntu2204",
        "key": "3bf863cc.pub",
        "components": [],
        "source": f"{DRIVER_GUIDE} (Ubuntu: network repository, cuda-keyring); {NVIDIA_ROLE} (ubuntu gpgkey)",
    },
    "ubuntu2404": {
        "folder": "ubuntu2404",
        "key": "3bf863cc.pub",
        "components": [],
        "source": f"{DRIVER_GUIDE} (Ubuntu); {CUDA_REPOS}ubuntu2404/",
    },
    "ubuntu2604": {
        "folder": "ubuntu2604",
        "key": "3bf863cc.pub",
        "components": [],
        "source": f"{DRIVER_GUIDE} (Ubuntu: network repository, $distro ubuntu2604; listed from 610)",
    },
    "debian13": {
        "folder": "debian13",
        "key": "3bf863cc.pub",
        "components": ["contrib"],
        "source": f"{DRIVER_GUIDE} (Debian 13 listed from r580; enable contrib)",
    },
    "rhel9": {
        "folder": "rhel9",
        "key": "D42D0685.pub",
        "epel": "https://dl.fedoraproject.org/pub/epel/epel-release-latest-9.noarch.rpm",
        "crb": "codeready-builder-for-rhel-9-x86_64-rpms",
        "source": f"{DRIVER_GUIDE} (RHEL: EPEL, CodeReady Builder); {NVIDIA_ROLE} (rhel gpgkey)",
    },
    "rocky9": {
        "folder": "rhel9",
        "key": "D42D0685.pub",
        "epel": "epel-release",
        "crb": "crb",
        "source": f"{DRIVER_GUIDE} (Rocky Linux: epel-release, dnf config-manager --set-enabled crb)",
    },
    "rhel10": {
        "folder": "rhel10",
        "key": "CDF6BA43.pub",
        "epel": "https://dl.fedoraproject.org/pub/epel/epel-release-latest-10.noarch.rpm",
        "crb": "codeready-builder-for-rhel-10-x86_64-rpms",
        "source": f"{DRIVER_GUIDE} (RHEL 10 listed from r580); roce.md host releases (key CDF6BA43.pub)",
    },
    "rocky10": {
        "folder": "rhel10",
        "key": "CDF6BA43.pub",
        "epel": "epel-release",
        "crb": "crb",
        "source": f"{DRIVER_GUIDE} (Rocky Linux 10 as rhel10)",
    },
}
