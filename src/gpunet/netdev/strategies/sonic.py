"""SONiC: checkpoint, one atomic `config apply-patch` (the remediation: JSON Patch with removals),
rollback to the checkpoint on failure or lost reachability, `config save -y`, and the checkpoint
deleted (`config delete-checkpoint`) whatever the outcome.

`config delete-checkpoint` as sonic-mgmt's tests/common/gu_utils.py uses it; no maximum number of
GCU checkpoints is documented, and each push deletes its own.
"""

from __future__ import annotations

import contextlib
import json
import re

from gpunet.netdev.errors import PushError
from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies.base import CommitStrategy, SessionLost


class ConfigCheckpointRollback(CommitStrategy):
    name = "config_checkpoint_rollback"
    error_pattern = re.compile(r"^(Error|Failed|Usage:)|command not found", re.M)

    def read_running(self) -> str:
        return self.send("show runningconfiguration all").strip()

    def apply(self, remediation: Remediation) -> None:
        patch_file = f"/tmp/{self.options.tag}.json-patch"
        self.send(f"config checkpoint {self.options.tag}")
        self.write_file(patch_file, json.dumps(remediation.patch, indent=1, sort_keys=True))
        try:
            self.send(f"config apply-patch {patch_file}")
        finally:
            with contextlib.suppress(PushError, SessionLost):
                self.send(f"rm -f {patch_file}", check=False)

    def write_file(self, path: str, text: str) -> None:
        """A here-document through the shell: every line is typed, the prompt ends it."""
        marker = "GPUNET_EOF"
        self.type_and_wait(f"cat > {path} <<'{marker}'\n{text}\n{marker}\n")

    def confirm(self) -> None:
        self.confirm_reachable()

    def save(self) -> None:
        self.send("config save -y")
        self.forget_checkpoint()

    def undo(self) -> None:
        self.send(f"config rollback {self.options.tag}")
        self.forget_checkpoint()

    def recover(self) -> None:
        self.conn = self.reconnect()
        # Harmless when the patch never ran: the checkpoint holds the config from before the push.
        self.send(f"config rollback {self.options.tag}", check=False)
        self.forget_checkpoint()

    def forget_checkpoint(self) -> None:
        with contextlib.suppress(PushError, SessionLost):
            self.send(f"config delete-checkpoint {self.options.tag}", check=False)
