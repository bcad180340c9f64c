"""Where gpunet keeps what it may recompute at any time (parsed inventory files, render inputs).

One folder per kind under `$XDG_CACHE_HOME/gpunet/` (default `~/.cache/gpunet/`), created private
to the user. Each kind has its own environment variable: `off` turns it off, a folder moves it.
Deleting the folder is always safe, and `gpunet cache` says where each kind's folder is and how
much it holds. Each folder is capped at MAX_FOLDER_BYTES: a write that takes it past the cap
deletes the least recently written records first (a record larger than the cap is not written).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

OFF = ("off", "0", "false", "no")
# One kind's folder at most: the 8,192-host inventory's parse record is 37 MB, its check record a
# few; 512 MiB holds a dozen inventories of that size.
MAX_FOLDER_BYTES = 512 * 1024 * 1024
RECORD_SUFFIX = ".marshal"


def kind_folder(kind: str, env: str) -> Path | None:
    """The folder of `kind`'s records, or None when `env` turns it off."""
    setting = os.environ.get(env, "")
    if setting.lower() in OFF:
        return None
    if setting:
        return Path(setting)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpunet" / kind


def cache_file(kind: str, env: str, key: str, prefix: str = "") -> Path | None:
    """The cache file of `key` (e.g. a folder's absolute path) for `kind`, or None when `env` is off.
    `prefix` starts the file's name, so `keep_newest` can tell a family of records apart."""
    root = kind_folder(kind, env)
    if root is None:
        return None
    return root / f"{prefix}{hashlib.blake2b(key.encode(), digest_size=16).hexdigest()}{RECORD_SUFFIX}"


def records_in(folder: Path) -> list[tuple[Path, int, int]]:
    """(record, bytes, mtime_ns) of each record in `folder`, least recently written first."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(RECORD_SUFFIX) and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    found.append((Path(entry.path), info.st_size, info.st_mtime_ns))
    except OSError:
        return []
    return sorted(found, key=lambda record: record[2])


def prune_oldest(folder: Path, limit: int, keep: Path) -> None:
    """Delete the least recently written records until `folder` holds at most `limit` bytes;
    `keep` (just written) stays."""
    records = records_in(folder)
    total = sum(size for _, size, _ in records)
    for path, size, _ in records:
        if total <= limit:
            return
        if path == keep:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size


def keep_newest(path: Path, prefix: str, keep: int) -> None:
    """Keep `path` (just written) and the `keep` - 1 most recently written other `prefix`* records
    beside it; delete the rest: records keyed by content (one per inventory version) would
    otherwise pile up with every edit."""
    try:
        others = sorted(
            (entry for entry in path.parent.glob(f"{prefix}*.marshal") if entry != path),
            key=lambda entry: entry.stat().st_mtime_ns,
            reverse=True,
        )
        for stale in others[max(keep - 1, 0) :]:
            stale.unlink(missing_ok=True)
    except OSError:
        return  # another process pruned first, or a read-only cache: costs disk space only


def read_records(path: Path, file_format: str) -> dict[Any, Any]:
    """The dict `write_records` stored at `path` in `file_format`; {} when absent, unreadable or of
    another format (an older gpunet's), so a bad cache file costs speed only."""
    try:
        stored_format, records = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return records if stored_format == file_format and isinstance(records, dict) else {}


def write_records(path: Path, file_format: str, records: dict[Any, Any]) -> None:
    """Store `records` with marshal (plain values only: one it cannot store means no cache)."""
    try:
        data = marshal.dumps((file_format, records))
    except ValueError:
        return
    write_atomically(path, data)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one step, then keep the folder under MAX_FOLDER_BYTES; a
    read-only home or a full disk costs speed only, and so does a record larger than the cap."""
    if len(data) > MAX_FOLDER_BYTES:
        with contextlib.suppress(OSError):
            path.unlink()  # an older version of it is no longer what this run would store
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        return
    prune_oldest(path.parent, MAX_FOLDER_BYTES, path)
