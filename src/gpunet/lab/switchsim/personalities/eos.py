"""Arista EOS personality: configuration sessions, diffs, `commit timer` with auto-rollback.

LAB EQUIPMENT, modelled on the EOS CLI as documented by Arista.
"""

from __future__ import annotations

import json
import re

from gpunet.lab.switchsim.configtree import ConfigEditor, ConfigTree
from gpunet.lab.switchsim.grammar_link import grammar_error_type
from gpunet.lab.switchsim.personalities.base import EditorPersonality, unified
from gpunet.lab.switchsim.personalities.lldp import COMMANDS as LLDP_SHOWS
from gpunet.lab.switchsim.personalities.lldp import lldp_answer
from gpunet.lab.switchsim.personalities.queue_counters import (
    eos_counters_queue,
    eos_counters_queue_detail,
    eos_counters_queue_json,
    eos_ecn_counters_queue,
    eos_ecn_counters_queue_json,
    queue_rows,
)
from gpunet.lab.switchsim.personalities.showpfc import (
    eos_pfc_counters,
    eos_pfc_counters_detail_json,
    eos_pfc_status,
    eos_pfc_watchdog_json,
)

INVALID = "% Invalid input"


def _seconds(hhmmss: str) -> int:
    hours, minutes, seconds = (int(part) for part in hhmmss.split(":"))
    return hours * 3600 + minutes * 60 + seconds


