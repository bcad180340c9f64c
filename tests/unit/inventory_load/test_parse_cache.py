"""The parse cache returns what parsing gives, notices every edit by content, survives a broken
cache file, never stores decrypted vault text, and writes nothing when turned off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpunet.model import parse_cache
from gpunet.model.folder_inventory import read_folder
from tests.conftest import FIXTURES_DIR, REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"
SOURCES = [
    PROD,
    REPO_ROOT / "inventories" / "lab",
    *sorted((FIXTURES_DIR / "inventories" / "valid").iterdir()),
]


def _vault() -> object:
    from ansible.parsing.dataloader import DataLoader

    from gpunet.model.loader import set_vault_secrets

    loader = DataLoader()
    set_vault_secrets(loader, str(PROD / "vault-password.txt"))
    return loader._vault


def _cache_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.marshal"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_cached_read_equals_uncached_read(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parse_cache.CACHE_ENV, "off")
    uncached = read_folder(source)
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(tmp_path))
    first = read_folder(source)  # parses and writes the cache
    assert len(_cache_files(tmp_path)) == 1
    second = read_folder(source)  # from the cache
    for result in (first, second):
        assert result.groups == uncached.groups
        assert result.variables == uncached.variables


def test_an_edit_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "inventory"
    shutil.copytree(REPO_ROOT / "inventories" / "lab", folder)
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(tmp_path / "cache"))
    host_file = sorted((folder / "host_vars").iterdir())[0]
    read_folder(folder)
    host_file.write_text(host_file.read_text() + "gpunet_test_marker: edited\n")
    after = read_folder(folder)
    assert after.variables[host_file.stem]["gpunet_test_marker"] == "edited"


@pytest.mark.parametrize("garbage", [b"", b"not marshal", b"\x00" * 64])
def test_a_broken_cache_file_is_ignored_and_rewritten(
    garbage: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = REPO_ROOT / "inventories" / "lab"
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(tmp_path))
    expected = read_folder(source).variables
    [cache_file] = _cache_files(tmp_path)
    cache_file.write_bytes(garbage)
    assert read_folder(source).variables == expected
    assert cache_file.read_bytes() != garbage


def test_decrypted_vault_text_is_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(tmp_path))
    folder = read_folder(PROD, _vault())
    switch = next(iter(folder.groups["switches"]))
    assert folder.variables[switch]["vault_switch_password"] == "example-only-not-a-real-secret"
    [cache_file] = _cache_files(tmp_path)
    assert b"example-only-not-a-real-secret" not in cache_file.read_bytes()


def test_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parse_cache.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    read_folder(REPO_ROOT / "inventories" / "lab")
    assert not any(tmp_path.rglob("*"))
