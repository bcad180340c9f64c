"""The model's variables as a running play sees them, for the preflight and render action plugins.

Reading `hostvars[host][key]` templates that host's variables through Ansible's variable manager:
on 8,192 hosts that is minutes. When the play's single inventory source is a plain folder, the
fast path reads it instead, and two checks make sure the play sees the same thing: the groups
must equal the play's `groups`, and the model variables of the first GPU host and the first
switch must equal their `hostvars` (that catches extra vars, facts and set_fact, which an
inventory file cannot know). Anything else reads `hostvars` host by host, as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpunet.gcpause import paused_gc
from gpunet.model.build import GPU_GROUP, SWITCH_GROUP, RawInventory, is_loaded_var
from gpunet.model.folder_inventory import FolderInventory, Unhandled, read_folder
from gpunet.model.loader import LOADER_ENV
from gpunet.model.plain import to_plain
from gpunet.model.role_vars import role_variables


def play_raw_inventory(task_vars: Mapping[str, Any], loader: Any) -> RawInventory:
    """`loader` is the play's DataLoader (its vault secrets and playbook folder are used)."""
    groups = {name: list(members) for name, members in task_vars.get("groups", {}).items()}
    hostvars = task_vars.get("hostvars", {})
    known_role_vars = role_variables()
    wanted = list(dict.fromkeys(groups.get(GPU_GROUP, []) + groups.get(SWITCH_GROUP, [])))
    with paused_gc():
        folder = _fast_folder(task_vars, loader, groups)
    if folder is not None:
        own_vars = {name: _model_vars(folder, name, known_role_vars) for name in wanted}
        samples = [group[0] for group in (groups.get(GPU_GROUP), groups.get(SWITCH_GROUP)) if group]
        if all(own_vars[name] == _from_hostvars(hostvars[name], known_role_vars) for name in samples):
            return RawInventory(groups=groups, hostvars=own_vars, role_variables=known_role_vars)
    own_vars = {name: _from_hostvars(hostvars[name], known_role_vars) for name in wanted}
    return RawInventory(groups=groups, hostvars=own_vars, role_variables=known_role_vars)


def _fast_folder(
    task_vars: Mapping[str, Any], loader: Any, groups: dict[str, list[str]]
) -> FolderInventory | None:
    if os.environ.get(LOADER_ENV, "auto") == "ansible":
        return None
    # The sources the play's InventoryManager parsed (absolute); the CLI's list as a fallback.
    inventory = getattr(task_vars.get("hostvars"), "_inventory", None)
    sources = list(getattr(inventory, "_sources", None) or task_vars.get("ansible_inventory_sources") or [])
    playbook_dir = Path(loader.get_basedir())
    if len(sources) != 1 or any((playbook_dir / name).exists() for name in ("group_vars", "host_vars")):
        return None
    vault = getattr(loader, "_vault", None)
    has_secrets = bool(getattr(vault, "secrets", None))
    try:
        folder = read_folder(
            Path(sources[0]), vault if has_secrets else None, hosts_of=(GPU_GROUP, SWITCH_GROUP)
        )
    except Unhandled:
        return None
    if folder.skipped_files or folder.groups != groups:
        # Without secrets Ansible fails on a vault file; let it say so.
        return None
    return folder


def _model_vars(folder: FolderInventory, host: str, known_role_vars: frozenset[str]) -> dict[str, Any]:
    keys = [key for key in folder.variables[host] if is_loaded_var(key, known_role_vars)]
    values = folder.templated(host, keys)
    return to_plain(values) if folder.has_jinja else values


def _from_hostvars(host: Mapping[str, Any], known_role_vars: frozenset[str]) -> dict[str, Any]:
    # Reading a hostvar templates it (and may decrypt vault): read only the keys the loaders read.
    return to_plain({key: host[key] for key in host if is_loaded_var(key, known_role_vars)})


VAULT_HOW = "give it with --vault-password-file FILE or --ask-vault-pass (or set ANSIBLE_VAULT_PASSWORD_FILE)"


class VaultPasswordMissing(Exception):
    """The play cannot read vault-encrypted variables and what it runs needs them: one line."""


def play_raw_inventory_without_secrets(
    task_vars: Mapping[str, Any], loader: Any, *, gate: bool = False
) -> RawInventory:
    """play_raw_inventory; where the play has no vault password and cannot decrypt a vault file, its
    single inventory source read as `gpunet render` reads it: vault files left unread and listed in
    `skipped_files` (the model reads no secret).

    Raises VaultPasswordMissing, one line naming the vault files and how to give the password, for
    several inventory sources, and, with `gate` (the preflight, which runs first under any --tags),
    whenever a vault file went unread: the plays after it need the secrets, even under
    `--tags render` (Ansible checks every role's arguments whatever the tags select, and that reads
    the switches' variables), and would otherwise stop with Ansible's "no vault secrets found",
    which names no file. InventoryInvalidError as load_inventory raises it.
    """
    from ansible.errors import AnsibleError

    from gpunet.model.loader import load_inventory

    try:
        return play_raw_inventory(task_vars, loader)
    except AnsibleError as error:
        if not is_missing_vault_secret(error):
            raise
    sources = [str(source) for source in task_vars.get("ansible_inventory_sources") or []]
    if len(sources) != 1:
        raise VaultPasswordMissing(
            f"no vault password for the vault-encrypted variables of {', '.join(sources)}: {VAULT_HOW}"
        )
    raw = load_inventory(sources[0])
    if gate and raw.skipped_files:
        raise VaultPasswordMissing(
            f"no vault password for {', '.join(raw.skipped_files)}, which the plays after the render "
            f"read (under any --tags): {VAULT_HOW}; to render without it: ansible-playbook "
            f"playbooks/render.yml (gpunet.fabric.render) or gpunet render"
        )
    return raw


def is_missing_vault_secret(error: BaseException) -> bool:
    """Ansible's "Attempting to decrypt but no vault secrets found", however deep it is wrapped."""
    seen: BaseException | None = error
    while seen is not None:
        if "no vault secrets" in str(getattr(seen, "message", "") or seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
