"""Which CUDA versions NVIDIA publishes for each distribution's repository, and checking a pin
against what a repository really offers before anything is installed.

The table catches an impossible pin before a host is touched (CUDA 12.4.1 has no ubuntu2404
packages); the metadata check catches everything else, naming what the repository does have.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Repository folder -> (first CUDA series NVIDIA published there, source). Later series are
# published for every folder here until NVIDIA drops the distribution.
FIRST_CUDA_SERIES: dict[str, tuple[tuple[int, int], str]] = {
    "ubuntu2204": ((11, 7), "CUDA 11.7 release notes (Ubuntu 22.04 added); repos/ubuntu2204/"),
    "ubuntu2404": (
        (12, 5),
        "CUDA 12.5 release notes (Ubuntu 24.04 added); Jimver/cuda-toolkit issue #375 (no 12.4.1 there)",
    ),
    "debian12": ((12, 2), "CUDA 12.2 release notes (Debian 12 added); repos/debian12/"),
    "rhel9": ((11, 7), "CUDA 11.7 release notes (RHEL 9 added); repos/rhel9/"),
}

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
    if folder not in FIRST_CUDA_SERIES:
        return ""
    first, source = FIRST_CUDA_SERIES[folder]
    if series(version) < first:
        return (
            f"CUDA {version} is not published for {folder}: NVIDIA's {folder} repository starts at CUDA"
            f" {first[0]}.{first[1]} ({source}); choose cuda_toolkit_version {first[0]}.{first[1]} or later"
        )
    return ""


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


def _newest_first(versions: Iterable[str]) -> list[str]:
    def key(version: str) -> list[int]:
        return [int(number) for number in re.findall(r"\d+", version)]

    return sorted(versions, key=key, reverse=True)
