"""One push per switch at a time on this controller: an advisory lock file per switch.

`<backup_root>/.locks/<switch>.lock`, taken with flock(2) (released by the kernel when the
process ends, however it ends) and holding the holder's pid for the message. A second push to the
same switch, from any process sharing the backup folder, is refused before it logs in; it never
waits, so a stuck push cannot queue others behind it unseen.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from gpunet.model.names import HOST_NAME, shown
from gpunet.netdev.errors import PushError


@contextlib.contextmanager
def switch_lock(backup_root: Path, switch: str) -> Iterator[None]:
    """Hold `switch`'s push lock for the block; PushError (nothing touched) if another has it."""
    if (problem := HOST_NAME.problem(switch)) is not None:
        raise PushError(shown(switch), f"{problem}; no lock file can be named after it")
    folder = backup_root / ".locks"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{switch}.lock"
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip() or "?"
            raise PushError(
                switch,
                f"another push to this switch is running (pid {holder}, lock {path}); nothing was done",
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(descriptor)  # closing drops the flock
