"""Pins checked against NVIDIA's published versions per distribution and against repository metadata."""

from __future__ import annotations

import pytest
import yaml

from gpunet.hosts.nccl_tests import nvcc_gencode
from gpunet.hosts.published_versions import (
    apt_driver_packages,
    claimed_folders,
    cuda_driver_problem,
    cuda_published_problem,
    driver_branch_problem,
    kernel_modules_problem,
    nvidia_repo_folder,
    pin_problem,
    pinning_problem,
    release_defaults,
    releases,
    repository_versions,
    series,
    stale_pinning_packages,
)
from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import facts
from tests.unit.roles.templar import render_value, role_defaults


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
        ("debian13", "12.8.1", True),
        ("rhel10", "13.0.2", False),
    ],
)
def test_cuda_published_per_distro(folder: str, version: str, refused: bool) -> None:
    problem = cuda_published_problem(folder, version)
    assert bool(problem) is refused
    if refused:
        first = releases()["distributions"][folder]["first_cuda"]
        assert f"CUDA {version} is not published for {folder}" in problem
        assert f"starts at CUDA {first}" in problem


TABLE = REPO_ROOT / "src/gpunet/hosts/nvidia_releases.yml"


def test_every_fact_in_the_release_table_names_its_source() -> None:
    """Each distribution and CUDA row carries a [V]/[U] tag with its source on the same line."""
    lines = TABLE.read_text().splitlines()
    facts = ("first_cuda:", "lowest_branch:", "built_nccl_tests:", "pinning_from:", "pinning_package:")
    apt_facts = ("open_only_from:", "open:", "proprietary:", "tools:", "fabricmanager:")
    for key in facts + apt_facts:
        for line in (line for line in lines if line.strip().startswith(key)):
            tagged = "[V]" in line or "[U]" in line or "every supported branch" in line
            assert tagged or line.strip().endswith(": 0"), line
    assert str(releases()["read_on"]) == "2026-12-03"


def test_claimed_distributions_are_the_release_tables() -> None:
    claimed = yaml.safe_load((REPO_ROOT / "roles/nvidia_repo/vars/claimed.yml").read_text())
    assert claimed["nvidia_repo_claimed_folders"] == claimed_folders()
    assert "ubuntu2604" in claimed_folders()
    refused = [f for f, row in releases()["distributions"].items() if not row["claimed"]]
    assert all(releases()["distributions"][f].get("refused") for f in refused)


def _role_default(role: str, name: str, folder: str) -> str:
    """A role's default as Ansible renders it on a host of NVIDIA folder `folder`."""
    defaults = role_defaults(REPO_ROOT / "roles" / role)
    return str(render_value(defaults[name], defaults | {"nvidia_repo_os_folder": folder})).strip()


@pytest.mark.parametrize("folder", claimed_folders())
def test_role_defaults_are_the_release_tables_defaults_for_each_folder(folder: str) -> None:
    chosen = release_defaults(folder)
    assert _role_default("nvidia_driver", "nvidia_driver_branch", folder) == chosen["driver_branch"]
    assert _role_default("cuda_toolkit", "cuda_toolkit_version", folder) == chosen["cuda"]
    assert _role_default("nccl", "nccl_version", folder) == chosen["nccl"]
    assert _role_default("nccl_tests", "nccl_tests_version", folder) == chosen["nccl_tests"]
    cuda_series = ".".join(chosen["cuda"].split(".")[:2])
    assert _role_default("nccl", "nccl_cuda_version", folder) == cuda_series
    # nccl-tests without cuda_toolkit in the play builds against the CUDA that role would install.
    assert _role_default("nccl_tests", "nccl_tests_cuda_home", folder) == f"/usr/local/cuda-{cuda_series}"
    assert _role_default("nccl_tests", "nccl_tests_nvcc_gencode", folder) == nvcc_gencode(chosen["cuda"])


@pytest.mark.parametrize(
    ("folder", "branch", "cuda"),
    [("ubuntu2204", "580", "13.0.2"), ("debian12", "580", "13.0.2"), ("rhel10", "580", "13.0.2"),
     ("ubuntu2604", "620", "13.2.0")],
)  # fmt: skip
def test_per_folder_defaults(folder: str, branch: str, cuda: str) -> None:
    assert release_defaults(folder)["driver_branch"] == branch
    assert release_defaults(folder)["cuda"] == cuda


def test_the_role_default_follows_the_hosts_facts_where_the_folder_is_not_known_yet() -> None:
    defaults = role_defaults(REPO_ROOT / "roles/nvidia_driver")
    for distro, branch in (("ubuntu2604", "620"), ("ubuntu2404", "580"), ("rocky10", "580")):
        assert (
            render_value(defaults["nvidia_driver_branch"], defaults | {"ansible_facts": facts(distro)})
            == branch
        )


@pytest.mark.parametrize(
    ("distro", "folder"),
    [("ubuntu2204", "ubuntu2204"), ("ubuntu2604", "ubuntu2604"), ("debian13", "debian13"),
     ("rocky9", "rhel9"),
     ("rhel10", "rhel10"), ("rocky10", "rhel10")],
)  # fmt: skip
def test_nvidia_folder_from_facts(distro: str, folder: str) -> None:
    assert nvidia_repo_folder(facts(distro)) == folder


