"""What NVIDIA publishes for each distribution and CUDA major (nvidia_releases.yml), and checking a
pin against what a repository really offers before anything is installed.

The table catches an impossible combination before a host is touched (CUDA 12.4.1 has no ubuntu2404
packages, CUDA 13 needs branch 580, Debian 13 has no driver before 580); the metadata
check catches everything else, naming what the repository does have.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

import yaml


@functools.cache
def releases() -> dict[str, Any]:
    """nvidia_releases.yml: per distribution folder and CUDA major what NVIDIA publishes, and the defaults."""
    text = resources.files("gpunet.hosts").joinpath("nvidia_releases.yml").read_text()
    return yaml.safe_load(text)


def claimed_folders() -> list[str]:
    return [folder for folder, row in releases()["distributions"].items() if row["claimed"]]


def distro_refusal(folder: str) -> str:
    """Why gpunet refuses NVIDIA repository folder `folder` ("" where the table gives no reason)."""
    row = releases()["distributions"].get(folder) or {}
    return str(row.get("refused", "")).strip()


# `apt-cache madison PKG`: "cuda-toolkit-12-4 | 12.4.1-1 | https://... Packages".
_MADISON = re.compile(r"^\s*(?P<name>\S+)\s*\|\s*(?P<version>\S+)\s*\|", re.MULTILINE)
# `dnf list --showduplicates PKG`: "cuda-toolkit-12-4.x86_64   12.4.1-1   cuda-rhel9-x86_64".
_DNF_LIST = re.compile(
    r"^(?P<name>[\w.+-]+?)\.(?:x86_64|aarch64|noarch)\s+(?:\d+:)?(?P<version>\S+)\s+\S+", re.M
)


def series(version: str) -> tuple[int, int]:
    parts = str(version).split(".")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def cuda_published_problem(folder: str, version: str) -> str:
    """Why NVIDIA's repository for `folder` cannot have CUDA `version`, or "" when it can."""
    row = releases()["distributions"].get(folder)
    if row is None:
        return ""
    first = series(row["first_cuda"])
    if series(version) < first:
        return (
            f"CUDA {version} is not published for {folder}: NVIDIA's {folder} repository starts at CUDA"
            f" {first[0]}.{first[1]} (nvidia_releases.yml, read {releases()['read_on']});"
            f" choose cuda_toolkit_version {first[0]}.{first[1]} or later"
        )
    return ""


def _cuda_major(version: str) -> dict[str, Any] | None:
    return releases()["cuda_majors"].get(str(series(version)[0]))


def cuda_driver_problem(cuda_version: str, branch: str) -> str:
    """Why driver branch `branch` cannot run CUDA `cuda_version`, or "" when it can."""
    row = _cuda_major(cuda_version)
    if row is None or not str(branch).isdigit() or int(branch) >= row["lowest_branch"]:
        return ""
    return (
        f"CUDA {cuda_version} needs driver branch {row['lowest_branch']} or later; nvidia_driver_branch is"
        f" {branch}. Choose a CUDA {series(cuda_version)[0] - 1}.x toolkit or a newer branch"
    )


def driver_branch_problem(folder: str, branch: str, supported: Iterable[str] = ()) -> str:
    """Why NVIDIA publishes no driver of `branch` for `folder`, or "" when it does.

    `supported`: the branches NVIDIA supports (roles/nvidia_driver/vars/branches.yml); the message
    names those published for `folder`, so the operator can pick one.
    """
    row = releases()["distributions"].get(folder)
    if row is None or not str(branch).isdigit() or int(branch) >= row["lowest_branch"]:
        return ""
    problem = f"NVIDIA publishes driver branch {row['lowest_branch']} or later for {folder}, not {branch}"
    there = sorted(
        (b for b in map(str, supported) if b.isdigit() and int(b) >= row["lowest_branch"]), key=int
    )
    return problem + (f"; supported branches published there: {', '.join(there)}" if there else "")


def nvidia_repo_folder(facts: dict[str, Any]) -> str:
    """NVIDIA's repository folder for a host, from its Ansible facts: ubuntu2404, debian12, rhel9, ..."""
    distribution = str(facts.get("distribution", ""))
    major = str(facts.get("distribution_major_version", ""))
    if distribution == "Ubuntu":
        return "ubuntu" + str(facts.get("distribution_version", "")).replace(".", "")
    if facts.get("os_family") == "RedHat":
        return "rhel" + major  # Rocky and Alma use NVIDIA's rhel folders
    return distribution.lower() + major


def release_defaults(folder: str) -> dict[str, str]:
    """The roles' defaults for NVIDIA folder `folder`: the table's defaults, with that folder's own."""
    table = releases()["defaults"]
    chosen = {name: str(value) for name, value in table.items() if name != "per_folder"}
    return chosen | {
        name: str(value) for name, value in (table.get("per_folder") or {}).get(folder, {}).items()
    }


