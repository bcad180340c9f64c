"""SONiC: checkpoint, one atomic `config apply-patch` (the remediation: JSON Patch with removals),
then the PFC watchdog through `pfcwd` (gpunet.netdev.sonic_pfcwd says why), rollback to the
checkpoint on failure or lost reachability (PFC_WD put back by `pfcwd` first), `config save -y`,
and the checkpoint deleted (`config delete-checkpoint`) whatever the outcome.

Every `config` and `pfcwd` change runs under sudo: both refuse a non-root user (sonic-utilities
config/main.py, pfcwd/main.py); the image lets the sudo group do so without a password
(sonic-buildimage files/image_config/sudoers/sudoers).

`config delete-checkpoint` as sonic-mgmt's tests/common/gu_utils.py uses it; no maximum number of
GCU checkpoints is documented, and each push deletes its own.
"""

from __future__ import annotations

import contextlib
import json
import re
import time

from gpunet.netdev.errors import DeviceRejectedError, PushError
from gpunet.netdev.remediation import Remediation
from gpunet.netdev.sonic_pfcwd import PfcwdPlan
from gpunet.netdev.strategies.base import CommitStrategy, SessionLost


class ConfigCheckpointRollback(CommitStrategy):
    name = "config_checkpoint_rollback"
    # click's errors, and pfcwd's refusals and skipped ports (pfcwd/main.py)
    error_pattern = re.compile(
        r"^(Error|Failed|Usage:|SKIPPED:|Root privileges|unable to use polling)|command not found", re.M
    )

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.pfcwd = PfcwdPlan()  # the applied remediation's watchdog steps

    def read_running(self) -> str:
        return self.send("show runningconfiguration all").strip()

    @property
    def patch_file(self) -> str:
        return f"/tmp/{self.options.tag}.json-patch"

    def apply(self, remediation: Remediation) -> None:
        patch_file = self.patch_file
        self.send(f"sudo config checkpoint {self.options.tag}")
        if remediation.patch:
            self.write_file(patch_file, json.dumps(remediation.patch, indent=1, sort_keys=True))
            try:
                self.send(f"sudo config apply-patch {patch_file}")
            finally:
                with contextlib.suppress(PushError, SessionLost):
                    self.send(f"rm -f {patch_file}", check=False)
        self.pfcwd = remediation.pfcwd
        for command in remediation.pfcwd.apply:
            self.send(command)

    def write_file(self, path: str, text: str) -> None:
        """A here-document through the shell: every line is typed, the prompt ends it."""
        marker = "GPUNET_EOF"
        self.type_and_wait(f"cat > {path} <<'{marker}'\n{text}\n{marker}\n")

    def confirm(self) -> None:
        self.confirm_reachable()

    def save(self) -> None:
        try:
            for command in self.pfcwd.before_save:
                self.send(command)
        except DeviceRejectedError as error:
            self.undo()  # the refused interval changed nothing: the rollback still may run
            reason = f"{error.reason}; previous config restored"
            raise DeviceRejectedError(self.switch, reason, "rolled back") from None
        self.send("sudo config save -y")
        self.discard_checkpoint()

    def undo(self) -> None:
        self.restore_pfcwd()
        self.send(f"sudo config rollback {self.options.tag}")
        self.discard_checkpoint()

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.wait_for_lost_patch()
        # The old session may have died before its own `rm -f` of the patch file.
        self.send(f"rm -f {self.patch_file}", check=False)
        # Harmless when the patch never ran: the checkpoint holds the config from before the push.
        self.restore_pfcwd(check=False)
        self.send(f"sudo config rollback {self.options.tag}", check=False)
        self.discard_checkpoint()

    def wait_for_lost_patch(self) -> None:
        """A lost `apply-patch` may still be running: a rollback now would race it, and GCU takes no
        lock of its own (sonic-utilities 691b1bb generic_config_updater/generic_updater.py: ConfigLock
        is a TODO). Wait until no process runs this push's patch file (`pgrep -f`, procps)."""
        deadline = time.monotonic() + max(30.0, self.options.command_timeout_s * 3)
        while self.send(f"pgrep -f 'config apply-patch {self.patch_file}'", check=False).strip():
            if time.monotonic() > deadline:
                reason = "the lost apply-patch is still running: nothing restored, read the switch"
                raise PushError(self.switch, reason, "unknown: read the switch")
            time.sleep(1)

    def restore_pfcwd(self, *, check: bool = True) -> None:
        """PFC_WD back to the checkpoint's, so the rollback's diff leaves PFC_WD alone."""
        for command in self.pfcwd.undo:
            self.send(command, check=check)

    def discard_checkpoint(self) -> None:
        with contextlib.suppress(PushError, SessionLost):
            self.send(f"sudo config delete-checkpoint {self.options.tag}", check=False)
