"""Pins checked against NVIDIA's published versions per distribution and against repository metadata."""

from __future__ import annotations

import pytest

from gpunet.hosts.published_versions import (
    FIRST_CUDA_SERIES,
    cuda_published_problem,
    pin_problem,
    repository_versions,
)


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
