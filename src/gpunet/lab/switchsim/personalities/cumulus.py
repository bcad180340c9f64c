"""NVIDIA Cumulus Linux (NVUE) personality: `nv set` into a pending revision, apply with confirm.

LAB EQUIPMENT, modelled on the Cumulus Linux 5.x NVUE CLI as documented by NVIDIA.

Auto save, per release (NVIDIA's docs, CumulusNetworks/docs via its mirror plumbis/cl-docs c31961d4):
`nv config apply` also writes the startup configuration (/etc/nvue.d/startup.yaml) where auto save
is on; it is on by default from 5.9 and off by default in 5.4 to 5.8, where the option came in
(nvue-reference/Show-Commands/System-Config.md, `nv show system config auto-save`;
cumulus-linux-59/Whats-New/_index.md; cumulus-linux-59/.../NVUE-CLI.md "Auto Save"). NVIDIA does not
say when an apply with `--confirm` is saved (at the apply, or once confirmed) nor whether the
confirm timer's rollback puts the startup configuration back: the simulator saves it once confirmed
unless a test sets `nvue_autosave_at = "apply"` on the switch, which saves at the apply and leaves
the saved intent in place when the timer rolls the running config back (the worst case for a push).
A test may also set `nvue_autosave` (True/False) as `nv set system config auto-save ...` would.
"""

from __future__ import annotations

import re

from gpunet.lab.switchsim.flatstore import set_line, unset_path
from gpunet.lab.switchsim.grammar_link import grammar_error_type
from gpunet.lab.switchsim.personalities import cumulus_incast
from gpunet.lab.switchsim.personalities.base import Personality
from gpunet.lab.switchsim.personalities.lldp import COMMANDS as LLDP_SHOWS
from gpunet.lab.switchsim.personalities.lldp import lldp_answer
from gpunet.lab.switchsim.personalities.showpfc import (
    cumulus_pfc_stats,
    cumulus_qos_roce,
    cumulus_qos_roce_json,
)

AUTOSAVE_SINCE = (5, 9)  # auto save on by default from Cumulus Linux 5.9 (see the module's note)


def _duration(text: str) -> float:
    """NVUE durations: 30, 30s, 5m, 1h."""
    match = re.fullmatch(r"(\d+)([smh]?)", text)
    if not match:
        raise ValueError(text)
    return int(match[1]) * {"": 1, "s": 1, "m": 60, "h": 3600}[match[2]]


