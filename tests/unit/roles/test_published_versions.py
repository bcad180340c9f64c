"""Pins checked against NVIDIA's published versions per distribution and against repository metadata."""

from __future__ import annotations

import pytest
import yaml

from gpunet.hosts.published_versions import (
    FIRST_CUDA_SERIES,
    cuda_published_problem,
    pin_problem,
    repository_versions,
)
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value


@pytest.mark.parametrize(
    ("folder", "version", "refused"),
    [
        ("ubuntu2404", "12.4.1", True),  # Jimver/cuda-toolkit #375
        ("ubuntu2404", "12.5.0", False),
        ("ubuntu2404", "12.8.1", False),
        ("ubuntu2204", "12.4.1", False),
        ("debian12", "12.1.1", True),
        ("debian12", "12.4.1", False),
        ("rhel9", "11.8.0", False),
        ("rhel9", "11.6.2", True),
        ("sles15", "12.4.1", False),  # no table row: only the repository metadata decides
    ],
)
def test_cuda_published_per_distro(folder: str, version: str, refused: bool) -> None:
    problem = cuda_published_problem(folder, version)
    assert bool(problem) is refused
    if refused:
        first = FIRST_CUDA_SERIES[folder][0]
        assert f"CUDA {version} is not published for {folder}" in problem
        assert f"starts at CUDA {first[0]}.{first[1]}" in problem


def test_every_row_names_its_source() -> None:
    assert all(source for _, source in FIRST_CUDA_SERIES.values())


MADISON = """\
 cuda-toolkit-12-5 |   12.5.1-1 | https://nvidia.example/repos/ubuntu2404/x86_64  Packages
 cuda-toolkit-12-5 |   12.5.0-1 | https://nvidia.example/repos/ubuntu2404/x86_64  Packages
   libnccl2 | 2.22.3-1+cuda12.5 | https://nvidia.example/repos/ubuntu2404/x86_64  Packages
   libnccl2 | 2.21.5-1+cuda12.5 | https://nvidia.example/repos/ubuntu2404/x86_64  Packages
"""
DNF = """\
Available Packages
cuda-toolkit-12-4.x86_64                 12.4.1-1                 gpunet-nvidia
cuda-toolkit-12-6.x86_64                 12.6.3-1                 gpunet-nvidia
libnccl.x86_64                           2.21.5-1+cuda12.4        gpunet-nvidia
"""


def test_repository_versions_from_apt_and_dnf() -> None:
    assert repository_versions(MADISON) == {
        "cuda-toolkit-12-5": ["12.5.1-1", "12.5.0-1"],
        "libnccl2": ["2.22.3-1+cuda12.5", "2.21.5-1+cuda12.5"],
    }
    assert repository_versions(DNF)["libnccl"] == ["2.21.5-1+cuda12.4"]


@pytest.mark.parametrize(
    ("text", "package", "prefix", "expected"),
    [
        (MADISON, "libnccl2", "2.21.5-1+cuda12.5", ""),
        (
            MADISON,
            "libnccl2",
            "2.21.5-1+cuda12.4",
            "libnccl2 versions there: 2.22.3-1+cuda12.5, 2.21.5-1+cuda12.5",
        ),
        (
            MADISON,
            "cuda-toolkit-12-4",
            "12.4.1",
            "no cuda-toolkit-12-4 at all; packages there: cuda-toolkit-12-5, libnccl2",
        ),
        (DNF, "cuda-toolkit-12-4", "12.4.1", ""),
        ("", "libnccl", "2.21.5-1+cuda12.4", "no libnccl at all"),
    ],
)
def test_pin_problem_names_what_is_available(text: str, package: str, prefix: str, expected: str) -> None:
    problem = pin_problem(text, package, prefix, "the pin")
    if expected:
        assert problem.startswith(f"the pin is not in the configured repository ({package} {prefix}*)")
        assert problem.endswith(expected)
    else:
        assert problem == ""


def _task(role: str, name: str) -> dict:
    tasks = yaml.safe_load((REPO_ROOT / "roles" / role / "tasks/install.yml").read_text())
    return next(task for task in tasks if task["name"] == name)


def test_cuda_toolkit_refuses_12_4_1_on_ubuntu_2404_before_installing() -> None:
    task = _task(
        "cuda_toolkit", "Check the CUDA pin against NVIDIA's published versions for this distribution"
    )
    values = {"nvidia_repo_os_folder": "ubuntu2404", "cuda_toolkit_version": "12.4.1"}
    problem = render_value(task["vars"]["cuda_toolkit_published_problem"], values)
    assert problem.startswith("CUDA 12.4.1 is not published for ubuntu2404")
    tasks = yaml.safe_load((REPO_ROOT / "roles/cuda_toolkit/tasks/install.yml").read_text())
    names = [t["name"] for t in tasks]
    assert names.index(task["name"]) < names.index("Install the CUDA toolkit (apt)")


def test_nccl_pin_is_checked_against_the_repository_for_the_cuda_series() -> None:
    task = _task("nccl", "Stop where the repository has no NCCL build for this CUDA series")
    values = {
        "nccl_repository": {"stdout": MADISON},
        "nccl_os_packages": ["libnccl2"],
        "nccl_version": "2.21.5-1",
        "nccl_cuda_version": "12.4",
    }
    problem = render_value(task["vars"]["nccl_pin_problem"], values).strip()
    assert problem.startswith("NCCL 2.21.5-1 for CUDA 12.4 is not in the configured repository")
    assert "2.21.5-1+cuda12.5" in problem
    values["nccl_cuda_version"] = "12.5"
    assert render_value(task["vars"]["nccl_pin_problem"], values).strip() == ""