class EosPersonality(EditorPersonality):
    banner_text = "Arista Networks EOS shell\n[gpunet switch simulator: lab equipment, not a real EOS]\n"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.session: str | None = None  # name of the configuration session being edited

    @property
    def sessions(self) -> dict[str, ConfigTree]:
        # Sessions outlive the SSH connection that opened them, as on EOS.
        return self.switch.__dict__.setdefault("eos_sessions", {})

    def prompt(self) -> str:
        host = self.state.hostname
        if self.editor is None:
            return f"{host}#"
        prefix = f"config-s-{self.session[:6]}" if self.session else "config"
        mode = f"-{self.editor.stack[-1]}" if self.editor.stack else ""
        return f"{host}({prefix}{mode})#"

    def exec_command(self, command: str) -> str:
        state = self.state
        if command.startswith("terminal width"):
            return f"Width set to {command.split()[-1]} columns."
        if command == "terminal length 0":
            self.paging = False
            return "Pagination disabled."
        if command in ("configure terminal", "configure"):
            self.editor = ConfigEditor(
                self.switch.grammar, ConfigTree.from_lines(state.config, 3, self.switch.rules)
            )
            return ""
        if match := re.fullmatch(r"configure session (\S+) commit", command):
            if not self.switch.confirm():
                return "% No pending commit timer for this session"
            self.sessions.pop(match[1], None)
            self.switch.__dict__.pop("eos_timer_session", None)
            return ""
        if match := re.fullmatch(r"configure session (\S+) abort", command):
            return self.abort_session(match[1])
        if match := re.fullmatch(r"configure session (\S+)", command):
            tree = self.sessions.setdefault(
                match[1], ConfigTree.from_lines(state.config, 3, self.switch.rules)
            )
            self.session = match[1]
            self.editor = ConfigEditor(self.switch.grammar, tree)
            return ""
        if command == "show configuration sessions detail | json":
            return self.page(self.sessions_json())
        if command == "show running-config":
            return self.page(
                "! Command: show running-config\n! device: "
                + state.hostname
                + "\n!\n"
                + "\n".join(state.config)
                + "\n!\nend"
            )
        if command in ("write memory", "copy running-config startup-config"):
            state.startup = state.snapshot()
            state.record("save")
            self.switch.persist()
            return "Copy completed successfully."
        if command in LLDP_SHOWS["eos"]:
            return self.page(lldp_answer(self.switch, command))
        if command == "show priority-flow-control counters":
            return self.page(eos_pfc_counters(state))
        if command == "show priority-flow-control":
            return self.page(eos_pfc_status(state))
        if command == "show priority-flow-control counters watchdog | json":
            return self.page(eos_pfc_watchdog_json(state))
        if command == "show priority-flow-control counters detail | json":
            return self.page(eos_pfc_counters_detail_json(state))
        if command == "show interfaces counters queue detail | json":
            return self.page(eos_counters_queue_json(queue_rows(state)))
        if command == "show qos interfaces ecn counters queue | json":
            return self.page(eos_ecn_counters_queue_json(queue_rows(state)))
        if command == "show interfaces counters queue detail":
            return self.page(eos_counters_queue_detail(queue_rows(state)))
        if command == "show interfaces counters queue":
            return self.page(eos_counters_queue(queue_rows(state)))
        if command == "show qos interfaces ecn counters queue":
            return self.page(eos_ecn_counters_queue(queue_rows(state)))
        if command == "exit":
            self.closed = True
            return ""
        return INVALID

    def configure(self, command: str) -> str:
        assert self.editor is not None
        if command == "end" or (command == "exit" and not self.editor.stack):
            self.editor, self.session = None, None
            return ""
        if self.session is not None:  # session commands work in every sub-mode, as on EOS
            handled = self.session_command(command)
            if handled is not None:
                return handled
        if self.switch.rejects(command):
            return INVALID
        try:
            self.editor.feed(command)
        except grammar_error_type():
            return INVALID
        if self.session is None:
            self.switch.replace_config(self.editor.tree.to_lines(), "config-line")
        self.count_config_line()
        return ""

    def session_command(self, command: str) -> str | None:
        """Commands of a configuration session's top level; None for a configuration line."""
        assert self.editor is not None and self.session is not None
        session_lines = self.editor.tree.to_lines()
        if command == "show session-config diffs":
            return unified(
                self.state.config,
                session_lines,
                "system:/running-config",
                f"session:/{self.session}-session-config",
            )
        if command == "abort":
            self.sessions.pop(self.session, None)
            self.editor, self.session = None, None
            return ""
        if command == "commit" or (match := re.fullmatch(r"commit timer (\d+:\d\d:\d\d)", command)):
            previous = self.state.snapshot()
            self.switch.replace_config(session_lines, "commit", session=self.session)
            if command != "commit":
                self.switch.start_confirm_timer(_seconds(match[1]), previous)
                self.switch.__dict__["eos_timer_session"] = self.session  # whose commit the timer guards
            else:
                self.sessions.pop(self.session, None)
            self.editor, self.session = None, None
            return ""
        return None

    def sessions_json(self) -> str:
        """`show configuration sessions detail | json`: each session under "sessions" by its name,
        with its "state": "pendingCommitTimer" for the one whose `commit timer` runs, "pending" for
        one not committed (napalm-automation/napalm napalm/eos/eos.py: _get_pending_commits() looks
        for "pendingCommitTimer" in a session's state in this command's JSON, _lock() for
        "pending"; EOS's own `| json` scripts read `show configuration sessions | json` the same
        way). A committed or confirmed session is not listed here (EOS keeps a few "completed"
        ones; not modelled). The timer session's "commitBy" (seconds of uptime, per NAPALM) is
        left out: the simulator keeps no uptime."""
        switch = self.switch
        timer = switch.__dict__.get("eos_timer_session") if switch.state.pending_confirm else None
        sessions = {
            name: {"state": "pendingCommitTimer" if name == timer else "pending"} for name in self.sessions
        }
        return json.dumps({"sessions": sessions}, indent=2)

    def abort_session(self, name: str) -> str:
        """`configure session <name> abort` from exec mode. A session whose `commit timer` still
        runs is taken back at once, its previous config restored, and the session removed: "If
        while the commit timer is still running you decide to roll back, use configure session
        $SESSIONNAME abort ... to abort the session and roll back to the previous config" ("Config
        Session Timers - Arista EOS", https://advertisingemergency.net/?p=112; NAPALM's EOS driver
        rolls a pending commit-confirm back the same way, napalm-automation/napalm
        napalm/eos/eos.py rollback()). Any other session is discarded: "A session can be aborted
        or removed, thereby removing the session completely" (Arista EOS User Manual, Configure
        Session, https://www.arista.com/en/um-eos/eos-configure-session). An unknown name is not
        modelled from a source: nothing happens."""
        switch = self.switch
        if switch.state.pending_confirm and switch.__dict__.get("eos_timer_session") == name:
            switch.roll_back_pending("session-aborted-rolled-back")
            switch.__dict__.pop("eos_timer_session", None)
        self.sessions.pop(name, None)
        switch.persist()
        return ""
