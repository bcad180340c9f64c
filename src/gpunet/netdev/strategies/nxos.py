"""NX-OS: checkpoint, apply line by line, atomic rollback to the checkpoint on any failure, save.

NX-OS has no commit timer, so reachability after the change is proved over a new SSH session
and, if that fails, the change is rolled back through the session that is still open.
"""

from __future__ import annotations

import re

from gpunet.netdev.linediff import missing_lines
from gpunet.netdev.strategies.base import CommitStrategy


class CheckpointRollback(CommitStrategy):
    name = "checkpoint_rollback"
    error_pattern = re.compile(r"^% |Invalid command|Invalid input|Incomplete command", re.M)

    def read_running(self) -> str:
        output = self.send("show running-config")
        return "\n".join(
            line for line in output.splitlines() if line.strip() and not line.startswith(("!", "version "))
        )

    def plan(self, intended: str, running: str) -> str:
        self.intended = intended
        return "\n".join(missing_lines(intended, running, indent=2))

    def apply(self) -> None:
        self.send(f"checkpoint {self.options.tag}")
        self.send("configure terminal")
        self.send_lines(self.intended.splitlines())
        self.send("end")

    def confirm(self) -> None:
        self.confirm_reachable()

    def save(self) -> None:
        self.send("copy running-config startup-config")
        self.send(f"no checkpoint {self.options.tag}", check=False)

    def undo(self) -> None:
        self.send("end", check=False)
        self.send(f"rollback running-config checkpoint {self.options.tag} atomic")

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.send(f"rollback running-config checkpoint {self.options.tag} atomic")
