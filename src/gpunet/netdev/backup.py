"""Running-config backups under backups/<switch>/<UTC timestamp>.cfg, with secrets masked."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from gpunet.model.names import HOST_NAME, shown
from gpunet.netdev.secrets import mask_secrets

__all__ = ["BackupPathError", "mask_secrets", "write_backup"]


class BackupPathError(ValueError):
    """The backup would land outside the backup folder; raised before anything is written."""


def write_backup(backup_root: Path, switch: str, running: str, when: datetime | None = None) -> Path:
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S.%fZ")
    path = _backup_path(backup_root, switch, stamp)
    # "x": a file (or a symlink planted) at the path is never written through.
    with open(path, "x") as backup:
        backup.write(mask_secrets(running).rstrip("\n") + "\n")
    return path


def _backup_path(backup_root: Path, switch: str, stamp: str) -> Path:
    """<backup_root>/<switch>/<stamp>.cfg, refused unless it stays inside backup_root: the switch's
    name is its folder's (the inventory check holds it to the name rule; this holds a caller to it)."""
    if (problem := HOST_NAME.problem(switch)) is not None:
        raise BackupPathError(
            f"{shown(switch)}: {problem}; its backups would be written outside {backup_root}"
        )
    folder = backup_root / switch
    folder.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(backup_root)
    if folder.is_symlink() or os.path.dirname(os.path.realpath(folder)) != root:
        raise BackupPathError(f"{folder}: leads out of the backup folder {backup_root} (a symbolic link)")
    return folder / f"{stamp}.cfg"
