"""verify_incast's alltoall runs mpirun with the nccl stage's settings: an inventory that sets
verify_traffic_* once (another Open MPI port range the firewall opens, another SSH key) moves both
stages, and without one both roles' defaults agree (roles/verify_incast and verify_traffic
defaults, Ansible's templar)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults

INCAST = REPO_ROOT / "roles/verify_incast"
TRAFFIC = REPO_ROOT / "roles/verify_traffic"
# verify_incast's setting -> the nccl stage's one it follows
FOLLOWS = {
    "verify_incast_nccl_launcher": "verify_traffic_nccl_launcher",
    "verify_incast_mpi_ssh_key": "verify_traffic_mpi_ssh_key",
    "verify_incast_mpi_port_range": "verify_traffic_mpi_port_range",
    "verify_incast_mpirun_binding": "verify_traffic_mpirun_binding",
    "verify_incast_mpirun_extra_args": "verify_traffic_mpirun_extra_args",
    "verify_incast_mpi_home": "verify_traffic_mpi_home",
}
FACTS = {"ansible_facts": {"os_family": "Debian"}}


def incast_value(name: str, inventory: dict[str, Any]) -> Any:
    values = role_defaults(INCAST) | FACTS | inventory
    return render_value(values[name], values)


@pytest.mark.parametrize("name", sorted(FOLLOWS))
def test_without_an_inventory_setting_both_stages_use_the_same_default(name: str) -> None:
    traffic = role_defaults(TRAFFIC) | FACTS
    assert incast_value(name, {}) == render_value(traffic[FOLLOWS[name]], traffic)


@pytest.mark.parametrize(
    ("name", "inventory", "expected"),
    [
        ("verify_incast_mpi_port_range", {"verify_traffic_mpi_port_range": [47000, 47099]}, [47000, 47099]),
        ("verify_incast_mpi_ssh_key", {"verify_traffic_mpi_ssh_key": ""}, ""),
        ("verify_incast_mpirun_binding", {"verify_traffic_mpirun_binding": "none"}, "none"),
        ("verify_incast_mpirun_extra_args", {"verify_traffic_mpirun_extra_args": ["--mca", "x", "y"]},
         ["--mca", "x", "y"]),
        ("verify_incast_mpi_home", {"verify_traffic_mpi_home": "/opt/openmpi"}, "/opt/openmpi"),
        ("verify_incast_nccl_launcher", {"verify_traffic_nccl_launcher": "srun"}, "srun"),
        # the incast stage's own setting still wins over the nccl stage's
        ("verify_incast_mpi_port_range",
         {"verify_traffic_mpi_port_range": [47000, 47099], "verify_incast_mpi_port_range": [48000, 48009]},
         [48000, 48009]),
    ],
)  # fmt: skip
def test_an_inventory_setting_of_the_nccl_stage_moves_the_incast_stage(
    name: str, inventory: dict[str, Any], expected: Any
) -> None:
    assert incast_value(name, inventory) == expected
