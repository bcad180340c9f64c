"""Cumulus NVUE: the remediation (`nv unset`, `nv set`) into the pending revision, apply with
--confirm, confirm from a new session, save.

Auto save (NVIDIA, NVUE command reference `nv show system config auto-save` and `nv config save`;
Cumulus Linux 5.9 What's New and user guide "Auto Save"): from 5.9 `nv config apply` also writes
the startup configuration by default, and `nv config save` is needed only where auto save is off
(5.8 and earlier by default, or `nv set system config auto-save enable off`, from 5.10 `... state
disabled`). The push still sends `nv config save` (harmless), but after a fault it reads the
startup configuration back (`nv config diff applied startup`, a documented diff of those two
revisions since 5.0) instead of inferring it from the release: NVIDIA does not say whether an
apply with `--confirm` is saved at once or once confirmed, nor whether the confirm timer's
rollback restores the startup configuration."""

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

    def startup_saved(self) -> bool | None:
        # `nv config diff <revision-base> <revision-target>` compares two revisions, `applied` and
        # `startup` among them (NVUE command reference, Config Commands, since 5.0.0): nothing
        # printed, nothing differs. `-o commands` prints the differences as nv set/unset lines.
        output = self.ask_on_new_session("nv config diff applied startup -o commands")
        return None if output is None else not output.strip()

    def undo(self) -> None:
        self.send("nv config detach", check=False)

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.send("nv config detach", check=False)