def apt_driver_packages(distribution: str, branch: str, modules: str, version: str = "") -> dict[str, Any]:
    """How NVIDIA's apt repository installs driver branch `branch` (nvidia_releases.yml, apt_driver).

    {"pinning_package": NVIDIA's pinning package ("" below the pinning branch: the role pins itself),
    "packages": the driver's packages, "fabricmanager": fabric manager's package}. `distribution` is
    Ansible's (Ubuntu; any other apt distribution reads the Debian rows), `modules` open or proprietary.
    """
    table = releases()["apt_driver"]
    rows = table["Ubuntu" if distribution == "Ubuntu" else "Debian"]
    pinned = str(branch).isdigit() and int(branch) >= table["pinning_from"]
    row = rows["from_pinning" if pinned else "before_pinning"]
    if modules not in ("open", "proprietary"):
        raise ValueError(f"kernel modules {modules!r}: expected open or proprietary")

    def name(pattern: str) -> str:
        return pattern.format(branch=branch, lock=version or branch)

    return {
        "pinning_package": name(table["pinning_package"]) if pinned else "",
        "packages": [name(p) for p in row[modules] + row.get("tools", [])],
        "fabricmanager": name(row["fabricmanager"]),
    }


def kernel_modules_problem(branch: str, modules: str) -> str:
    """Why branch `branch` cannot have `modules` kernel modules, or "" when it can."""
    since = releases()["apt_driver"]["open_only_from"]
    if modules == "proprietary" and str(branch).isdigit() and int(branch) >= since:
        return (
            f"NVIDIA ships open kernel modules only from branch {since} (Driver Installation Guide"
            f" {since}, Kernel Modules); nvidia_driver_kernel_modules is proprietary with branch {branch}."
            f" Use open modules (Turing and newer GPUs) or a branch below {since}"
        )
    return ""


def pinning_problem(names: str, package: str) -> str:
    """Why the repository whose package names are `names` (`apt-cache pkgnames nvidia-driver-pinning-`,
    one a line) has no pinning package `package`, naming the branches and versions it can pin; or ""."""
    offered = sorted({line.strip() for line in names.splitlines() if line.strip()}, key=_numbers)
    if package in offered:
        return ""
    prefix = package.rsplit("-", 1)[0] + "-"
    locks = [name.removeprefix(prefix) for name in offered if name.startswith(prefix)]
    offer = f"it has {', '.join(locks)}" if locks else "it has no pinning package at all"
    return f"{package} is not in the configured repository, so the branch cannot be locked: {offer}"


# dpkg's db:Status-Abbrev: desired action, then the package's status; these statuses mean its files
# are on the host (installed, unpacked, half-configured, half-installed, triggers awaited/pending).
_ON_THE_HOST = set("iUFHWt")


def stale_pinning_packages(listing: str, wanted: str) -> list[str]:
    """NVIDIA pinning packages on the host that lock another branch than `wanted` ("": none is
    wanted), from `dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'nvidia-driver-pinning-*'`.
    Left installed (and held) after a branch change, one would keep apt on the old branch."""
    stale = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) != 2 or len(fields[0]) < 2 or fields[0][1] not in _ON_THE_HOST:
            continue
        if fields[1].startswith("nvidia-driver-pinning-") and fields[1] != wanted:
            stale.append(fields[1])
    return sorted(stale, key=_numbers)


def repository_versions(text: str) -> dict[str, list[str]]:
    """Package name -> versions, from `apt-cache madison` or `dnf list --showduplicates` output."""
    found: dict[str, list[str]] = {}
    for pattern in (_MADISON, _DNF_LIST):
        for match in pattern.finditer(text):
            found.setdefault(match["name"], [])
            if match["version"] not in found[match["name"]]:
                found[match["name"]].append(match["version"])
    return found


def pin_problem(text: str, package: str, version_prefix: str, what: str) -> str:
    """Why the repository metadata in `text` has no `package` at a version starting `version_prefix`.

    "" when it has one. Otherwise the message names what the repository does offer, so the operator
    can pick a published pin.
    """
    found = repository_versions(text)
    versions = found.get(package, [])
    if any(version.startswith(version_prefix) for version in versions):
        return ""
    if versions:
        offer = f"{package} versions there: {', '.join(_newest_first(versions)[:12])}"
    else:
        others = sorted(name for name in found if name != package)
        offer = f"no {package} at all" + (f"; packages there: {', '.join(others[:12])}" if others else "")
    return f"{what} is not in the configured repository ({package} {version_prefix}*): {offer}"


def _numbers(version: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", str(version))]


def _newest_first(versions: Iterable[str]) -> list[str]:
    return sorted(versions, key=_numbers, reverse=True)
