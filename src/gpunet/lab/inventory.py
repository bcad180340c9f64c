"""The per-run part of the lab inventory: inventories/lab/generated/lab.yml.

Ansible reads every file under an inventory folder, so this file adds the addresses, ports and
credentials of the running lab to the committed, readable inventory beside it.
"""

from __future__ import annotations

import shutil
from typing import Any

import yaml

from gpunet.lab.paths import LabPaths
from gpunet.lab.state import LabState
from gpunet.lab.switches import LOOPBACK

HEADER = (
    "# Written by `gpunet lab up`; `gpunet lab down` removes it. Do not edit: it holds only what\n"
    "# changes per run (addresses, ports, keys). The lab itself is described in the files above.\n"
)


def generated_inventory(state: LabState, paths: LabPaths) -> dict[str, Any]:
    ssh_args = f"-o UserKnownHostsFile={paths.known_hosts} -o StrictHostKeyChecking=yes"
    return {
        "all": {
            "children": {
                "gpu_nodes": {
                    "hosts": {
                        host: {"ansible_host": address} for host, address in sorted(state.nodes.items())
                    },
                    "vars": {
                        "ansible_ssh_private_key_file": str(paths.ssh_key),
                        "ansible_ssh_common_args": ssh_args,
                    },
                },
                "switches": {
                    "hosts": {
                        name: {"ansible_host": LOOPBACK, "ansible_port": switch.port}
                        for name, switch in sorted(state.switches.items())
                    },
                    # The user name is committed (group_vars/switches); the password is made per lab.
                    # Host keys stay checked, against the keys the lab recorded for its simulators.
                    "vars": {
                        "ansible_password": state.switch_password,
                        "switch_qos_known_hosts": str(paths.known_hosts),
                        "verify_switch_known_hosts": str(paths.known_hosts),
                    },
                },
            }
        }
    }


def remove_generated_inventory(paths: LabPaths) -> None:
    """Ansible refuses an inventory folder that is empty or unreadable, so remove it whole."""
    if paths.generated.exists():
        shutil.rmtree(paths.generated)


def write_generated_inventory(state: LabState, paths: LabPaths) -> None:
    text = HEADER + yaml.safe_dump(generated_inventory(state, paths), sort_keys=False)
    paths.generated.mkdir(parents=True, exist_ok=True)  # after rendering: never leave it empty
    target = paths.generated_inventory
    temporary = target.with_name(f".{target.name}.tmp")  # Ansible skips hidden files
    temporary.write_text(text)
    temporary.chmod(0o600)
    temporary.replace(target)
