"""NX-OS: checkpoint to a file, the remediation line by line, atomic rollback on any failure, save,
and the checkpoint file deleted whatever the outcome.

NX-OS keeps at most ten named checkpoints (`checkpoint <name>`; Cisco Nexus 3548 NX-OS System
Management Configuration Guide, "Configuring the Rollback Feature", guidelines; see
docs/switch-push.md, "Checkpoints"). A file
checkpoint (`checkpoint file bootflash:<file>`) is not one of the ten, so a switch whose ten are
taken still gets pushed, and gpunet never deletes an operator's named checkpoint to make room.
NX-OS has no commit timer: reachability after the change is proved over a new SSH session and,
if that fails, the change is rolled back through the session that is still open.
"""

from __future__ import annotations

import contextlib
import re

from gpunet.netdev.errors import PushError
from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies.base import CommitStrategy, SessionLost


class CheckpointRollback(CommitStrategy):
    name = "checkpoint_rollback"
    error_pattern = re.compile(r"^% |Invalid command|Invalid input|Incomplete command|^ERROR:", re.M)

    @property
    def checkpoint_file(self) -> str:
        return f"bootflash:{self.options.tag}.checkpoint"

    def read_running(self) -> str:
        output = self.send("show running-config")
        return "\n".join(
            line for line in output.splitlines() if line.strip() and not line.startswith(("!", "version "))
        )

    def apply(self, remediation: Remediation) -> None:
        self.send(f"checkpoint file {self.checkpoint_file}")
        self.send("configure terminal")
        self.send_lines(remediation.commands)
        self.send("end")

    def confirm(self) -> None:
        self.confirm_reachable()

    def save(self) -> None:
        self.send("copy running-config startup-config")
        self.discard_checkpoint()

    def undo(self) -> None:
        self.send("end", check=False)
        self.send(f"rollback running-config file {self.checkpoint_file} atomic")
        self.discard_checkpoint()

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.send(f"rollback running-config file {self.checkpoint_file} atomic")
        self.discard_checkpoint()

    def discard_checkpoint(self) -> None:
        with contextlib.suppress(PushError, SessionLost):  # a leftover file is reported by no one else
            self.send(f"delete {self.checkpoint_file} no-prompt", check=False)
