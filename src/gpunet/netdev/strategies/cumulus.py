"""Cumulus NVUE: the remediation (`nv unset`, `nv set`) into the pending revision, apply with
--confirm, confirm from a new session, save."""

from __future__ import annotations

import re

from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies.base import CommitStrategy, require_new_session


class NvueApplyConfirm(CommitStrategy):
    name = "nvue_apply_confirm"
    error_pattern = re.compile(r"^(Error|Invalid|Usage):|command not found", re.M)
    self_rollback = True

    def read_running(self) -> str:
        return self.send("nv config show -o commands").strip()

    def apply(self, remediation: Remediation) -> None:
        self.send("nv config detach", check=False)  # start from the applied revision
        self.send_lines(remediation.commands)
        # The clock starts before the apply is sent (cut during it, the apply may have landed) and
        # again once the OS answered, when its timer surely runs.
        self.start_rollback_clock(self.options.confirm_timeout_s)
        self.send(f"nv config apply --confirm {self.options.confirm_timeout_s}s -y")
        self.start_rollback_clock(self.options.confirm_timeout_s)

    def confirm(self) -> None:
        session = require_new_session(self, self.rollback_state())
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
