"""The preflight's kept check answers only for exactly the inventory that passed: a host_var, a
group_var or a vault-encrypted value that breaks the inventory is checked afresh and fails; a
failed check is never kept; the kept answer is the one the check gives."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret

from gpunet.model import parse_cache
from gpunet.model.build import RawInventory
from gpunet.model.check import check_raw
from gpunet.model.check_reuse import CheckReuse
from gpunet.model.loader import load_inventory
from tests.conftest import REPO_ROOT

LAB = REPO_ROOT / "inventories" / "lab"
PASSWORD = b"test-only-password"
FABRIC_VARS = Path("group_vars") / "all" / "fabric.yml"
VAULT = VaultLib([("default", VaultSecret(PASSWORD))])


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)


def _inventory(tmp_path: Path, *, vaulted: bool) -> tuple[Path, Path | None]:
    inventory = tmp_path / "inventory"
    shutil.copytree(LAB, inventory)
    if not vaulted:
        return inventory, None
    password_file = tmp_path / "vault-password.txt"
    password_file.write_bytes(PASSWORD + b"\n")
    path = inventory / FABRIC_VARS
    path.write_text(VAULT.encrypt(path.read_text()).decode())
    return inventory, password_file


def _load(inventory: Path, password_file: Path | None) -> RawInventory:
    return load_inventory(inventory, password_file)


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _break_host_var(inventory: Path) -> None:
    _replace(inventory / "host_vars" / "leaf01.yml", 'peer: "gpu01:mlx5_0"', 'peer: "gpu01:mlx5_9"')


def _break_group_var(inventory: Path) -> None:
    _replace(inventory / FABRIC_VARS, "  mtu: 9216\n", "  mtu: 1500\n")


def _break_vault_value(inventory: Path) -> None:
    path = inventory / FABRIC_VARS
    plain = VAULT.decrypt(path.read_text()).decode()
    assert "  mtu: 9216\n" in plain
    path.write_text(VAULT.encrypt(plain.replace("  mtu: 9216\n", "  mtu: 1500\n")).decode())


# change -> (edit that breaks the inventory, whether the fabric-wide vars file is vault-encrypted)
BREAKS: dict[str, tuple[Callable[[Path], None], bool]] = {
    "a host_var": (_break_host_var, False),
    "a group_var": (_break_group_var, False),
    "a vault-encrypted value": (_break_vault_value, True),
}


@pytest.mark.parametrize("change", sorted(BREAKS))
def test_a_broken_input_is_checked_afresh(change: str, tmp_path: Path) -> None:
    edit, vaulted = BREAKS[change]
    inventory, password_file = _inventory(tmp_path, vaulted=vaulted)
    first = check_raw(_load(inventory, password_file))
    assert first.ok, first.problems
    CheckReuse(_load(inventory, password_file)).record(first)
    assert CheckReuse(_load(inventory, password_file)).passed() is not None
    edit(inventory)
    broken = _load(inventory, password_file)
    assert CheckReuse(broken).passed() is None, "a changed inventory must be checked again"
    assert not check_raw(broken).ok, "the edit must break the inventory"


def test_the_kept_answer_is_the_checks_answer(tmp_path: Path) -> None:
    inventory, _ = _inventory(tmp_path, vaulted=False)
    result = check_raw(_load(inventory, None))
    assert result.fabric is not None
    CheckReuse(_load(inventory, None)).record(result)
    passed = CheckReuse(_load(inventory, None)).passed()
    assert passed is not None
    assert passed.message == result.fabric.summary()
    assert passed.summary == result.as_dict()["summary"]


def test_a_failed_check_is_never_kept(tmp_path: Path) -> None:
    inventory, _ = _inventory(tmp_path, vaulted=False)
    _break_host_var(inventory)
    result = check_raw(_load(inventory, None))
    assert not result.ok
    CheckReuse(_load(inventory, None)).record(result)
    assert CheckReuse(_load(inventory, None)).passed() is None


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parse_cache.CACHE_ENV, "off")
    inventory, _ = _inventory(tmp_path, vaulted=False)
    raw = _load(inventory, None)
    CheckReuse(raw).record(check_raw(raw))
    assert CheckReuse(raw).passed() is None
    assert not (tmp_path / "cache").exists()


def test_no_inventory_value_is_stored(tmp_path: Path) -> None:
    inventory, password_file = _inventory(tmp_path, vaulted=True)
    raw = _load(inventory, password_file)
    CheckReuse(raw).record(check_raw(raw))
    record = CheckReuse(raw).path
    assert record is not None and record.is_file()
    assert b"10.247.100.250" not in record.read_bytes()  # the NTP server, from the encrypted file


def test_records_of_old_inventory_versions_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpunet.model import check_reuse

    monkeypatch.setattr(check_reuse, "KEEP_RECORDS", 2)
    inventory, _ = _inventory(tmp_path, vaulted=False)
    host_file = inventory / "host_vars" / "leaf01.yml"
    original = host_file.read_text()
    for length in (3, 10, 20, 30):
        host_file.write_text(original.replace("cable_length_m: 3}", f"cable_length_m: {length}}}", 1))
        raw = _load(inventory, None)
        CheckReuse(raw).record(check_raw(raw))
    assert len(sorted((tmp_path / "cache").glob(f"{check_reuse.RECORD_PREFIX}*.marshal"))) == 2
    assert CheckReuse(_load(inventory, None)).passed() is not None
