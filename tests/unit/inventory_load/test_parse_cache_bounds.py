"""The parse cache is bounded (issue 34): an entry that stores larger than a small multiple of its
file is used but not kept, each cache folder is capped with the least recently written record out
first, and `gpunet cache` says where the folders are."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpunet import cachedir
from gpunet.cli import main
from gpunet.model import parse_cache
from gpunet.model.folder_inventory import read_folder
from tests.conftest import FIXTURES_DIR

MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"
# 900 aliases of a 1,000-item list: 900,000 nodes added (under yaml_bounds.MAX_ALIAS_NODES) from
# a 9 KB file; stored expanded, the entry would be 1,000 times the file.
ALIASES = (
    "gpunet_x_base: &b ["
    + ", ".join(["1"] * 1000)
    + "]\n"
    + "".join(f"gpunet_x{i}: *b\n" for i in range(900))
)


def test_an_entry_larger_than_its_file_allows_is_used_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inventory = tmp_path / "inventory"
    shutil.copytree(MINIMAL, inventory)
    (inventory / "group_vars" / "gpu_nodes.yml").write_text(ALIASES)
    cache = tmp_path / "cache"
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(cache))
    first = read_folder(inventory)
    second = read_folder(inventory)  # the aliased file parsed again, the others from the cache
    assert first.variables == second.variables
    assert len(first.variables["gpu01"]["gpunet_x899"]) == 1000
    (record,) = cache.glob("*.marshal")
    sources = sum(path.stat().st_size for path in inventory.rglob("*.yml"))
    assert record.stat().st_size <= parse_cache.RECORD_FACTOR * sources
    assert record.stat().st_size < len(ALIASES)  # the aliased entry is not in it


def _record(folder: Path, name: str, size: int, age_s: int) -> Path:
    path = folder / f"{name}.marshal"
    path.write_bytes(b"x" * size)
    stamp = 1_700_000_000 - age_s
    os.utime(path, (stamp, stamp))
    return path


# (records as (name, bytes, age in seconds), the cap, the record written now, what stays)
PRUNING = [
    ([("old", 400, 300), ("mid", 400, 200), ("new", 400, 100)], 1000, ("now", 300), {"new", "now"}),
    ([("old", 100, 300), ("mid", 100, 200)], 1000, ("now", 300), {"old", "mid", "now"}),
    ([("old", 900, 300)], 1000, ("now", 1001), {"old"}),  # larger than the cap: not written
]


@pytest.mark.parametrize(("existing", "cap", "written", "stays"), PRUNING)
def test_the_folder_is_capped_oldest_first(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    existing: list[tuple[str, int, int]],
    cap: int,
    written: tuple[str, int],
    stays: set[str],
) -> None:
    monkeypatch.setattr(cachedir, "MAX_FOLDER_BYTES", cap)
    for name, size, age in existing:
        _record(tmp_path, name, size, age)
    cachedir.write_atomically(tmp_path / f"{written[0]}.marshal", b"y" * written[1])
    assert {path.stem for path in tmp_path.glob("*.marshal")} == stays


def test_gpunet_cache_says_where_it_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inventory_cache = tmp_path / "inventory-cache"
    monkeypatch.setenv("GPUNET_PARSE_CACHE", str(inventory_cache))
    monkeypatch.setenv("GPUNET_RENDER_CACHE", "off")
    monkeypatch.setenv(parse_cache.CACHE_ENV, str(inventory_cache))
    read_folder(MINIMAL)
    assert main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"inventory: {inventory_cache} (1 record(s), ")
    assert lines[1] == "render: off (GPUNET_RENDER_CACHE); render inputs and written digests"
    assert main(["cache", "--clear"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"inventory: {inventory_cache}: removed 1 record(s)"
    assert list(inventory_cache.glob("*.marshal")) == []
