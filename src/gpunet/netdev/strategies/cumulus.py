"""Cumulus NVUE: `nv set` into the pending revision, `nv config diff`, apply with --confirm, save."""

from __future__ import annotations

import re

from gpunet.netdev.strategies.base import CommitStrategy, require_new_session


class NvueApplyConfirm(CommitStrategy):
    name = "nvue_apply_confirm"
    error_pattern = re.compile(r"^(Error|Invalid|Usage):|command not found", re.M)
    self_rollback = True

    def read_running(self) -> str:
        return self.send("nv config show -o commands").strip()

    def plan(self, intended: str, running: str) -> str:
        self.send("nv config detach", check=False)  # start from the applied revision
        self.send_lines(intended.splitlines())
        return self.send("nv config diff -o commands").strip()

    def discard(self) -> None:
        self.send("nv config detach", check=False)

    def apply(self) -> None:
        self.send(f"nv config apply --confirm {self.options.confirm_timeout_s}s -y")

    def confirm(self) -> None:
        session = require_new_session(self, "rolling back by itself when the confirm time expires")
        try:
            self.send("nv config apply --confirm-yes -y", conn=session)
        finally:
            session.disconnect()

    def save(self) -> None:
        self.send("nv config save")

    def undo(self) -> None:
        self.send("nv config detach", check=False)

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.send("nv config detach", check=False)
