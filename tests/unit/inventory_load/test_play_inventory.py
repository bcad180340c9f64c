"""The action plugins' view of the inventory: the fast path when it agrees with the play's
hostvars, host-by-host hostvars otherwise, and the same RawInventory either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gpunet.model.play_inventory as play_inventory
from gpunet.model.loader import LOADER_ENV
from tests.conftest import FIXTURES_DIR, REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"
MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"


def _play_view(source: Path, password: Path | None, extra_vars: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """localhost's task vars as a play in playbooks/ sees them, and the play's loader."""
    from ansible.cli import CLI
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.parsing.vault import VaultSecretsContext
    from ansible.vars.hostvars import HostVars
    from ansible.vars.manager import VariableManager

    loader = DataLoader()
    loader.set_basedir(str(REPO_ROOT / "playbooks"))
    if password:
        VaultSecretsContext._current = None
        loader.set_vault_secrets(
            CLI.setup_vault_secrets(loader, vault_ids=[], vault_password_files=[str(password)])
        )
    inventory = InventoryManager(loader=loader, sources=[str(source)])
    variables = VariableManager(loader=loader, inventory=inventory)
    variables._extra_vars = extra_vars
    variables._hostvars = HostVars(inventory=inventory, variable_manager=variables, loader=loader)
    return variables.get_vars(host=inventory.get_host("localhost")), loader


@pytest.fixture
def hostvars_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the hosts whose hostvars the plugin read."""
    reads: list[str] = []
    original = play_inventory._from_hostvars

    def counting(host: Any, known: frozenset[str]) -> dict[str, Any]:
        reads.append(host["inventory_hostname"])
        return original(host, known)

    monkeypatch.setattr(play_inventory, "_from_hostvars", counting)
    return reads


@pytest.mark.parametrize(
    ("source", "password"),
    [(PROD, PROD / "vault-password.txt"), (MINIMAL, None)],
    ids=["prod_with_vault", "minimal"],
)
def test_fast_path_reads_two_hosts_and_gives_the_hostvars_answer(
    source: Path, password: Path | None, hostvars_reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    task_vars, loader = _play_view(source, password, {})
    fast = play_inventory.play_raw_inventory(task_vars, loader)
    assert len(hostvars_reads) == 2  # the two samples the fast path is checked against

    monkeypatch.setenv(LOADER_ENV, "ansible")
    slow = play_inventory.play_raw_inventory(task_vars, loader)
    assert len(hostvars_reads) == 2 + len(slow.hostvars)
    assert fast == slow


def test_extra_vars_send_the_plugin_back_to_hostvars(hostvars_reads: list[str]) -> None:
    task_vars, loader = _play_view(MINIMAL, None, {"gpunet_fabric": {"name": "from_extra_vars"}})
    raw = play_inventory.play_raw_inventory(task_vars, loader)
    assert hostvars_reads[0] == "gpu01"  # the sample that disagreed
    assert hostvars_reads[1:] == list(raw.hostvars)  # then every host, from hostvars
    assert {host["gpunet_fabric"]["name"] for host in raw.hostvars.values()} == {"from_extra_vars"}


def test_without_vault_secrets_ansible_reports_the_vault_file(hostvars_reads: list[str]) -> None:
    from ansible.errors import AnsibleError

    task_vars, loader = _play_view(PROD, None, {})
    with pytest.raises(AnsibleError, match="vault"):
        play_inventory.play_raw_inventory(task_vars, loader)
