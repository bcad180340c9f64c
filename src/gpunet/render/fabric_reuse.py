"""Skip the whole model build and render when the inventory is exactly what the last render saw.

With nothing changed, `gpunet render` and `playbooks/render.yml` spent most of their time building
and cross-checking the model (8,192 hosts, 2,560 switches) only to find every file up to date. So
each successful render records, under a key over its exact inputs (gpunet.model.inventory_key:
the inventory as the model receives it, vault values decrypted, and every file of the gpunet
package), the sha256 of every file it wrote into its output folder. The next render with the
same key checks the folder instead: when every recorded file still has its
digest, the manifest is current and nothing is left to remove, the answer is "up to date", which a
full render would also give, and nothing is built. Anything else (a file edited, deleted or extra,
another key) takes the full path. Only digests are stored, never a value of the inventory, so
decrypted vault text stays out of the cache; `--check` and check mode never take this path.
Shares `GPUNET_RENDER_CACHE` (`off`, or a folder) with the per-switch reuse in reuse.py.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gpunet.cachedir import cache_file, keep_newest, kind_folder, read_records, write_records
from gpunet.model.build import RawInventory
from gpunet.model.inventory_key import inventory_key
from gpunet.render import reuse
from gpunet.render.intended import WriteReport, classify_existing
from gpunet.render.manifest import MANIFEST_NAME, RenderFolderError, digests_manifest_text
from gpunet.render.reuse import CACHE_ENV

FORMAT = "gpunet-fabric-render-1"
RECORD_PREFIX = "fabric-"
KEEP_RECORDS = 8  # inventory versions kept (one file each, about 80 bytes per rendered file)


@dataclass(frozen=True)
class _Stored:
    fabric_name: str
    files: dict[str, dict[str, str]]  # absolute output folder -> file name -> digest


class FabricReuse:
    """The record of the last successful render of one exact inventory."""

    def __init__(self, raw: RawInventory) -> None:
        # With the cache off there is nothing to look up: the key alone spells the whole inventory
        # with marshal (2.4 s and a 380 MiB string at 32,768 hosts).
        key = _key(raw) if kind_folder("render", CACHE_ENV) is not None else None
        self.path = None if key is None else cache_file("render", CACHE_ENV, key.hex(), RECORD_PREFIX)
        records = read_records(self.path, FORMAT) if self.path is not None else {}
        name, files = records.get("fabric"), records.get("folders")
        self._stored = _Stored(name, files) if isinstance(name, str) and isinstance(files, dict) else None

    @property
    def fabric_name(self) -> str | None:
        """The fabric's name when this inventory was rendered before (it decides the default folder)."""
        return self._stored.fabric_name if self._stored is not None else None

    def up_to_date(self, out_dir: Path, *, force: bool) -> WriteReport | None:
        """The report of a render that finds every file current, or None when that is not certain."""
        files = self._stored.files.get(str(out_dir.absolute())) if self._stored is not None else None
        if not files or not out_dir.is_dir():
            return None
        for name, recorded in files.items():
            try:
                data = (out_dir / name).read_bytes()
            except OSError:
                return None
            # write_intended reads text with universal newlines: a "\r" would read as another text.
            if b"\r" in data or "sha256:" + hashlib.sha256(data).hexdigest() != recorded:
                return None
        try:
            if (out_dir / MANIFEST_NAME).read_text() != digests_manifest_text(files):
                return None
        except (OSError, UnicodeDecodeError):
            return None
        report = WriteReport(out_dir=out_dir)
        try:
            classify_existing(out_dir, files, report, force=force, with_diffs=False)
        except RenderFolderError:
            return None  # the full path raises it again, with its own wording
        if report.extra or report.edited:
            return None
        report.unchanged = sorted(files)
        return report

    def record(self, fabric_name: str, out_dir: Path, digests: dict[str, str]) -> None:
        """Store the digests of the files now in `out_dir` (call only after they were written)."""
        if self.path is None:
            return
        folders = dict(self._stored.files) if self._stored is not None else {}
        folder = str(out_dir.absolute())
        if folders.get(folder) == digests and self.fabric_name == fabric_name:
            return
        folders[folder] = {str(name): str(value) for name, value in digests.items()}
        write_records(self.path, FORMAT, {"fabric": str(fabric_name), "folders": folders})
        keep_newest(self.path, RECORD_PREFIX, KEEP_RECORDS)


def _key(raw: RawInventory) -> bytes | None:
    # reuse's own fingerprint (templates, render code) too, so what changes one changes both.
    return inventory_key(raw, FORMAT.encode() + reuse._code_fingerprint())
