"""One simulated switch: state, options, grammar, timers and fault injection.

LAB EQUIPMENT: stands in for a real switch OS, which cannot run on gpunet's build machines.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpunet.lab.switchsim.state import SwitchState


@dataclass
class SimOptions:
    """How one simulator behaves; every fault is off by default."""

    username: str = "admin"
    password: str = "admin"
    reject: str | None = None  # config lines matching this get the OS's error
    drop_after: int | None = None  # drop the SSH session after this many config lines (once)
    # drop the first session that sends a command matching this, once the switch has carried it
    # out: the command landed, its reply is lost (a commit or save whose answer never came)
    drop_at: str | None = None
    latency_ms: int = 0  # delay before every reply
    fail_login: bool = False  # refuse every login
    no_reconnect: bool = False  # after a config change, new logins hang (a cut management path)
    minute_seconds: float = 60.0  # length of a Junos commit-confirmed "minute" (short in tests)
    page_lines: int = 24  # output is cut here unless the client turned paging off
    authorized_keys: str | None = None  # OpenSSH authorized_keys text: these keys may log in too
    refuse: str | None = None  # any typed command matching this (a confirm, a save) gets REFUSALS' text
    # hold the first command matching this for `slow_s` before carrying it out (once): a client that
    # gives up waiting and moves on races a command the switch still carries out
    slow_at: str | None = None
    slow_s: float = 0.0
    cut_while_slow: bool = False  # cut the session as the slow command starts; it is carried out still
    # cut the first session that runs a command matching this half-way through its output (once)
    cut_output_at: str | None = None
    # LLDP as a miswired rack shows it (personalities/lldp.py): "PORT_A,PORT_B" exchanges the two
    # ports' neighbours (two cables swapped); each "PORT=DEVICE:PORT" cables PORT elsewhere, "PORT="
    # to nothing (a missing link).
    lldp_swap: str | None = None
    lldp_neighbour: list[str] = field(default_factory=list)


# How each OS answers a command it cannot carry out right now (fault injection for `refuse`): the
# forms the push must read as a refusal, each in its OS's error form (NX-OS/EOS `% `, NVUE and
# click `Error:`, Junos `error:`). UNSOURCED: none was captured from a device or found in a vendor
# source, except where noted.
# - junos: the holder line has the form Juniper's CLI User Guide shows for configuration users
#   ("Forms of the configure Command", https://www.juniper.net/documentation/us/en/software/junos/
#   cli/topics/topic-map/configure-command.html); the `error: ... locked by:` line is assumed.
# - sonic: `config save` takes no lock at all (sonic-utilities 691b1bb config/main.py: only
#   `config reload` and `load_minigraph` take /etc/sonic/reload.lock, utilities_common/flock.py,
#   which prints "Failed to acquire lock on <file>"; GCU's ConfigLock is a TODO): the text stands
#   for any refused save.
# - nxos, eos, cumulus: assumed.
REFUSALS = {
    "nxos": "% Permission denied (bootflash full)",
    "eos": "% Error copying system:/running-config to flash:/startup-config (No space left on device)",
    "cumulus": "Error: Config apply is in progress. Try again later.",
    "sonic": "Error: config_db is locked by another config session",
    "junos": "error: configuration database locked by:\n  admin terminal p1 (pid 4242) on since 2026-12-03",
}


class DropSession(Exception):
    """Raised by a personality to cut the SSH connection (fault injection)."""


class SimulatedSwitch:
    def __init__(self, state: SwitchState, options: SimOptions, state_file: Path | None = None) -> None:
        self.state = state
        self.options = options
        self.state_file = state_file
        self.reject = re.compile(options.reject) if options.reject else None
        self.refuse = re.compile(options.refuse) if options.refuse else None
        self.drop_armed = options.drop_after is not None
        self.drop_at = re.compile(options.drop_at) if options.drop_at else None
        self.slow_at = re.compile(options.slow_at) if options.slow_at else None
        self.cut_output_at = re.compile(options.cut_output_at) if options.cut_output_at else None
        self.in_flight: list[str] = []  # commands being carried out now (what `pgrep -f` sees)
        self.changed_once = False  # arms `no_reconnect`
        self.port = 0
        self._timer: asyncio.TimerHandle | None = None
        self._rollback_target: Any = None
        self._saved_mtime = 0
        from gpunet.lab.switchsim.grammar_link import load_grammar
        from gpunet.lab.switchsim.storage import storage_rules

        self.grammar = load_grammar(state.platform)
        # how the OS stores a statement typed again (SONiC: a document, no such rules)
        self.rules = storage_rules(state.platform) if state.platform != "sonic" else None

    @property
    def platform(self) -> str:
        return self.state.platform

    def persist(self) -> None:
        if self.state_file is not None:
            self.state.save(self.state_file)
            self._saved_mtime = self.state_file.stat().st_mtime_ns

    def refresh_counters(self) -> None:
        """Take `counters` from the state file when someone else edited it (tests drive counters
        of a simulator running in another process this way)."""
        if self.state_file is None or not self.state_file.exists():
            return
        mtime = self.state_file.stat().st_mtime_ns
        if mtime == self._saved_mtime:
            return
        self._saved_mtime = mtime
        try:
            counters = json.loads(self.state_file.read_text()).get("counters")
        except (OSError, ValueError):
            return  # a half-written file: the next command tries again
        if isinstance(counters, dict):
            self.state.counters.update(counters)

    def replace_config(self, config: Any, event: str, **details: Any) -> None:
        self.state.config = config
        self.changed_once = True
        self.state.record(event, **details)
        self.persist()

    def refusal(self, line: str) -> str | None:
        """The OS's refusal when fault injection refuses this command, else None."""
        if self.refuse is None or not self.refuse.search(line.strip()):
            return None
        self.state.record("refused", command=line.strip())
        self.persist()
        return REFUSALS[self.platform]

    def rejects(self, line: str) -> bool:
        """Fault injection, or a statement the switch's release does not have yet."""
        if self.reject is not None and self.reject.search(line) is not None:
            return True
        return bool(self.newer_than_release(line))

    def newer_than_release(self, text: str) -> list[str]:
        """A statement (or, on SONiC, a config_db table) first released after the switch's OS
        version (the grammar's `since`, from the vendors' introduced-in notes): the OS does not
        know it. No version: every statement is known. Returns those statements."""
        if not self.state.os_version:
            return []
        from gpunet.grammar.versions import parse_version

        version = parse_version(self.platform, self.state.os_version)
        try:
            return [statement for statement, _since, _source in self.grammar.newer_than(text, version)]
        except (ValueError, TypeError):
            return []  # not a statement the grammar reads on its own (a sub-mode line)

    def count_config_line(self, lines_in_session: int) -> None:
        """Fault injection: drop the first session that reaches `drop_after` config lines."""
        if (
            self.drop_armed
            and self.options.drop_after is not None
            and lines_in_session >= self.options.drop_after
        ):
            self.drop_armed = False
            self.state.record("session-dropped", after_lines=lines_in_session)
            self.persist()
            raise DropSession

    def slow_delay(self, line: str) -> float:
        """Fault injection: how long to hold this command before carrying it out (`slow_at`, once)."""
        if self.slow_at is None or not self.slow_at.search(line.strip()):
            return 0.0
        self.slow_at = None
        self.state.record("slow", command=line.strip(), seconds=self.options.slow_s)
        return self.options.slow_s

    def files_read_by(self, line: str) -> dict[str, str]:
        """The simulated files a command names: a slow command has read them when it starts, so a
        file removed while it runs (the patch file a new session deletes) is still its input."""
        files = self.__dict__.get("sonic_files", {})
        return {path: text for path, text in files.items() if path in line.split()}

    def cut_output(self, line: str, output: str) -> str | None:
        """Fault injection: the first half of this command's output, when the session is to be cut
        in the middle of it (`cut_output_at`, once); else None."""
        if self.cut_output_at is None or not self.cut_output_at.search(line.strip()):
            return None
        self.cut_output_at = None
        self.state.record("session-dropped", mid_output=line.strip())
        self.persist()
        return output[: len(output) // 2]

    def drop_after_command(self, line: str) -> None:
        """Fault injection: cut the session once a command matching `drop_at` has been carried out."""
        if self.drop_at is not None and self.drop_at.search(line.strip()):
            self.drop_at = None
            self.state.record("session-dropped", at=line.strip())
            self.persist()
            raise DropSession

    # Commit-confirm: the previous config comes back unless confirmed before the timer fires.
    def start_confirm_timer(self, seconds: float, previous: Any) -> None:
        self.cancel_confirm_timer()
        self._rollback_target = previous
        self.state.pending_confirm = True
        self._timer = asyncio.get_running_loop().call_later(seconds, self._expire)
        self.persist()

    def confirm(self) -> bool:
        if not self.state.pending_confirm:
            return False
        self.cancel_confirm_timer()
        self.state.pending_confirm = False
        self.state.record("confirmed")
        self.persist()
        return True

    def cancel_confirm_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def roll_back_pending(self, event: str) -> None:
        self.cancel_confirm_timer()
        self.state.pending_confirm = False
        self.replace_config(self._rollback_target, event)

    def _expire(self) -> None:
        self._timer = None
        if self.state.pending_confirm:
            self.roll_back_pending("confirm-expired-rolled-back")
