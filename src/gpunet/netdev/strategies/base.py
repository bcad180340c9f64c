"""One interface for every OS's safe commit: read, diff/stage, commit, confirm, save, roll back."""

from __future__ import annotations

import contextlib
import re
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import paramiko
from netmiko import BaseConnection
from netmiko.exceptions import ReadException

from gpunet.netdev.errors import DeviceRejectedError, PushError, UnreachableError
from gpunet.netdev.remediation import Remediation


class SessionLost(Exception):
    """The SSH session died while the push was using it."""


def new_tag() -> str:
    """A name for one push's session, checkpoint and patch file: its UTC second and 32 random bits,
    so two pushes in the same second never share one (an EOS session or NX-OS checkpoint name
    takes letters, digits and hyphens)."""
    return f"gpunet-{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"


@dataclass
class PushOptions:
    confirm_timeout_s: int = 300  # commit-confirm window on EOS/Cumulus (Junos rounds up to minutes)
    command_timeout_s: float = 60.0
    tag: str = ""  # empty: each push takes a new_tag() of its own


class CommitStrategy(ABC):
    """Base class: subclasses set `error_pattern` and implement the OS's steps."""

    name = ""
    error_pattern = re.compile(r"^%", re.M)
    # True where the OS rolls back by itself unless confirmed (commit confirmed / commit timer).
    self_rollback = False
    # True where sending the confirm a second time is harmless (a lost reply is settled by resending).
    reconfirm_safe = False

    def __init__(self, switch: str, connect: Callable[[], BaseConnection], options: PushOptions) -> None:
        self.switch = switch
        self.connect = connect
        self.options = options
        self.conn = connect()
        # When an unconfirmed commit rolls itself back (self_rollback OSes, set once it is live).
        self.rollback_deadline: datetime | None = None

    def start_rollback_clock(self, seconds: int) -> None:
        """The OS's own timer started with the commit just made: it rolls back `seconds` from now."""
        self.rollback_deadline = datetime.now(UTC) + timedelta(seconds=seconds)

    def rollback_state(self) -> str:
        """What an unconfirmed commit leaves: a state naming the time the OS rolls it back."""
        if self.rollback_deadline is None:
            return "rolling back by itself when its confirm timer expires"
        return f"rolling back by itself at {self.rollback_deadline:%H:%M:%S} UTC"

    def take_back(self) -> bool:
        """Over a new session: take a live, unconfirmed commit back at once, where the OS has a
        command for that (EOS). False where it has none: its own timer takes the commit back."""
        return False

    def confirm_pending(self) -> bool | None:
        """Over a new session: whether the OS lists this push's commit as still waiting for its
        confirm (True) or not (False: confirmed, or taken back); None where the OS is not asked
        (no such command here) or its answer cannot be read."""
        return None

    def startup_saved(self) -> bool | None:
        """Over a new session: whether the startup config holds what is running now (True), or
        differs from it (False); None where the OS is not asked (no such read here) or its answer
        cannot be read. Read where a save may have happened without the push's own save (NVUE's
        auto save)."""
        return None

    def discard_checkpoint(self) -> None:  # noqa: B027 - most OSes keep no checkpoint
        """Remove this push's checkpoint, where the OS keeps one (NX-OS, SONiC); else nothing."""

    # Steps, in the order the push runs them.
    @abstractmethod
    def read_running(self) -> str: ...

    @abstractmethod
    def apply(self, remediation: Remediation) -> None:
        """Stage the remediation's commands and make them live (with the OS's confirm timer)."""

    @abstractmethod
    def confirm(self) -> None:
        """Over a NEW session: confirm the commit, or prove the switch is still reachable."""

    @abstractmethod
    def save(self) -> None: ...

    @abstractmethod
    def undo(self) -> None:
        """After a rejected line, on the session that is still open: restore the previous config."""

    @abstractmethod
    def recover(self) -> None:
        """After the session died mid-push, on a new session: restore the previous config."""

    # Helpers.
    def prompt_pattern(self) -> str:
        return rf"{re.escape(self.conn.base_prompt[:16])}[^\n]*[#>$]\s*$"

    def send(
        self,
        command: str,
        *,
        check: bool = True,
        conn: BaseConnection | None = None,
        extra_wait_s: float = 0.0,
    ) -> str:
        """Run one command and wait for the prompt; raise DeviceRejectedError on the OS's error text.
        `extra_wait_s`: how much longer than command_timeout_s this command may take by design."""
        session = conn or self.conn
        try:
            output = session.send_command(
                command,
                expect_string=self.prompt_pattern(),
                read_timeout=self.options.command_timeout_s + extra_wait_s,
                strip_prompt=True,
                strip_command=True,
            )
        except (OSError, EOFError, ReadException, paramiko.SSHException) as error:
            raise SessionLost(f"session lost during {command!r}: {type(error).__name__}") from None
        if check and self.error_pattern.search(output):
            raise DeviceRejectedError(self.switch, f"the switch rejected {command!r}: {self.reason(output)}")
        return output

    def reason(self, output: str) -> str:
        """What the operator needs from a rejection: the OS's error line."""
        return next((line.strip() for line in output.splitlines() if self.error_pattern.search(line)), "")

    def send_lines(self, lines: list[str]) -> None:
        """Type configuration lines in one go, then check each line's own output for the OS's error.

        The OS answers every line with its output and a prompt, so the reply splits back into one
        segment per line: an error is pinned to the line that caused it. One round trip instead
        of one per line keeps a 200-line push fast.
        """
        lines = [line.strip() for line in lines if line.strip()]
        if not lines:
            return
        prompt = re.compile(self.prompt_pattern().removesuffix(r"\s*$"), re.M)
        buffer = self.type_and_wait("".join(f"{line}\n" for line in lines), prompts=len(lines))
        segments = prompt.split(buffer)[: len(lines)]  # each line's echo and output end at its prompt
        for line, segment in zip(lines, segments, strict=False):
            if self.error_pattern.search(segment):
                reason = self.reason(segment)
                raise DeviceRejectedError(self.switch, f"the switch rejected {line!r}: {reason}")

    def type_and_wait(self, text: str, prompts: int = 1) -> str:
        """Write `text`, read until `prompts` prompts came back and the output ends at one.

        Notices a closed channel at once (netmiko's own reads would wait for their timeout)."""
        prompt = re.compile(self.prompt_pattern().removesuffix(r"\s*$"), re.M)
        deadline = time.monotonic() + self.options.command_timeout_s + prompts * 0.05
        buffer = ""
        try:
            self.conn.write_channel(text)
            while len(prompt.findall(buffer)) < prompts or not re.search(self.prompt_pattern(), buffer):
                if not self.conn.remote_conn.get_transport().is_active() or self.conn.remote_conn.closed:
                    raise EOFError("channel closed")
                if time.monotonic() > deadline:
                    raise ReadException("no prompt came back")
                chunk = self.conn.read_channel()
                if not chunk:
                    time.sleep(0.005)
                buffer += chunk
        except (OSError, EOFError, ReadException, paramiko.SSHException, AttributeError) as error:
            raise SessionLost(f"session lost while sending configuration: {type(error).__name__}") from None
        return buffer

    def confirm_reachable(self) -> None:
        """For OSes without a commit timer: prove a new session works, else undo via the open one."""
        try:
            probe = require_new_session(self, "rolled back")
        except UnreachableError as unreachable:
            try:
                self.undo()
            except (PushError, SessionLost) as error:
                reason = getattr(error, "reason", error)
                raise UnreachableError(
                    self.switch, f"{unreachable.reason}; rollback failed too ({reason})", "unknown"
                ) from None
            raise
        probe.disconnect()

    def reconnect(self) -> BaseConnection:
        return self.connect()

    def ask_on_new_session(self, command: str) -> str | None:
        """One read-only command's output over a new session; None where the switch cannot be
        reached or the command fails, so the caller keeps its safe answer."""
        try:
            session = self.reconnect()
        except PushError:
            return None
        try:
            return self.send(command, conn=session)
        except (PushError, SessionLost):
            return None
        finally:
            with contextlib.suppress(Exception):
                session.disconnect()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead session must not hide the outcome
            self.conn.disconnect()


def require_new_session(strategy: CommitStrategy, state_if_unreachable: str) -> BaseConnection:
    try:
        return strategy.reconnect()
    except PushError as error:
        raise UnreachableError(
            strategy.switch,
            f"not reachable over a new SSH session after the commit ({error.reason})",
            state_if_unreachable,
        ) from None
