"""The generated per-run inventory: Ansible picks it up from inventories/lab/generated/ and the
Fabric then carries the lab's addresses and simulator ports; the state file round-trips."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
import yaml

from gpunet.lab.inventory import write_generated_inventory
from gpunet.lab.paths import LabPaths
from gpunet.lab.state import LabState
from gpunet.lab.switches import RunningSwitch
from gpunet.model.check import check_inventory
from tests.conftest import REPO_ROOT

NODES = {"gpu01": "10.247.100.2", "gpu02": "10.247.100.3", "gpu03": "10.247.100.4", "gpu04": "10.247.100.5"}
PORTS = {"leaf01": 40101, "leaf02": 40102, "spine01": 40103}


def _state() -> LabState:
    switches = {
        name: RunningSwitch(name, "nxos", port, 4242, f"/x/{name}.json", f"/x/{name}.log")
        for name, port in PORTS.items()
    }
    return LabState("lab", "admin", "s3cret", dict(NODES), "10.247.100.250", switches)


@pytest.fixture
def lab_copy(tmp_path: Path) -> LabPaths:
    """A copy of the committed lab inventory in a scratch project root."""
    shutil.copytree(
        REPO_ROOT / "inventories" / "lab",
        tmp_path / "inventories" / "lab",
        ignore=shutil.ignore_patterns("generated"),
    )
    return LabPaths(root=tmp_path)


def test_ansible_reads_the_generated_values(lab_copy: LabPaths) -> None:
    write_generated_inventory(_state(), lab_copy)
    result = check_inventory(lab_copy.inventory)
    assert result.ok, result.problems
    fabric = result.fabric
    assert {name: host.mgmt_address for name, host in fabric.hosts.items()} == NODES
    assert {name: (s.mgmt_address, s.mgmt_port) for name, s in fabric.switches.items()} == {
        name: ("127.0.0.1", port) for name, port in PORTS.items()
    }


def test_generated_file_holds_the_connection_settings(lab_copy: LabPaths) -> None:
    write_generated_inventory(_state(), lab_copy)
    target = lab_copy.generated_inventory
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # it carries the lab's switch password
    groups = yaml.safe_load(target.read_text())["all"]["children"]
    node_vars = groups["gpu_nodes"]["vars"]
    assert node_vars["ansible_ssh_private_key_file"] == str(lab_copy.ssh_key)
    assert f"UserKnownHostsFile={lab_copy.known_hosts}" in node_vars["ansible_ssh_common_args"]
    assert "StrictHostKeyChecking=yes" in node_vars["ansible_ssh_common_args"]
    assert groups["switches"]["vars"] == {
        "ansible_password": "s3cret",
        "switch_qos_known_hosts": str(lab_copy.known_hosts),
        "verify_switch_known_hosts": str(lab_copy.known_hosts),
    }


def test_committed_inventory_passes_without_a_running_lab(lab_copy: LabPaths) -> None:
    assert not lab_copy.generated.exists()
    assert check_inventory(lab_copy.inventory).ok


def test_state_round_trips_and_stays_private(tmp_path: Path) -> None:
    path = tmp_path / ".lab" / "state.json"
    _state().save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert LabState.load(path) == _state()
    assert LabState.load(tmp_path / "absent.json") is None
