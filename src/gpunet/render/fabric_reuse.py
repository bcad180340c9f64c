"""Skip the whole model build and render when the inventory is exactly what the last render saw.

With nothing changed, `gpunet render` and `playbooks/render.yml` spent most of their time building
and cross-checking the model (8,192 hosts, 2,560 switches) only to find every file up to date. So
each successful render records, under a key over its exact inputs, the sha256 of every file it
wrote into its output folder. The key is the BLAKE2b of the loaded inventory as the model receives
it (groups, each host's model variables after templating and vault decryption, the roles'
variable names, the unread vault files; `marshal` version 2, which spells every value and its type
exactly) together with every file of the gpunet package and the versions of its dependencies. The
next render with the same key checks the folder instead: when every recorded file still has its
digest, the manifest is current and nothing is left to remove, the answer is "up to date", which a
full render would also give, and nothing is built. Anything else (a file edited, deleted or extra,
another key) takes the full path. Only digests are stored, never a value of the inventory, so
decrypted vault text stays out of the cache; `--check` and check mode never take this path.
Shares `GPUNET_RENDER_CACHE` (`off`, or a folder) with the per-switch reuse in reuse.py.
"""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from gpunet.cachedir import cache_file, read_records, write_records
from gpunet.model.build import RawInventory
from gpunet.render import reuse
from gpunet.render.intended import WriteReport, classify_existing
from gpunet.render.manifest import MANIFEST_NAME, RenderFolderError, digests_manifest_text
from gpunet.render.reuse import CACHE_ENV

FORMAT = "gpunet-fabric-render-1"
MARSHAL_VERSION = 2  # before version 3 marshal writes no back-references: equal values, equal bytes


@dataclass(frozen=True)
class _Stored:
    fabric_name: str
    files: dict[str, dict[str, str]]  # absolute output folder -> file name -> digest


class FabricReuse:
    """The record of the last successful render of one exact inventory."""

    def __init__(self, raw: RawInventory) -> None:
        key = inventory_key(raw)
        self.path = None if key is None else cache_file("render", CACHE_ENV, f"inventory {key.hex()}")
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


def inventory_key(raw: RawInventory) -> bytes | None:
    """BLAKE2b over everything the model and the render read, or None when a value has no exact
    spelling in marshal (an Ansible-tagged string, say): then nothing is reused."""
    try:
        spelled = marshal.dumps(
            (
                FORMAT,
                # A play's group and host names are Ansible's tagged str subclass: spell them plain.
                [(str(group), [str(member) for member in members]) for group, members in raw.groups.items()],
                [(str(host), variables) for host, variables in raw.hostvars.items()],
                sorted(raw.role_variables),
                list(raw.skipped_files),
            ),
            MARSHAL_VERSION,
        )
    except ValueError:
        return None
    # reuse's own fingerprint (templates, render code) too, so what changes one changes both.
    code = reuse._code_fingerprint() + _package_fingerprint()
    return hashlib.blake2b(code + spelled, digest_size=20).digest()


@cache
def _package_fingerprint() -> bytes:
    """Every file of the gpunet package (code, templates, schemas, defaults) and the versions of
    the libraries it depends on: any change to them builds and renders again."""
    hasher = hashlib.blake2b(digest_size=20)
    for name, entry in sorted(_package_files(resources.files("gpunet"), "gpunet")):
        hasher.update(name.encode() + b"\0" + entry.read_bytes() + b"\0")
    hasher.update(repr(sorted(_dependency_versions())).encode())
    return hasher.digest()


def _package_files(folder: Any, name: str) -> list[tuple[str, Any]]:
    found = []
    for entry in folder.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                found.extend(_package_files(entry, f"{name}/{entry.name}"))
        elif not entry.name.endswith((".pyc", ".pyo")):
            found.append((f"{name}/{entry.name}", entry))
    return found


def _dependency_versions() -> list[tuple[str, str]]:
    versions = []
    try:
        requirements = metadata.requires("gpunet") or []
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        requirements = []
    for requirement in requirements:
        if "extra ==" in requirement:
            continue
        package = requirement.split(";")[0].strip()
        for stop in "<>=!~[ (":
            package = package.split(stop)[0]
        try:
            versions.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            versions.append((package, "absent"))
    return versions
