"""nccl-tests: the role's make line per distro and the verify stage's launcher lines.

The make line is rendered from roles/nccl_tests/tasks/build.yml itself (Ansible's templar over the
role's defaults and per-OS vars), so these tests hold the role, not a copy of it.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
import yaml

from gpunet.hosts import nccl_tests
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults, role_vars, trusted

ROLE = REPO_ROOT / "roles/nccl_tests"


def build_task(name: str) -> dict[str, Any]:
    tasks = yaml.safe_load((ROLE / "tasks/build.yml").read_text())
    return next(task for task in tasks if task["name"] == name)


def role_variables(os_family: str, arch: str = "x86_64", **overrides: Any) -> dict[str, Any]:
    values = role_defaults(ROLE) | role_vars(ROLE, os_family)
    values |= {
        "ansible_facts": {"architecture": arch, "processor_vcpus": 16},
        "groups": {"gpu_nodes": ["gpu01", "gpu02"]},
        "cuda_toolkit_version": "12.8.1",
    }
    values["nccl_tests_build_dir"] = "/opt/nccl-tests/2.13.11-mpi"
    return values | overrides


# (distro, arch, MPI_HOME, CPATH): Debian/Ubuntu libopenmpi-dev; RHEL openmpi-devel (openmpi.spec).
MAKE_CASES = [
    ("Debian", "x86_64", "/usr/lib/x86_64-linux-gnu/openmpi", None),
    ("Debian", "aarch64", "/usr/lib/aarch64-linux-gnu/openmpi", None),
    ("RedHat", "x86_64", "/usr/lib64/openmpi", "/usr/include/openmpi-x86_64"),
    ("RedHat", "aarch64", "/usr/lib64/openmpi", "/usr/include/openmpi-aarch64"),
]


@pytest.mark.parametrize(("os_family", "arch", "mpi_home", "cpath"), MAKE_CASES)
def test_the_roles_make_line_builds_with_mpi_for_multi_node(
    os_family: str, arch: str, mpi_home: str, cpath: str | None
) -> None:
    task = build_task("Build the tests")
    values = role_variables(os_family, arch)
    argv = render_value(task["ansible.builtin.command"]["argv"], values)
    environment = render_value(task["environment"], values)

    assert argv[:3] == ["make", "-j", "16"]
    assert "CUDA_HOME=/usr/local/cuda-12.8" in argv
    assert "NCCL_HOME=/usr" in argv
    assert argv[argv.index("MPI=1") + 1] == f"MPI_HOME={mpi_home}"
    gencode = next(arg for arg in argv if arg.startswith("NVCC_GENCODE="))
    assert "code=sm_90" in gencode and "code=sm_100" in gencode
    assert environment == ({"CPATH": cpath} if cpath else {})


def test_a_single_gpu_node_builds_without_mpi() -> None:
    values = role_variables("Debian", groups={"gpu_nodes": ["gpu01"]})
    argv = render_value(build_task("Build the tests")["ansible.builtin.command"]["argv"], values)
    assert "MPI=1" not in argv
    assert not any(arg.startswith("MPI_HOME=") for arg in argv)


# CUDA 11.8 brought sm_90 (Hopper), 12.8 sm_100/sm_120 (Blackwell); PTX of the newest runs on later GPUs.
GENCODE_CASES = [
    ("11.8.0", [80, 90], 90),
    ("12.4.1", [80, 90], 90),
    ("12.8.1", [80, 90, 100, 120], 120),
    ("12.9", [80, 90, 100, 120], 120),
    ("11.0.3", [80], 80),
]


@pytest.mark.parametrize(("cuda", "sm", "ptx"), GENCODE_CASES)
def test_gencode_covers_the_toolkits_architectures(cuda: str, sm: list[int], ptx: int) -> None:
    flags = nccl_tests.nvcc_gencode(cuda).split()
    assert flags == [f"-gencode=arch=compute_{cc},code=sm_{cc}" for cc in sm] + [
        f"-gencode=arch=compute_{ptx},code=compute_{ptx}"
    ]


def test_gencode_refuses_a_toolkit_older_than_ampere() -> None:
    with pytest.raises(ValueError, match=r"10\.2"):
        nccl_tests.nvcc_gencode("10.2")


NCCL_CONF = "\n".join(
    [
        "# managed by gpunet (nccl_env)",
        "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1",
        "NCCL_IB_TC=106",
        "",
        "NCCL_SOCKET_IFNAME==eth0",
    ]
)
HOSTS = {
    "gpu02": {"gpus": 8, "address": "192.0.2.102"},
    "gpu01": {"gpus": 8, "address": "192.0.2.101"},
}


def test_nccl_conf_variables() -> None:
    assert nccl_tests.nccl_conf_variables(NCCL_CONF) == {
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1",
        "NCCL_IB_TC": "106",
        "NCCL_SOCKET_IFNAME": "=eth0",
    }


def test_mpirun_line_passes_environment_ports_interface_and_key() -> None:
    jobs = nccl_tests.verify_jobs(
        HOSTS,
        "gpu01",
        "mpirun",
        "/opt/nccl-tests/current/all_reduce_perf",
        ["-b", "8", "-e", "8G"],
        nccl_env=nccl_tests.nccl_conf_variables(NCCL_CONF),
        mpi_port_range=[46000, 46999],
        ssh_key="~/.ssh/gpunet_mpirun_ed25519",
    )
    assert [job["file"] for job in jobs] == ["nccl/single-gpu01.txt", "nccl/all-nodes.txt"]
    assert jobs[0]["argv"] == ["/opt/nccl-tests/current/all_reduce_perf", "-g", "8", "-b", "8", "-e", "8G"]
    assert jobs[1]["argv"] == [
        "mpirun", "-np", "16", "-H", "192.0.2.101:8,192.0.2.102:8",
        "--bind-to", "numa", "--map-by", "slot",
        "-x", "PATH", "-x", "LD_LIBRARY_PATH",
        "-x", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "-x", "NCCL_IB_TC=106", "-x", "NCCL_SOCKET_IFNAME==eth0",
        "--mca", "btl_tcp_port_min_v4", "46000", "--mca", "btl_tcp_port_range_v4", "1000",
        "--mca", "oob_tcp_if_include", "eth0", "--mca", "btl_tcp_if_include", "eth0",
        "--mca", "plm_rsh_args", "-i ~/.ssh/gpunet_mpirun_ed25519 -o BatchMode=yes",
        "/opt/nccl-tests/current/all_reduce_perf", "-g", "1", "-b", "8", "-e", "8G",
    ]  # fmt: skip


def test_srun_line_uses_pmix_and_requests_gpus() -> None:
    jobs = nccl_tests.verify_jobs(
        HOSTS, "gpu01", "srun", "/x/all_reduce_perf", [], nccl_env={}, mpi_port_range=[1, 2]
    )
    assert jobs[1]["argv"] == [
        "srun", "--mpi=pmix", "-N", "2", "--ntasks-per-node=8", "--gpus-per-node=8",
        "--nodelist=gpu01,gpu02", "--export=ALL", "/x/all_reduce_perf", "-g", "1",
    ]  # fmt: skip


def test_only_the_first_host_launches_the_multi_node_run() -> None:
    jobs = nccl_tests.verify_jobs(HOSTS, "gpu02", "mpirun", "b", [], nccl_env={}, mpi_port_range=[1, 2])
    assert [job["file"] for job in jobs] == ["nccl/single-gpu02.txt"]
    with pytest.raises(ValueError, match="'pbs'"):
        nccl_tests.verify_jobs(HOSTS, "gpu01", "pbs", "b", [], nccl_env={}, mpi_port_range=[1, 2])


def test_verify_runs_the_binary_the_role_installed() -> None:
    defaults = role_defaults(REPO_ROOT / "roles/verify_traffic")
    binary = render_value(defaults["verify_traffic_nccl_binary"], defaults | role_defaults(ROLE))
    assert binary == "/opt/nccl-tests/current/all_reduce_perf"
    assert (
        defaults["verify_traffic_mpi_port_range"]
        == role_defaults(REPO_ROOT / "roles/firewall")["firewall_mpi_port_range"]
    )


@pytest.mark.parametrize(
    ("host_vars", "expected"),
    [
        ({"gpunet_gpus": {"count": 8}, "ansible_host": "192.0.2.5"}, {"gpus": 8, "address": "192.0.2.5"}),
        ({"inventory_hostname": "gpu09"}, {"gpus": 0, "address": "gpu09"}),
    ],
)
def test_test_host(host_vars: dict[str, Any], expected: dict[str, Any]) -> None:
    assert nccl_tests.test_host(host_vars) == expected


def _slurped(text: str) -> dict[str, str]:
    return {"content": base64.b64encode(text.encode()).decode()}


# gpu02's NICs are named differently: its NCCL_IB_HCA must not be overridden by gpu01's.
GPU02_CONF = NCCL_CONF.replace("mlx5_0:1,mlx5_1:1", "mlx5_4:1,mlx5_5:1")


@pytest.mark.parametrize(
    ("family", "login", "launcher", "root_flag"),
    [
        ("Debian", "ops /home/ops", "mpirun", False),
        ("RedHat", "root /root", "/usr/lib64/openmpi/bin/mpirun", True),
    ],
)
def test_the_verify_task_builds_its_loop_from_the_installed_binary_and_nccl_conf(
    family: str, login: str, launcher: str, root_flag: bool
) -> None:
    """The loop expression of roles/verify_traffic/tasks/nccl.yml itself, as Ansible renders it."""
    tasks = yaml.safe_load((REPO_ROOT / "roles/verify_traffic/tasks/nccl.yml").read_text())
    task = next(t for t in tasks if t["name"].startswith("Run nccl-tests"))
    confs = {"gpu01": NCCL_CONF, "gpu02": GPU02_CONF}
    hostvars = {
        name: {
            "gpunet_gpus": {"count": 8},
            "ansible_host": address,
            "inventory_hostname": name,
            "verify_traffic_nccl_conf_file": _slurped(confs[name]),
        }
        for name, address in (("gpu01", "192.0.2.1"), ("gpu02", "192.0.2.2"))
    }
    defaults = role_defaults(REPO_ROOT / "roles/verify_traffic")
    values = (
        defaults
        | role_defaults(ROLE)
        | {
            "ansible_play_hosts_all": ["gpu02", "gpu01"],
            "hostvars": hostvars,
            "inventory_hostname": "gpu01",
            "ansible_facts": {"os_family": family},
            "verify_traffic_nccl_first": "gpu01",
            "verify_traffic_launcher": "mpirun",
            "verify_traffic_login": {"stdout": login},
        }
    )
    values |= trusted(task["vars"])
    jobs = render_value(task["loop"], values)
    multi = jobs[1]["argv"]
    assert multi[:5] == [launcher, "-np", "16", "-H", "192.0.2.1:8,192.0.2.2:8"]
    assert multi[multi.index("/opt/nccl-tests/current/all_reduce_perf") + 1 : multi.index("-b")] == [
        "-g",
        "1",
    ]
    # What both files agree on travels with -x; the per-host HCA list stays each host's own.
    assert "NCCL_SOCKET_IFNAME==eth0" in multi
    assert "NCCL_IB_TC=106" in multi
    assert not any(arg.startswith("NCCL_IB_HCA") for arg in multi)
    assert ("--allow-run-as-root" in multi) is root_flag
    assert ("--prefix" in multi) is (family == "RedHat")
    if family == "RedHat":
        assert multi[multi.index("--prefix") + 1] == "/usr/lib64/openmpi"
    assert multi[multi.index("plm_rsh_args") + 1] == "-i ~/.ssh/gpunet_mpirun_ed25519 -o BatchMode=yes"


@pytest.mark.parametrize(
    ("per_host", "shared"),
    [
        ([{"A": "1", "B": "2"}, {"A": "1", "B": "3"}], {"A": "1"}),  # B differs: each host keeps its own
        ([{"A": "1", "B": "2"}, {"A": "1"}], {"A": "1"}),  # missing on one host
        ([{"A": "1"}, {}], {}),  # a host without the file: nothing overrides anyone
        ([{"B": "2", "A": "1"}], {"B": "2", "A": "1"}),  # one host: all of it, in its order
        ([], {}),
    ],
)
def test_only_settings_every_host_agrees_on_travel_with_mpirun(
    per_host: list[dict[str, str]], shared: dict[str, str]
) -> None:
    result = nccl_tests.shared_nccl_variables(per_host)
    assert result == shared
    assert list(result) == list(shared)
