"""Read an inventory exactly as ansible-playbook does: Ansible's own inventory and variable managers,
so group_vars, host_vars, vault and precedence behave identically."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpunet.model.build import GPU_GROUP, SWITCH_GROUP, RawInventory, relevant_vars
from gpunet.model.errors import InventoryInvalidError, Problem
from gpunet.model.loader_errors import dedupe as _dedupe
from gpunet.model.loader_errors import file_naming_loader
from gpunet.model.loader_errors import one_line as _one_line
from gpunet.model.loader_errors import problem as _problem
from gpunet.model.loader_errors import source_problem as _source_problem
from gpunet.model.plain import to_plain
from gpunet.model.role_vars import role_variables


def load_inventory(source: str | Path, vault_password_file: str | Path | None = None) -> RawInventory:
    """Load `source` (a directory or file) and return the gpunet-relevant variables of its hosts.

    Without a vault password, vault-encrypted variable files are skipped and listed in
    `RawInventory.skipped_files`: they hold secrets, which the model never reads, so CI can check
    an inventory without the password. Raises InventoryInvalidError with one Problem per file
    that cannot be read or parsed.
    """
    source = Path(source)
    if not source.exists():
        raise InventoryInvalidError(
            [Problem(str(source), "does not exist", expected="an inventory file or folder")]
        )
    # Ansible reads its configuration at import time; make a broken source fail instead of warning.
    os.environ.setdefault("ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", "True")
    os.environ.setdefault("ANSIBLE_INVENTORY_UNPARSED_WARNING", "False")
    os.environ.setdefault("ANSIBLE_LOCALHOST_WARNING", "False")
    from ansible.errors import AnsibleError
    from ansible.inventory.manager import InventoryManager
    from ansible.template import Templar
    from ansible.vars.manager import VariableManager

    password_file = vault_password_file or os.environ.get("ANSIBLE_VAULT_PASSWORD_FILE")
    loader = file_naming_loader() if password_file else _loader_skipping_vault_files()
    if password_file:
        _set_vault_secrets(loader, str(password_file))
    with _collected_plugin_failures() as failures:
        try:
            inventory = InventoryManager(loader=loader, sources=[str(source)])
        except AnsibleError as error:
            raise InventoryInvalidError(
                [_source_problem(source, failures) or _problem(error, str(source))]
            ) from None
    variables = VariableManager(loader=loader, inventory=inventory)

    groups = {name: [h.name for h in group.get_hosts()] for name, group in inventory.groups.items()}
    wanted = dict.fromkeys(groups.get(GPU_GROUP, []) + groups.get(SWITCH_GROUP, []))
    known_role_vars = role_variables()
    hostvars: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    for name in wanted:
        try:
            all_vars = variables.get_vars(host=inventory.get_host(name), include_hostvars=False)
            own = relevant_vars(all_vars, known_role_vars)
            hostvars[name] = Templar(loader=loader, variables=all_vars).template(own)
        except AnsibleError as error:
            problems.append(_problem(error, name))
    if problems:
        raise InventoryInvalidError(_dedupe(problems))
    return RawInventory(
        groups=groups,
        hostvars=to_plain(hostvars),
        role_variables=known_role_vars,
        skipped_files=tuple(sorted(getattr(loader, "skipped_files", ()))),
    )


def _loader_skipping_vault_files() -> Any:
    from ansible.parsing.dataloader import DataLoader
    from ansible.parsing.vault import is_encrypted_file

    class VaultSkippingLoader(DataLoader):
        """Reads everything except vault-encrypted files, which it records and treats as empty."""

        skipped_files: set[str] = set()

        def load_from_file(self, file_name: str, *args: Any, **kwargs: Any) -> Any:
            with open(file_name, "rb") as handle:
                if is_encrypted_file(handle):
                    self.skipped_files.add(file_name)
                    return {}
            return super().load_from_file(file_name, *args, **kwargs)

    loader = VaultSkippingLoader()
    loader.skipped_files = set()
    return loader


def _set_vault_secrets(loader: Any, password_file: str) -> None:
    from ansible.cli import CLI
    from ansible.errors import AnsibleError

    if not Path(password_file).is_file():
        raise InventoryInvalidError([Problem(password_file, "vault password file does not exist")])
    from ansible.parsing.vault import VaultSecretsContext

    # Ansible keeps vault secrets in a once-per-process context; a library may load several
    # inventories (tests, the validate CLI), so start each load from a clean context.
    VaultSecretsContext._current = None
    try:
        secrets = CLI.setup_vault_secrets(loader, vault_ids=[], vault_password_files=[password_file])
    except AnsibleError as error:
        raise InventoryInvalidError([Problem(password_file, _one_line(error))]) from None
    loader.set_vault_secrets(secrets)


@contextlib.contextmanager
def _collected_plugin_failures() -> Iterator[list[tuple[str, Exception]]]:
    """Collect each inventory plugin's reason for rejecting a source instead of printing it;
    the one that matters becomes a single Problem."""
    from ansible.utils.display import Display

    collected: list[tuple[str, Exception]] = []
    original = Display.error_as_warning

    def collect(self: Any, msg: str | None, exception: BaseException, *args: Any, **kwargs: Any) -> None:
        collected.append((msg or "", exception))

    Display.error_as_warning = collect  # type: ignore[method-assign]
    try:
        yield collected
    finally:
        Display.error_as_warning = original  # type: ignore[method-assign]
