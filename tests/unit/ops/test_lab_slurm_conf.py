"""The lab's slurm.conf: every lab node by its management address, the controller, the srun range
the firewall role opens, and the health check lines roles/slurm_healthcheck's program answers."""

from __future__ import annotations

import re

import pytest
import yaml

from gpunet.lab.plan import plan_lab
from gpunet.lab.slurm import HEALTH_CHECK_PROGRAM, SlurmNode, ensure_munge_key, slurm_conf
from gpunet.model.check import load_fabric
from tests.conftest import REPO_ROOT


def lab_conf() -> str:
    plan = plan_lab(load_fabric(str(REPO_ROOT / "inventories" / "lab")))
    nodes = [SlurmNode(node.host, f"10.247.100.{20 + index}") for index, node in enumerate(plan.nodes)]
    return slurm_conf("10.247.100.9", nodes)


def settings(conf: str) -> dict[str, str]:
    return dict(
        line.split("=", 1) for line in conf.splitlines() if line and not line.startswith(("#", "NodeName"))
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SlurmctldHost", "slurmctl(10.247.100.9)"),
        ("AuthType", "auth/munge"),
        ("HealthCheckProgram", HEALTH_CHECK_PROGRAM),
        ("HealthCheckNodeState", "ANY"),
        ("ReturnToService", "2"),
        ("ProctrackType", "proctrack/linuxproc"),
        ("PartitionName", "gpu Nodes=gpu01,gpu02,gpu03,gpu04 Default=YES MaxTime=INFINITE State=UP"),
    ],
)
def test_cluster_settings(key: str, value: str) -> None:
    assert settings(lab_conf())[key] == value


def test_every_lab_node_by_its_management_address() -> None:
    nodes = re.findall(r"^NodeName=(\S+) NodeAddr=(\S+) ", lab_conf(), re.MULTILINE)
    assert nodes == [(f"gpu0{i}", f"10.247.100.{19 + i}") for i in range(1, 5)]


def test_the_health_check_program_is_the_roles_wrapper() -> None:
    defaults = yaml.safe_load(
        (REPO_ROOT / "roles" / "slurm_healthcheck" / "defaults" / "main.yml").read_text()
    )
    assert defaults["slurm_healthcheck_program"] == HEALTH_CHECK_PROGRAM


def test_srun_is_pinned_to_the_range_the_firewall_opens() -> None:
    defaults = yaml.safe_load((REPO_ROOT / "roles" / "firewall" / "defaults" / "main.yml").read_text())
    if "firewall_slurm_srun_port_range" not in defaults:
        pytest.skip("roles/firewall has no Slurm opening yet (i18-hosts adds firewall_slurm_srun_port_range)")
    low, high = defaults["firewall_slurm_srun_port_range"]
    assert settings(lab_conf())["SrunPortRange"] == f"{low}-{high}"


def test_the_munge_key_is_made_once_and_private(tmp_path) -> None:
    key_file = tmp_path / "lab" / "munge.key"
    first = ensure_munge_key(key_file)
    assert len(first) == 1024 and key_file.stat().st_mode & 0o777 == 0o600
    assert ensure_munge_key(key_file) == first
