"""Junos: private candidate, `show | compare`, `commit confirmed`, confirm with `commit` anew.

Each `set` line is typed in configuration mode (the effect of `load set terminal`), so the OS's
error for a bad line is seen on that line.
"""

from __future__ import annotations

import math
import re

from gpunet.netdev.strategies.base import CommitStrategy, require_new_session


class CommitConfirmed(CommitStrategy):
    name = "commit_confirmed"
    error_pattern = re.compile(r"^(syntax error|error:|unknown command|missing argument)", re.M)
    self_rollback = True

    def read_running(self) -> str:
        return self.send("show configuration | display set").strip()

    def plan(self, intended: str, running: str) -> str:
        self.send("configure private")
        self.send_lines(intended.splitlines())
        diff = self.send("show | compare").strip()
        return "" if diff == "[edit]" else diff

    def discard(self) -> None:
        self.send("rollback 0", check=False)
        self.send("exit configuration-mode", check=False)

    def apply(self) -> None:
        minutes = max(1, math.ceil(self.options.confirm_timeout_s / 60))
        self.send(f"commit confirmed {minutes}")
        self.send("exit configuration-mode", check=False)

    def confirm(self) -> None:
        session = require_new_session(self, "rolling back by itself when commit confirmed expires")
        try:
            self.send("configure private", conn=session)
            self.send("commit", conn=session)
            self.send("exit configuration-mode", conn=session, check=False)
        finally:
            session.disconnect()

    def save(self) -> None:
        """A Junos commit is persistent; nothing to save."""

    def undo(self) -> None:
        self.discard()

    def recover(self) -> None:
        """A private candidate is discarded when its session ends: the running config is untouched."""
