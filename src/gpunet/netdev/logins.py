"""How gpunet logs in to each switch, from the inventory's variables (per switch or per group):

| variable | meaning |
| --- | --- |
| `ansible_password` | password (from the vault); optional when a key or the agent is used |
| `gpunet_ssh_key_file` (or `ansible_ssh_private_key_file`) | private key for the switch login |
| `gpunet_ssh_agent` | offer the SSH agent's keys (default false) |
| `gpunet_ssh_jump_host` | `[user@]host[:port]` bastion, as OpenSSH's ProxyJump |
| `gpunet_ssh_jump_key_file` | private key for the bastion (else the agent) |
| `gpunet_ssh_key_passphrase` | passphrase of an encrypted key file (from the vault) |
| `gpunet_ssh_config_file` | an OpenSSH config to honour, e.g. `~/.ssh/config` (see below) |
| `gpunet_ssh_host_key_checking` | check host keys against known_hosts (default true) |

`gpunet_ssh_config_file`: netmiko reads HostName, Port, User, ProxyCommand and a one-hop ProxyJump
from it; not together with `gpunet_ssh_jump_host`.

The same mapping serves the push's action plugin, the switch-show collection and `gpunet drift`.
Passwords stay inside `Connection`, whose repr never shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gpunet.netdev.jumphost import JumpHost
from gpunet.netdev.push import Connection

LOGIN_VARS = (
    "ansible_password",
    "ansible_ssh_private_key_file",
    "gpunet_ssh_key_file",
    "gpunet_ssh_agent",
    "gpunet_ssh_jump_host",
    "gpunet_ssh_jump_key_file",
    "gpunet_ssh_key_passphrase",
    "gpunet_ssh_config_file",
    "gpunet_ssh_host_key_checking",
)


def as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def connection_from_vars(
    variables: Mapping[str, Any],
    *,
    known_hosts: Path | None,
    timeout_s: float,
    template: Callable[[Any], Any] = lambda value: value,
) -> Connection:
    """A Connection from one switch's variables; raises ValueError naming a bad variable."""

    def var(key: str, default: Any = None) -> Any:
        value = variables.get(key, default)
        return template(value) if value is not None else None

    key_file = var("gpunet_ssh_key_file") or var("ansible_ssh_private_key_file")
    jump_spec = var("gpunet_ssh_jump_host")
    jump_key = var("gpunet_ssh_jump_key_file")
    ssh_config = var("gpunet_ssh_config_file")
    try:
        jump = (
            JumpHost.parse(str(jump_spec), key_file=Path(str(jump_key)).expanduser() if jump_key else None)
            if jump_spec
            else None
        )
    except ValueError as error:
        raise ValueError(f"gpunet_ssh_jump_host: {error}") from None
    return Connection(
        password=str(var("ansible_password") or ""),
        host_key_checking=as_bool(var("gpunet_ssh_host_key_checking", True)),
        known_hosts=known_hosts,
        timeout_s=timeout_s,
        key_file=Path(str(key_file)).expanduser() if key_file else None,
        use_agent=as_bool(var("gpunet_ssh_agent", False)),
        jump=jump,
        key_passphrase=str(var("gpunet_ssh_key_passphrase") or "") or None,
        ssh_config_file=Path(str(ssh_config)).expanduser() if ssh_config else None,
    )


def inventory_logins(inventory: Path, vault_password_file: str | None, names: list[str]) -> dict[str, Any]:
    """Each switch's login variables, read by Ansible's own managers (vault decrypted)."""
    import os

    from ansible.errors import AnsibleError
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar
    from ansible.vars.manager import VariableManager

    from gpunet.model.loader import loader_skipping_vault_files, set_vault_secrets

    password_file = vault_password_file or os.environ.get("ANSIBLE_VAULT_PASSWORD_FILE")
    loader = DataLoader() if password_file else loader_skipping_vault_files()
    if password_file:
        set_vault_secrets(loader, str(password_file))
    inventory_manager = InventoryManager(loader=loader, sources=[str(inventory)])
    variables = VariableManager(loader=loader, inventory=inventory_manager)
    found: dict[str, Any] = {}
    for name in names:
        all_vars = variables.get_vars(host=inventory_manager.get_host(name), include_hostvars=False)
        templar = Templar(loader=loader, variables=all_vars)
        own: dict[str, Any] = {}
        for key in LOGIN_VARS:
            if key not in all_vars:
                continue
            try:
                own[key] = templar.template(all_vars[key])
            except AnsibleError:
                # Never the value or Ansible's message (it may quote the secret's expression).
                hint = "" if password_file else " (vault-encrypted? give --vault-password-file)"
                raise ValueError(f"{name}.{key}: cannot be read{hint}") from None
        found[name] = own
    return found
