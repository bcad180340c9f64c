"""EOS: configuration session with the remediation, `commit timer`, confirm over a new session, save."""

from __future__ import annotations

import json
import re

from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies.base import CommitStrategy, require_new_session


def hhmmss(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class SessionCommitTimer(CommitStrategy):
    name = "session_commit_timer"
    error_pattern = re.compile(r"^% ", re.M)
    self_rollback = True

    def read_running(self) -> str:
        output = self.send("show running-config")
        return "\n".join(
            line for line in output.splitlines() if line.strip() and not line.startswith(("!", "end"))
        )

    def apply(self, remediation: Remediation) -> None:
        self.send(f"configure session {self.options.tag}")
        self.send_lines(remediation.commands)
        # The clock starts before the commit is sent (cut during it, the commit may have landed) and
        # again once the OS answered, when its timer surely runs.
        self.start_rollback_clock(self.options.confirm_timeout_s)
        self.send(f"commit timer {hhmmss(self.options.confirm_timeout_s)}")
        self.start_rollback_clock(self.options.confirm_timeout_s)

    def confirm(self) -> None:
        session = require_new_session(self, self.rollback_state())
        try:
            self.send(f"configure session {self.options.tag} commit", conn=session)
        finally:
            session.disconnect()

    def confirm_pending(self) -> bool | None:
        # `show configuration sessions detail` lists each configuration session by name with its
        # state; one whose `commit timer` still runs is in state "pendingCommitTimer": NAPALM's EOS
        # driver (napalm-automation/napalm napalm/eos/eos.py, _get_pending_commits()) reads exactly
        # that from this command's JSON, and its confirm_commit() sends `configure session <name>
        # commit` only while the session is listed so; "Config Session Timers - Arista EOS"
        # (https://advertisingemergency.net/?p=112, a practitioner's page): `show configuration
        # session detail` shows the sessions and the time left on a commit. No Arista page I could
        # read shows this output or says what a second confirm of a confirmed session does, so the
        # push sends one only while the session is listed pending, and believes the running
        # config (read back) for the rest. `| json` asks EOS for the machine-readable form.
        output = self.ask_on_new_session("show configuration sessions detail | json")
        if output is None:
            return None
        try:
            sessions = json.loads(output)["sessions"]
        except (ValueError, KeyError, TypeError):
            return None
        if not isinstance(sessions, dict):
            return None
        ours = sessions.get(self.options.tag, {})
        if not isinstance(ours, dict):
            return None
        return "pendingCommitTimer" in str(ours.get("state", ""))

    def take_back(self) -> bool:
        # A session whose commit timer still runs is aborted from exec mode, which rolls back to
        # the previous config and removes the session at once ("Config Session Timers - Arista
        # EOS", https://advertisingemergency.net/?p=112; NAPALM's EOS rollback() does the same);
        # an aborted session is removed completely (Arista EOS User Manual, Configure Session,
        # https://www.arista.com/en/um-eos/eos-configure-session). The push reads back to learn
        # whether it did.
        session = require_new_session(self, self.rollback_state())
        try:
            self.send(f"configure session {self.options.tag} abort", conn=session)
        finally:
            session.disconnect()
        return True

    def save(self) -> None:
        self.send("write memory")

    def undo(self) -> None:
        self.send("abort", check=False)

    def recover(self) -> None:
        # The session's uncommitted lines survive the SSH session on EOS: remove them.
        self.conn = self.reconnect()
        self.send(f"configure session {self.options.tag}", check=False)
        self.send("abort", check=False)
