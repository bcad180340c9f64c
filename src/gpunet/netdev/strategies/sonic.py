"""SONiC: checkpoint, each cage whose breakout mode changes split by `config interface breakout`
and given the SKU's QoS by `config qos reload --ports` (gpunet.netdev.sonic_breakout says why),
one atomic `config apply-patch` (the remediation: JSON Patch with removals, planned again after
a breakout), then the PFC watchdog through `pfcwd` (gpunet.netdev.sonic_pfcwd says why),
rollback to the checkpoint on failure or lost reachability (PFC_WD put back by `pfcwd` first,
each split cage broken back into its old mode next), `config save -y`, and the checkpoint
deleted (`config delete-checkpoint`) whatever the outcome.

Every `config` and `pfcwd` change runs under sudo: both refuse a non-root user (sonic-utilities
config/main.py, pfcwd/main.py); the image lets the sudo group do so without a password
(sonic-buildimage files/image_config/sudoers/sudoers).

`config delete-checkpoint` as sonic-mgmt's tests/common/gu_utils.py uses it; no maximum number of
GCU checkpoints is documented, and each push deletes its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import time

from gpunet.netdev import sonic_breakout
from gpunet.netdev.errors import DeviceRejectedError, PushError
from gpunet.netdev.remediation import Remediation, remediate
from gpunet.netdev.sonic_breakout import BreakoutPlan
from gpunet.netdev.sonic_pfcwd import PfcwdPlan
from gpunet.netdev.strategies.base import CommitStrategy, SessionLost


class ConfigCheckpointRollback(CommitStrategy):
    name = "config_checkpoint_rollback"
    # click's errors, pfcwd's refusals and skipped ports (pfcwd/main.py), and `config interface
    # breakout`'s (config/main.py: "[ERROR] ...", click.Abort's "Aborted!", "Dependencies Exist",
    # an uncaught BreakoutCfg RuntimeError's traceback)
    error_pattern = re.compile(
        r"^(Error|Failed|Usage:|SKIPPED:|Root privileges|unable to use polling|\[ERROR\]|Aborted!"
        r"|Dependencies Exist|Traceback)|command not found",
        re.M,
    )

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.pfcwd = PfcwdPlan()  # the applied remediation's watchdog steps
        self.breakout = BreakoutPlan()  # the cages this push splits (the undo breaks them back)

    def reason(self, output: str) -> str:
        """click's own error line ("Error: ...", breakout's "[ERROR] ...") rather than the usage
        line before it; else the first line the error pattern finds."""
        wanted = re.compile(r"^(Error|\[ERROR\]|Failed)")
        lines = [line.strip() for line in output.splitlines()]
        return next((line for line in lines if wanted.match(line)), "") or super().reason(output)

    def read_running(self) -> str:
        return self.send("show runningconfiguration all").strip()

    @property
    def patch_file(self) -> str:
        return f"/tmp/{self.options.tag}.json-patch"

    def apply(self, remediation: Remediation) -> None:
        patch_file = self.patch_file
        before = self.refuse_lossy_breakout(remediation.breakout) if remediation.breakout.cages else {}
        self.send(f"sudo config checkpoint {self.options.tag}")
        if remediation.breakout.cages:
            remediation = self.break_out(remediation.breakout, before)
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

    def running_document(self) -> dict:  # type: ignore[type-arg]
        return json.loads(self.read_running())

    def refuse_lossy_breakout(self, plan: BreakoutPlan) -> dict:  # type: ignore[type-arg]
        """Before any change: a cage whose ports carry config the breakout would delete for good.
        Returns the running config it read."""
        running = self.running_document()
        lost = sonic_breakout.foreign_references(running, plan)
        if lost:
            cages = ", ".join(cage.cage for cage in plan.cages)
            shown = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
            reason = (
                f"breaking out {cages} would delete {shown} (config interface breakout -f deletes what "
                "refers to the cage's ports): move or remove it first"
            )
            raise PushError(self.switch, reason, "unchanged")
        return running

    def break_out(self, plan: BreakoutPlan, before: dict) -> Remediation:  # type: ignore[type-arg]
        """Split the cages, give their new ports the SKU's QoS and the old port's other PORT fields,
        and plan the patch again on what the switch now holds (`before`: its config until now)."""
        self.breakout = plan  # before the first command: a lost reply is undone too
        for command in plan.apply:
            self.send(command, extra_wait_s=sonic_breakout.ASIC_DB_WAIT_S)
        ports = sonic_breakout.new_ports(before, self.running_document())
        if ports:
            self.send(sonic_breakout.qos_reload(ports))
        after = self.running_document()
        replanned = remediate("sonic", json.dumps(after), json.dumps(plan.intended))
        carry = sonic_breakout.carry_operations(sonic_breakout.carried(before, after, ports), plan.intended)
        return dataclasses.replace(replanned, patch=replanned.patch + carry)

    def break_back(self) -> None:
        """Each cage this push split, back in its old mode, with the SKU's QoS on its ports again and
        the watchdog they had (what `config rollback` cannot write); the rollback does the rest."""
        if not self.breakout.cages:
            return
        before = self.running_document()
        commands = sonic_breakout.reverse(self.breakout, before)
        for command in commands:
            self.send(command, extra_wait_s=sonic_breakout.ASIC_DB_WAIT_S)
        if not commands:
            return
        ports = sonic_breakout.new_ports(before, self.running_document())
        if ports:
            self.send(sonic_breakout.qos_reload(ports))
        for command in sonic_breakout.watchdog_restore(self.breakout):
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
        self.break_back()
        self.send(f"sudo config rollback {self.options.tag}")
        self.discard_checkpoint()

    def recover(self) -> None:
        self.conn = self.reconnect()
        self.wait_for_lost_patch()
        # The old session may have died before its own `rm -f` of the patch file.
        self.send(f"rm -f {self.patch_file}", check=False)
        # Harmless when the patch never ran: the checkpoint holds the config from before the push.
        self.restore_pfcwd(check=False)
        self.break_back()  # a failure here leaves the switch unknown: the rollback would not fit it
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
