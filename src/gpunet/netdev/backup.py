"""Running-config backups under backups/<switch>/<UTC timestamp>.cfg, with secrets masked."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

# Password hashes, secrets and keys on the OSes gpunet supports: masked, never written to disk.
SECRET = re.compile(
    r"(?P<keep>\b(?:password|secret|encrypted-password|key|community|passphrase)\b"
    r"(?:\s+(?:\d{1,2}|sha\d+|md5|scrypt))?\s+)"
    r"(?P<value>\"[^\"]*\"|\S+)",
    re.I,
)


def mask_secrets(text: str) -> str:
    return SECRET.sub(lambda m: f"{m['keep']}<masked>", text)


def write_backup(backup_root: Path, switch: str, running: str, when: datetime | None = None) -> Path:
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S.%fZ")
    folder = backup_root / switch
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stamp}.cfg"
    path.write_text(mask_secrets(running).rstrip("\n") + "\n")
    return path
