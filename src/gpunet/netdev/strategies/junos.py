"""Junos: `configure exclusive`, the remediation (`delete`, `set`) by `load set terminal`,
`commit confirmed`, then `commit` from a new session. Junos reports each bad line of a load by its number.

Exclusive, not private: Junos refuses `commit confirmed` in `configure private` ("You cannot issue
the commit confirmed command when you are in configure private mode", Junos CLI User Guide, "Using
the configure private Command",
http://www.juniper.net/techpubs/software/junos/junos85/swconfig85-cli/id-10668534.html), and the
exclusive lock keeps every other session from committing while the push runs; its uncommitted
changes go when the session leaves or dies ("Forms of the configure Command",
https://www.juniper.net/documentation/us/en/software/junos/cli/topics/topic-map/configure-command.html).
"""

from __future__ import annotations

import math
import re

from gpunet.netdev.errors import DeviceRejectedError, PushError
from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies.base import CommitStrategy, require_new_session

LOAD_ERROR = re.compile(r"^terminal:(\d+):\S*\s+(.*)$", re.M)


class CommitConfirmed(CommitStrategy):
    name = "commit_confirmed"
    error_pattern = re.compile(r"^(syntax error|error:|unknown command|missing argument)", re.M)
    self_rollback = True
    # A plain `commit` confirms a pending `commit confirmed`, and commits nothing once it is
    # confirmed (Juniper, NETCONF <commit> reference: "To commit the configuration immediately and
    # permanently after emitting the <confirmed/> tag, emit the empty <commit/> tag",
    # https://juniper.net/documentation/en_US/junos13.2/topics/reference/tag-summary/netconf-commit.html).
    reconfirm_safe = True

    def reason(self, output: str) -> str:
        """A failed commit names each refused statement under its `[edit ...]` path before the
        `error:` line: keep them, they say what to fix."""
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        error = next((n for n, line in enumerate(lines) if self.error_pattern.search(line)), None)
        if error is None:
            return ""
        first = next((n for n, line in enumerate(lines[:error]) if line.startswith("[edit")), error)
        return " ".join(lines[first : error + 1])

    def read_running(self) -> str:
        return self.send("show configuration | display set").strip()

    def apply(self, remediation: Remediation) -> None:
        self.lock()
        self.load_set("\n".join(remediation.commands))
        minutes = max(1, math.ceil(self.options.confirm_timeout_s / 60))
        # The clock starts before the commit is sent (cut during it, the commit may have landed) and
        # again once the OS answered, when its timer surely runs.
        self.start_rollback_clock(minutes * 60)
        self.send(f"commit confirmed {minutes}")
        self.start_rollback_clock(minutes * 60)
        self.send("exit configuration-mode", check=False)

    def lock(self) -> None:
        """`configure exclusive`; held by someone else, nothing was changed: `unchanged`, with who
        holds it (the line after Junos's error names the user, terminal and pid)."""
        output = self.send("configure exclusive", check=False)
        if self.error_pattern.search(output):
            said = " ".join(line.strip() for line in output.splitlines() if line.strip())
            reason = f"the switch refused 'configure exclusive' ({said}): the configuration is locked"
            raise PushError(self.switch, reason, "unchanged")

    def load_set(self, intended: str) -> None:
        """`load set terminal`; Junos names each bad line (`terminal:<n>:...`): errors pin to lines."""
        lines = [line.strip() for line in intended.splitlines() if line.strip()]
        self.conn.write_channel("load set terminal\n")
        self.conn.read_until_pattern(pattern=r"\[Type \^D at a new line to end input\]", read_timeout=10)
        output = self.type_and_wait("".join(f"{line}\n" for line in lines) + "\x04")
        for match in LOAD_ERROR.finditer(output):
            number = int(match[1])
            line = lines[number - 1] if 0 < number <= len(lines) else f"line {number}"
            raise DeviceRejectedError(self.switch, f"the switch rejected {line!r}: {match[2].strip()}")
        if "load complete" not in output:
            raise DeviceRejectedError(self.switch, "load set terminal did not complete")

    def confirm(self) -> None:
        session = require_new_session(self, self.rollback_state())
        try:
            self.send("configure exclusive", conn=session)
            self.send("commit", conn=session)
            self.send("exit configuration-mode", conn=session, check=False)
        finally:
            session.disconnect()

    def save(self) -> None:
        """A Junos commit is persistent; nothing to save."""

    def undo(self) -> None:
        self.send("rollback 0", check=False)
        self.send("exit configuration-mode", check=False)

    def recover(self) -> None:
        """An exclusive session's uncommitted changes go when it ends: the running config is untouched."""