# The defaults must hold together on every claimed distribution; the old ones did not, and one set
# for every folder no longer can: ubuntu2604 has no branch below 590 and no CUDA before 13.2.
DEFAULT_SETS = [
    (
        {"driver_branch": "580", "cuda": "13.0.2", "nccl_tests": "2.19.6"},
        [
            "NVIDIA publishes driver branch 590 or later for ubuntu2604, not 580",
            "CUDA 13.0.2 is not published for ubuntu2604",
        ],
    ),
    (
        {"driver_branch": "550", "cuda": "12.4.1", "nccl_tests": "2.13.11"},
        [
            "CUDA 12.4.1 is not published for ubuntu2404",
            "NVIDIA publishes driver branch 580 or later for debian13",
        ],
    ),
    ({"driver_branch": "620", "cuda": "13.2.0", "nccl_tests": "2.12.0"}, ["nccl-tests 2.12.0 was not built"]),
    ({"driver_branch": "575", "cuda": "13.2.0", "nccl_tests": "2.19.6"}, ["CUDA 13.2.0 needs driver"]),
    # one set that would hold everywhere, but would move every other folder off 580 and 13.0.2
    ({"driver_branch": "620", "cuda": "13.2.0", "nccl_tests": "2.19.6"}, []),
]


def set_problems(folder: str, chosen: dict[str, str]) -> list[str]:
    problems = [
        cuda_published_problem(folder, chosen["cuda"]),
        driver_branch_problem(folder, chosen["driver_branch"]),
        cuda_driver_problem(chosen["cuda"], chosen["driver_branch"]),
    ]
    built = releases()["cuda_majors"][str(series(chosen["cuda"])[0])].get("built_nccl_tests", [])
    if chosen["nccl_tests"] not in built:
        problems.append(f"nccl-tests {chosen['nccl_tests']} was not built here with CUDA {chosen['cuda']}")
    return [problem for problem in problems if problem]


def default_set_problems(chosen: dict[str, str]) -> list[str]:
    return [problem for folder in claimed_folders() for problem in set_problems(folder, chosen)]


@pytest.mark.parametrize(("chosen", "expected"), DEFAULT_SETS)
def test_a_default_set_holds_on_every_claimed_distribution(
    chosen: dict[str, str], expected: list[str]
) -> None:
    problems = default_set_problems(chosen)
    for text in expected:
        assert any(text in problem for problem in problems), problems
    assert bool(problems) is bool(expected)


@pytest.mark.parametrize("folder", claimed_folders())
def test_the_shipped_defaults_hold_on_every_claimed_distribution(folder: str) -> None:
    assert set_problems(folder, release_defaults(folder)) == []
    assert series(release_defaults(folder)["cuda"]) >= (13, 0)


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


@pytest.mark.parametrize(
    ("distribution", "branch", "modules", "pinning", "first"),
    [
        ("Ubuntu", "580", "open", "", "nvidia-driver-580-open"),
        ("Ubuntu", "589", "proprietary", "", "nvidia-driver-589"),  # the last branch with per-branch names
        ("Ubuntu", "590", "open", "nvidia-driver-pinning-590", "libnvidia-compute"),
        ("Debian", "580", "open", "", "nvidia-driver"),
        ("Debian", "590", "proprietary", "nvidia-driver-pinning-590", "nvidia-driver-cuda"),
        (
            "Raspbian",
            "595",
            "open",
            "nvidia-driver-pinning-595",
            "nvidia-driver-cuda",
        ),  # any other apt distro
    ],
)
def test_apt_driver_packages_switch_at_the_pinning_branch(
    distribution: str, branch: str, modules: str, pinning: str, first: str
) -> None:
    chosen = apt_driver_packages(distribution, branch, modules)
    assert chosen["pinning_package"] == pinning
    assert chosen["packages"][0] == first


def test_apt_driver_packages_refuse_an_unknown_module_flavour() -> None:
    with pytest.raises(ValueError, match="expected open or proprietary"):
        apt_driver_packages("Ubuntu", "595", "closed")


def test_proprietary_modules_are_refused_from_620_naming_the_way_out() -> None:
    problem = kernel_modules_problem("620", "proprietary")
    assert problem.startswith("NVIDIA ships open kernel modules only from branch 620")
    assert "a branch below 620" in problem
    assert kernel_modules_problem("620", "open") == kernel_modules_problem("595", "proprietary") == ""


def test_the_pinning_check_without_any_pinning_package() -> None:
    assert pinning_problem("", "nvidia-driver-pinning-595").endswith("it has no pinning package at all")


@pytest.mark.parametrize(
    ("listing", "wanted", "stale"),
    [
        ("", "nvidia-driver-pinning-620", []),  # none installed (dpkg-query exits 1, prints nothing)
        ("hi  nvidia-driver-pinning-620", "nvidia-driver-pinning-620", []),
        # 590 -> 620: the held 590 lock stays unless removed
        ("hi  nvidia-driver-pinning-590\nii  nvidia-driver-pinning-620", "nvidia-driver-pinning-620",
         ["nvidia-driver-pinning-590"]),
        # back below 590, where the role pins the branch itself: every NVIDIA lock goes
        ("hi  nvidia-driver-pinning-595\nhi  nvidia-driver-pinning-590", "",
         ["nvidia-driver-pinning-590", "nvidia-driver-pinning-595"]),
        # removed (config files left, "rc") or never installed ("un"): nothing to remove
        ("rc  nvidia-driver-pinning-590\nun  nvidia-driver-pinning-595", "", []),
        ("iU  nvidia-driver-pinning-590", "nvidia-driver-pinning-620", ["nvidia-driver-pinning-590"]),
        ("ii  nvidia-driver-open", "", []),  # not a pinning package
    ],
)  # fmt: skip
def test_stale_pinning_packages(listing: str, wanted: str, stale: list[str]) -> None:
    assert stale_pinning_packages(listing, wanted) == stale
