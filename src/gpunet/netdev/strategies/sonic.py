"""SONiC: checkpoint, one atomic `config apply-patch` (JSON Patch of the intended tables),
rollback to the checkpoint on failure or lost reachability, `config save -y`."""

from __future__ import annotations

import json
import re

from gpunet.netdev.errors import DeviceRejectedError
from gpunet.netdev.jsonpatch import make_patch
from gpunet.netdev.strategies.base import CommitStrategy


class ConfigCheckpointRollback(CommitStrategy):
    name = "config_checkpoint_rollback"
    error_pattern = re.compile(r"^(Error|Failed|Usage:)|command not found", re.M)

    def read_running(self) -> str:
        return self.send("show runningconfiguration all").strip()

    def plan(self, intended: str, running: str) -> str:
        try:
            current = json.loads(running)
            wanted = json.loads(intended)
        except json.JSONDecodeError as error:
            raise DeviceRejectedError(self.switch, f"config_db is not JSON: {error}") from None
        self.ops = make_patch(current, wanted)
        return "\n".join(json.dumps(op, sort_keys=True) for op in self.ops)

    def apply(self) -> None:
        patch_file = f"/tmp/{self.options.tag}.json-patch"
        self.send(f"config checkpoint {self.options.tag}")
        self.write_file(patch_file, json.dumps(self.ops, indent=1, sort_keys=True))
        self.send(f"config apply-patch {patch_file}")
        self.send(f"rm -f {patch_file}", check=False)

    def write_file(self, path: str, text: str) -> None:
        """A here-document through the shell: every line is typed, the prompt ends it."""
        marker = "GPUNET_EOF"
        self.type_and_wait(f"cat > {path} <<'{marker}'\n{text}\n{marker}\n")

    def confirm(self) -> None:
        self.confirm_reachable()

    def save(self) -> None:
        self.send("config save -y")

    def undo(self) -> None:
        self.send(f"config rollback {self.options.tag}")

    def recover(self) -> None:
        self.conn = self.reconnect()
        # Harmless when the patch never ran: the checkpoint holds the config from before the push.
        self.send(f"config rollback {self.options.tag}", check=False)
