"""verify_incast's seams for the lab (issue 31): whether the stage runs follows every play host's
gpunet_hardware (rdma_nics, or the lab's simulated_incast), and the counter capture reads
verify_incast_sysfs_root, sysfs by default (roles/verify_incast, Ansible's templar)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults, trusted

INCAST = REPO_ROOT / "roles/verify_incast"
REAL: dict[str, Any] = {}
LAB = {"gpus": False, "rdma_nics": False, "reason": "lab container"}


def decided(hardware: list[dict[str, Any]]) -> Any:
    tasks = yaml.safe_load((INCAST / "tasks/main.yml").read_text())
    facts = trusted(tasks[0]["ansible.builtin.set_fact"])
    variables = {"verify_incast_hardware": hardware}
    return render_value(facts["verify_incast_has_rdma"], variables)


@pytest.mark.parametrize(
    ("case", "hardware", "runs"),
    [
        ("real hardware everywhere", [REAL, REAL], True),
        ("a lab container", [REAL, LAB], False),
        ("every container simulated (the lab)", [LAB | {"simulated_incast": True}] * 2, True),
        ("one container not simulated", [LAB | {"simulated_incast": True}, LAB], False),
        ("simulated_incast false", [LAB | {"simulated_incast": False}], False),
        ("rdma_nics true and simulated", [{"rdma_nics": True, "simulated_incast": True}], True),
    ],
)
def test_the_stage_runs_where_every_host_has_rdma_nics_or_is_simulated(
    case: str, hardware: list[dict[str, Any]], runs: bool
) -> None:
    assert decided(hardware) is runs, case


@pytest.mark.parametrize(
    ("inventory", "root"),
    [
        ({}, "/sys/class/infiniband"),
        (
            {"verify_incast_sysfs_root": "/run/gpunet-lab-traffic/hosts/{{ inventory_hostname }}/infiniband"},
            "/run/gpunet-lab-traffic/hosts/gpu02/infiniband",
        ),
    ],
)
def test_the_capture_reads_the_sysfs_root(inventory: dict[str, Any], root: str) -> None:
    task = yaml.safe_load((INCAST / "tasks/counters.yml").read_text())[0]
    values = role_defaults(INCAST) | trusted(inventory) | {"inventory_hostname": "gpu02"}
    values |= {"verify_incast_phase": "incast-after"}
    commands = render_value(task["gpunet.fabric.run_commands"]["commands"], values)
    assert commands == [
        {
            "file": "rdma-hw-counters.incast-after",
            "argv": ["sh", "-c", f"grep -s -H . {root}/*/ports/*/hw_counters/*"],
        }
    ]


def test_the_lab_inventory_runs_the_stage_on_its_simulation() -> None:
    node = yaml.safe_load((REPO_ROOT / "inventories/lab/group_vars/gpu_nodes/node.yml").read_text())
    assert node["gpunet_hardware"]["rdma_nics"] is False, "ibstat and the other RDMA checks still skip"
    assert decided([node["gpunet_hardware"]] * 4) is True
    from gpunet.lab.traffic_folder import sysfs_root

    rendered = render_value(trusted(node["verify_incast_sysfs_root"]), {"inventory_hostname": "gpu03"})
    assert rendered == sysfs_root("gpu03")
