"""rdma_tools installs, on every OS family it claims, the package of each tool the verify stage's
host collection runs from it (collect_plan.host_commands): the names its install task renders from
the role's defaults and per-family vars (Ansible's templar)."""

from __future__ import annotations

import pytest
import yaml

from gpunet.validate.collect_plan import MSTCONFIG_LLDP_SCRIPT, host_commands
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_value, role_defaults, role_vars

ROLE = REPO_ROOT / "roles/rdma_tools"
INSTALL = "Install the RDMA user space and diagnostics"


def installed(os_family: str) -> list[str]:
    (task,) = [t for t in yaml.safe_load((ROLE / "tasks/main.yml").read_text()) if t["name"] == INSTALL]
    variables = {**role_defaults(ROLE), **role_vars(ROLE, os_family)}
    return list(render_value(task["ansible.builtin.package"]["name"], variables))


@pytest.mark.parametrize(
    ("os_family", "tool", "package"),
    [
        # mstflint's mstconfig reads the NIC firmware's LLDP agent settings (mstconfig-lldp.<nic>).
        ("Debian", "mstconfig", "mstflint"),
        ("RedHat", "mstconfig", "mstflint"),
        ("Debian", "ibstat", "infiniband-diags"),
        ("RedHat", "ibv_devinfo", "libibverbs-utils"),
        ("Debian", "ibv_devinfo", "ibverbs-utils"),
    ],
)
def test_the_collections_tools_are_installed(os_family: str, tool: str, package: str) -> None:
    runs = {
        word for command in host_commands([{"name": "mlx5_0", "netdev": "rail0"}]) for word in command["argv"]
    }
    assert tool in runs or tool in MSTCONFIG_LLDP_SCRIPT
    assert package in installed(os_family)