class CumulusPersonality(Personality):
    banner_text = (
        "Welcome to NVIDIA Cumulus (R) Linux (R)\n"
        "[gpunet switch simulator: lab equipment, not a real Cumulus Linux]\n"
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.awaiting_yes: str | None = None  # an apply waiting for its "Are you sure?" answer

    @property
    def pending(self) -> list[str] | None:
        return self.switch.__dict__.get("nvue_pending")

    @pending.setter
    def pending(self, lines: list[str] | None) -> None:
        self.switch.__dict__["nvue_pending"] = lines

    @property
    def autosave(self) -> bool:
        """Whether `nv config apply` writes the startup configuration on this switch."""
        forced = self.switch.__dict__.get("nvue_autosave")
        if forced is not None:
            return bool(forced)
        if not self.state.os_version:
            return False  # no release given: as before auto save was modelled
        from gpunet.grammar.versions import parse_version

        return parse_version("cumulus", self.state.os_version)[:2] >= AUTOSAVE_SINCE

    def save_startup(self, event: str) -> None:
        self.state.startup = self.state.snapshot()
        self.state.record(event)
        self.switch.persist()

    def revision(self, name: str) -> list[str] | None:
        """A revision `nv config diff` names: applied (running) or startup."""
        if name == "applied":
            return list(self.state.config)
        if name == "startup":
            return list(self.state.startup)
        return None

    def prompt(self) -> str:
        if self.awaiting_yes is not None:
            return "Are you sure? [y/N] "
        return f"{self.username}@{self.state.hostname}:mgmt:~$ "

    def handle(self, line: str) -> str:
        command = line.strip()
        if self.awaiting_yes is not None:
            apply_command, self.awaiting_yes = self.awaiting_yes, None
            return self.apply(apply_command) if command.lower() in ("y", "yes") else "Aborted"
        if not command:
            return ""
        if command.startswith(("nv set ", "nv unset ")):
            return self.stage(command)
        if command in ("nv config diff", "nv config diff -o commands"):
            pending = self.pending
            if pending is None:
                return ""
            unset = [f"nv unset {line[7:]}" for line in self.state.config if line not in pending]
            return "\n".join([*unset, *(line for line in pending if line not in self.state.config)])
        if match := re.fullmatch(r"nv config diff (\S+) (\S+)(?: -o commands)?", command):
            base, target = self.revision(match[1]), self.revision(match[2])
            if base is None or target is None:
                return f"Error: unknown revision {match[1] if base is None else match[2]!r}"
            unset = [f"nv unset {line[7:]}" for line in base if line not in target]
            return "\n".join([*unset, *(line for line in target if line not in base)])
        if command.startswith("nv config apply"):
            if " -y" in command or "--assume-yes" in command or "--confirm-status" in command:
                return self.apply(command)
            self.awaiting_yes = command
            return "Warning: The following files will be applied to the running configuration."
        if command == "nv config detach":
            self.pending = None
            return ""
        if command == "nv config save":
            self.save_startup("save")
            return "saved"
        if command == "nv config show -o commands":
            return "\n".join(self.state.config)
        if command in LLDP_SHOWS["cumulus"]:
            return lldp_answer(self.switch, command)
        if command == "nv show qos roce":
            return cumulus_qos_roce(self.state)
        if command in ("nv show qos roce -o json", "nv show qos roce --output json"):
            return cumulus_qos_roce_json(self.state)
        if match := re.fullmatch(r"nv show interface (\S+) counters qos pfc-stats", command):
            if match[1] not in self.state.counters:
                return f"Error: interface {match[1]} does not exist"
            return cumulus_pfc_stats(self.state, match[1])
        if (counters := cumulus_incast.answer(self.state, command)) is not None:
            return counters
        if command == "exit":
            self.closed = True
            return ""
        word = command.split()[0]
        if word == "nv":
            sub = command.split()[1] if len(command.split()) > 1 else ""
            return f"Usage: nv [OPTIONS] COMMAND [ARGS]...\nError: No such command '{sub}'."
        return f"-bash: {word}: command not found"

    def stage(self, command: str) -> str:
        if self.switch.rejects(command):
            return f"Error: Invalid config [{command}]"
        try:
            self.switch.grammar.accept((), command)
        except grammar_error_type() as error:
            return f"Error: {error}"
        pending = list(self.pending if self.pending is not None else self.state.config)
        if command.startswith("nv unset "):
            pending = unset_path(pending, "nv set " + command[len("nv unset ") :])
        else:
            pending = set_line(pending, command, self.switch.rules)
        self.pending = pending
        self.count_config_line()
        return ""

    def apply(self, command: str) -> str:
        switch = self.switch
        if "--confirm-status" in command:
            return "Confirm active" if self.state.pending_confirm else "No confirm pending"
        if "--confirm-yes" in command:
            if not switch.confirm():
                return "Error: no pending confirm"
            if self.autosave and self.switch.__dict__.get("nvue_autosave_at", "confirm") == "confirm":
                self.save_startup("auto-save")
            return "applied"
        if "--confirm-no" in command:
            if not self.state.pending_confirm:
                return "Error: no pending confirm"
            switch.roll_back_pending("confirm-no-rolled-back")
            return "rolled back"
        if self.pending is None:
            return "Warning: no pending changes"
        previous = self.state.snapshot()
        switch.replace_config(self.pending, "apply")
        self.pending = None
        if match := re.search(r"--confirm[ =](\S+)", command):
            try:
                seconds = _duration(match[1])
            except ValueError:
                return f"Error: invalid duration {match[1]!r}"
            switch.start_confirm_timer(seconds, previous)
            if self.autosave and self.switch.__dict__.get("nvue_autosave_at", "confirm") == "apply":
                self.save_startup("auto-save")
            return f"applied [rev_id: {len(self.state.history)}]\nConfirm needed within {match[1]}"
        if self.autosave:
            self.save_startup("auto-save")
        return f"applied [rev_id: {len(self.state.history)}]"
