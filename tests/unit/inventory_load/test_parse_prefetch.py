"""Parsing a folder's variables files in forked workers gives what reading them one by one gives:
the same inventory, the same error for a broken file, and only plain files come back from a
worker (vault, JSON, unmarshallable values and errors are left to the parent)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpunet.model import folder_inventory
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.folder_inventory import read_folder
from tests.conftest import FIXTURES_DIR, REPO_ROOT

SOURCES = [
    REPO_ROOT / "inventories" / "prod",
    REPO_ROOT / "inventories" / "lab",
    *sorted((FIXTURES_DIR / "inventories" / "valid").iterdir()),
]

HOSTS = "all:\n  hosts:\n    h1:\n    h2:\n"

# (case, host_vars/h1.yml text, prefetched by a worker)
FILES = [
    ("plain", "a: 1\nb: [x, y]\n", True),
    ("timestamp", "when: 2024-01-02\n", False),
    ("json", '{"a": 1}\n', False),
    ("broken", "a: [1\n", False),
    ("jinja", "a: '{{ b }}'\nb: 2\n", True),
]


def _read(source: Path, monkeypatch: pytest.MonkeyPatch, minimum: int) -> object:
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    monkeypatch.setattr(folder_inventory, "PREFETCH_MIN_FILES", minimum)
    try:
        return read_folder(source)
    except InventoryInvalidError as error:
        return ("error", [(p.where, p.message) for p in error.problems])
    except folder_inventory.Unhandled as unhandled:
        return ("unhandled", str(unhandled))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_prefetched_read_equals_serial_read(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _read(source, monkeypatch, 0) == _read(source, monkeypatch, 10**9)


@pytest.mark.parametrize(("case", "text", "prefetched"), FILES, ids=[f[0] for f in FILES])
def test_only_plain_files_come_from_workers(
    case: str, text: str, prefetched: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hosts.yml").write_text(HOSTS)
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "host_vars" / "h1.yml").write_text(text)
    (tmp_path / "host_vars" / "h2.yml").write_text("c: 3\n")
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    monkeypatch.setattr(folder_inventory, "PREFETCH_MIN_FILES", 0)
    reader = folder_inventory._FileReader(None, folder_inventory.cache_for(tmp_path))
    reader.prefetch(tmp_path)
    assert (tmp_path / "host_vars" / "h1.yml" in reader._prefetched) is prefetched
    assert tmp_path / "host_vars" / "h2.yml" in reader._prefetched
    assert _read(tmp_path, monkeypatch, 0) == _read(tmp_path, monkeypatch, 10**9)


def test_vault_file_is_left_to_the_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prod = REPO_ROOT / "inventories" / "prod"
    vaulted = [p for p in prod.rglob("*") if p.is_file() and p.read_bytes().startswith(b"$ANSIBLE_VAULT")]
    assert vaulted, "prod holds a vault file"
    shutil.copytree(prod, tmp_path / "prod")
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    monkeypatch.setattr(folder_inventory, "PREFETCH_MIN_FILES", 0)
    reader = folder_inventory._FileReader(None, folder_inventory.cache_for(tmp_path / "prod"))
    reader.prefetch(tmp_path / "prod")
    names = {p.relative_to(tmp_path / "prod") for p in reader._prefetched}
    assert names, "plain files came back"
    assert not names & {p.relative_to(prod) for p in vaulted}
