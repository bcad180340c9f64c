"""The multi-node launcher for real: Open MPI from Debian on every lab node, behind the firewall as
the base stage leaves it, started with exactly the mpirun line the verify stage builds
(gpunet.hosts.nccl_tests.verify_jobs: hosts, -x variables every node's /etc/nccl.conf agrees on, the
pinned Open MPI ports on the NCCL socket interface, the SSH key of roles/verify_traffic/tasks/mpi_ssh.yml).
An MPI program stands in for all_reduce_perf (no GPU here) at the path the nccl_tests role installs;
it runs as the unprivileged login, and one node's nccl_env has other RDMA ports, so each rank must end
with its own node's NCCL_IB_HCA (read as NCCL reads /etc/nccl.conf), never the first node's.
Measured 73 s on 2 cores under a load of 4 on the shared lab (tests/e2e/conftest.py: base stage,
trust, one run); 63 s, quieter, with a lab of its own (up and down included)."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from gpunet.hosts.nccl_tests import nccl_conf_variables, shared_nccl_variables, verify_jobs
from gpunet.lab.paths import LabPaths
from gpunet.lab.podman import Podman
from tests.conftest import REPO_ROOT
from tests.e2e.test_lab import INVENTORY, NODES, recap, run

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

BINARY = "/opt/nccl-tests/current/all_reduce_perf"
OTHER_PORT_NODE = "gpu02"


@pytest.fixture(scope="module")
def mpi_lab(lab: LabPaths) -> LabPaths:
    """The session's lab (tests/e2e/conftest.py) after the base stage and the MPI trust."""
    base = run("ansible-playbook", "playbooks/base.yml", "-i", INVENTORY)
    assert base.returncode == 0
    # One node's NICs on another RDMA port: its NCCL_IB_HCA differs from the others', as on a
    # cluster whose nodes are not all cabled alike. The nccl_env role writes it, not the test.
    other = run(
        "ansible-playbook", "playbooks/base.yml", "-i", INVENTORY, "--tags", "nccl_env",
        "--limit", OTHER_PORT_NODE, "-e", "nccl_env_ib_port=2",
    )  # fmt: skip
    assert other.returncode == 0
    trust = run("ansible-playbook", "tests/e2e/mpi_trust.yml", "-i", INVENTORY)
    assert trust.returncode == 0
    assert all(h["failed"] == 0 for h in recap(trust.stdout).values())
    return lab


def node_addresses() -> dict[str, str]:
    """Each node's ansible_host as the lab's generated inventory gives it."""
    done = run("ansible-inventory", "-i", INVENTORY, "--list")
    hostvars = json.loads(done.stdout)["_meta"]["hostvars"]
    return {node: hostvars[node]["ansible_host"] for node in NODES}


# Measured 2026-12-01: with --mca oob_tcp_dynamic_ipv4_ports <range> mpirun failed with EMFILE under
# the lab's nofile=1024; without it (today's line) the four ranks ran. Open MPI 4.1 only warns about
# an unset LD_LIBRARY_PATH.
def test_verify_mpirun_line_runs_an_mpi_program_across_all_nodes(mpi_lab: LabPaths) -> None:
    podman = Podman(mpi_lab.containers_conf)
    # As the verify stage does: only what every node's /etc/nccl.conf agrees on travels with -x.
    files = [podman.run("exec", f"gpunet-lab-{node}", "cat", "/etc/nccl.conf") for node in NODES]
    confs = [nccl_conf_variables(text) for text in files]
    nccl_env = shared_nccl_variables(confs)
    assert "NCCL_SOCKET_IFNAME" in nccl_env
    own_hca = {node: conf["NCCL_IB_HCA"] for node, conf in zip(NODES, confs, strict=True)}
    assert own_hca[OTHER_PORT_NODE].endswith(":2") and own_hca["gpu01"].endswith(":1"), own_hca
    assert "NCCL_IB_HCA" not in nccl_env
    hosts = {node: {"gpus": 1, "address": address} for node, address in node_addresses().items()}
    ports = yaml.safe_load((REPO_ROOT / "roles/verify_traffic/defaults/main.yml").read_text())[
        "verify_traffic_mpi_port_range"
    ]
    jobs = verify_jobs(
        hosts, "gpu01", "mpirun", BINARY, ["-b", "8"], nccl_env=nccl_env, mpi_port_range=ports,
        ssh_key="~/.ssh/gpunet_mpirun_ed25519", binding="none",
    )  # fmt: skip
    argv = jobs[1]["argv"]
    command = ["podman", "exec", "--user", "ops", "-w", "/home/ops", "gpunet-lab-gpu01", "timeout", "120"]
    done = subprocess.run([*command, *argv], capture_output=True, text=True, env=podman.env, check=False)
    print(f"$ {' '.join(argv)}\n{done.stdout}\n{done.stderr}")
    assert done.returncode == 0, done.stderr
    assert f"ranks={len(NODES)} sum={sum(range(len(NODES)))}" in done.stdout
    assert "nccl_env_on_every_rank=True" in done.stdout
    assert "args=-g 1 -b 8" in done.stdout
    # Every rank ran as the unprivileged login, and each node's NCCL would use that node's own
    # NCCL_IB_HCA (NCCL reads /etc/nccl.conf under the job's environment), not the first node's.
    uid = podman.run("exec", "--user", "ops", "gpunet-lab-gpu01", "id", "-u").strip()
    assert f"uids={uid}" in done.stdout and uid != "0"
    effective = json.loads(
        next(line for line in done.stdout.splitlines() if line.startswith("effective="))[10:]
    )
    assert {host: settings["NCCL_IB_HCA"] for host, settings in effective.items()} == own_hca
    # The firewall as the base stage left it is in front: its Open MPI opening is loaded.
    ruleset = podman.run("exec", "gpunet-lab-gpu02", "nft", "list", "table", "inet", "gpunet")
    assert f"tcp dport {ports[0]}-{ports[1]} accept" in ruleset
