"""Backups never land outside the backup folder (issue 34): a switch name that is no single path
part, or a switch folder that is a symbolic link out, is refused before anything is written."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpunet.netdev.backup import BackupPathError, write_backup

WHEN = datetime(2026, 12, 2, 22, 0, 0, tzinfo=UTC)
RULE = "breaks the host name rule"

# (switch name, the error's words)
HOSTILE_NAMES = [
    ("../../../escaped", f"../../../escaped: {RULE}"),
    ("/tmp/abs", f"/tmp/abs: {RULE}"),
    ("..", f"..: {RULE}"),
    ("leaf01\n", f"'leaf01\\n': {RULE}: holds U+000A"),
    ("l\u0435af01", f"'l\\u0435af01': {RULE}: holds U+0435 CYRILLIC SMALL LETTER IE"),
]


@pytest.mark.parametrize(("switch", "words"), HOSTILE_NAMES)
def test_a_name_that_leaves_the_folder_is_refused(tmp_path: Path, switch: str, words: str) -> None:
    root = tmp_path / "deep" / "er" / "backups"
    root.mkdir(parents=True)
    with pytest.raises(BackupPathError) as raised:
        write_backup(root, switch, "hostname x\n", WHEN)
    assert str(raised.value).startswith(words)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_switch_folder_linked_out_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "backups", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "leaf01").symlink_to(outside)
    with pytest.raises(BackupPathError, match="leads out of the backup folder"):
        write_backup(root, "leaf01", "hostname leaf01\n", WHEN)
    assert list(outside.iterdir()) == []


def test_a_planted_file_is_never_written_through(tmp_path: Path) -> None:
    root, target = tmp_path / "backups", tmp_path / "target"
    target.write_text("precious\n")
    (root / "leaf01").mkdir(parents=True)
    (root / "leaf01" / "20261202T220000.000000Z.cfg").symlink_to(target)
    with pytest.raises(FileExistsError):
        write_backup(root, "leaf01", "hostname leaf01\n", WHEN)
    assert target.read_text() == "precious\n"
