"""Where gpunet keeps what it may recompute at any time (parsed inventory files, render inputs).

One folder per kind under `$XDG_CACHE_HOME/gpunet/` (default `~/.cache/gpunet/`), created private
to the user. Each kind has its own environment variable: `off` turns it off, a folder moves it.
Deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

OFF = ("off", "0", "false", "no")


def cache_file(kind: str, env: str, key: str, prefix: str = "") -> Path | None:
    """The cache file of `key` (e.g. a folder's absolute path) for `kind`, or None when `env` is off.
    `prefix` starts the file's name, so `keep_newest` can tell a family of records apart."""
    setting = os.environ.get(env, "")
    if setting.lower() in OFF:
        return None
    if setting:
        root = Path(setting)
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpunet" / kind
    return root / f"{prefix}{hashlib.blake2b(key.encode(), digest_size=16).hexdigest()}.marshal"


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
    """Replace `path` with `data` in one step; a read-only home or a full disk costs speed only."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        return
