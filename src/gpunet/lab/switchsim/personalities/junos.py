"""Juniper Junos personality: private, shared and exclusive candidates, `show | compare`, commit
confirmed, rollback 0.

LAB EQUIPMENT, modelled on the Junos CLI as documented by Juniper. The configuration is kept in
`set` form.
"""

from __future__ import annotations

import re

from gpunet.lab.switchsim.commit_checks import commit_refusals, junos_commit_error
from gpunet.lab.switchsim.flatstore import set_line, unset_path
from gpunet.lab.switchsim.grammar_link import grammar_error_type
from gpunet.lab.switchsim.personalities.base import Personality
from gpunet.lab.switchsim.personalities.lldp import COMMANDS as LLDP_SHOWS
from gpunet.lab.switchsim.personalities.lldp import lldp_answer
from gpunet.lab.switchsim.personalities.queue_counters import (
    junos_interfaces_queue,
    junos_interfaces_queue_json,
    queue_rows,
)
from gpunet.lab.switchsim.personalities.showpfc import (
    junos_cos_congestion_notification,
    junos_cos_interface,
    junos_pfc,
)

# `configure exclusive` locks the configuration: others may enter configuration mode but cannot
# commit, and the holder's uncommitted changes go when it leaves (Juniper CLI User Guide, "Forms of
# the configure Command", https://www.juniper.net/documentation/us/en/software/junos/cli/topics/
# topic-map/configure-command.html). The holder is shown as that page shows configuration users;
# the `error:` line around it is assumed, not captured from a device.
LOCKED = (
    "error: configuration database locked by:\n"
    "  {user} terminal p1 (pid 4242) on since 2026-12-03 10:00:00 UTC\n      exclusive [edit]"
)
# "You cannot issue the commit confirmed command when you are in configure private mode" (Junos 8.5
# CLI User Guide, "Using the configure private Command",
# http://www.juniper.net/techpubs/software/junos/junos85/swconfig85-cli/id-10668534.html). The
# error's wording is assumed.
PRIVATE_NO_CONFIRMED = "error: commit confirmed is not supported in configure private mode"


class JunosPersonality(Personality):
    banner_text = (
        "--- JUNOS 23.4R1 built 2023-12-01 [gpunet switch simulator: lab equipment, not a real Junos]\n"
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.candidate: list[str] | None = None  # this session's candidate while in configuration mode
        self.mode = ""  # configuration mode: "private", "exclusive" or "" (plain `configure`)
        self.loading: list[str] | None = None  # lines typed after `load set terminal`, until ^D

    def prompt(self) -> str:
        if self.loading is not None:
            return ""  # Junos prints no prompt while `load set terminal` reads lines
        if self.candidate is None:
            return f"{self.username}@{self.state.hostname}> "
        return f"\n[edit]\n{self.username}@{self.state.hostname}# "

    def handle(self, line: str) -> str:
        if self.loading is not None:
            return self.load_line(line)
        command = line.strip()
        if not command:
            return ""
        if self.candidate is not None:
            return self.configure(command)
        if match := re.fullmatch(r'(?P<base>.+?) \| match "(?P<pattern>[^"]+)"', command):
            # Junos `| match`: only the lines the (case-insensitive) regular expression finds.
            found = re.compile(match["pattern"], re.IGNORECASE)
            return "\n".join(line for line in self.handle(match["base"]).splitlines() if found.search(line))
        if command == "set cli screen-width 511" or command.startswith("set cli screen-width"):
            return f"Screen width set to {command.split()[-1]}"
        if command == "set cli complete-on-space off":
            return "Disabling complete-on-space"
        if command == "set cli screen-length 0":
            self.paging = False
            return "Screen length set to 0"
        if command in ("configure private", "configure", "configure exclusive"):
            mode = command.removeprefix("configure").strip()
            holder = self.lock_holder()
            if mode == "exclusive" and holder is not None:
                return LOCKED.format(user=holder.username)
            if mode == "exclusive":
                self.switch.__dict__["junos_exclusive"] = self
            self.candidate, self.mode = list(self.state.config), mode
            return "warning: uncommitted changes will be discarded on exit\nEntering configuration mode"
        if command == "show configuration | display set":
            return self.page("\n".join(self.state.config))
        if match := re.fullmatch(r"show interfaces queue(?: (\S+))? \| display json", command):
            rows = [row for row in queue_rows(self.state) if match[1] in (None, row[0])]
            if not rows:
                return f"error: device {match[1]} not found"
            return self.page(junos_interfaces_queue_json(rows, lossless_queue=3))
        if match := re.fullmatch(r"show interfaces queue(?: (\S+))?", command):
            rows = [row for row in queue_rows(self.state) if match[1] in (None, row[0])]
            return self.page(
                junos_interfaces_queue(rows, lossless_queue=3) or f"error: device {match[1]} not found"
            )
        if command == "show interfaces extensive":
            return self.page(junos_pfc(self.state))
        if match := re.fullmatch(r"show interfaces (\S+) extensive", command):
            if match[1] not in self.state.counters:
                return f"error: device {match[1]} not found"
            return self.page(junos_pfc(self.state, match[1]))
        if command in LLDP_SHOWS["junos"]:
            return self.page(lldp_answer(self.switch, command))
        if command == "show class-of-service interface":
            return self.page(junos_cos_interface(self.state))
        if command == "show class-of-service congestion-notification":
            return self.page(junos_cos_congestion_notification(self.state))
        if command in ("exit", "quit"):
            self.closed = True
            return ""
        return f"{' ' * len(self.prompt())}^\nunknown command."

    def edit(self, command: str) -> bool:
        """Apply one `set`/`delete` line to the candidate; False when Junos would reject it."""
        assert self.candidate is not None
        if self.switch.rejects(command):
            return False
        if command.startswith("set "):
            try:
                self.switch.grammar.accept((), command)
            except grammar_error_type():
                return False
            self.candidate = set_line(self.candidate, command, self.switch.rules)
        else:
            self.candidate = unset_path(self.candidate, "set " + command[len("delete ") :])
        return True

    def load_line(self, line: str) -> str:
        """`load set terminal`: collect lines until ^D, then load them, reporting bad ones by number."""
        assert self.loading is not None
        if line.strip() != "\x04":
            self.loading.append(line)
            self.count_config_line()
            return ""
        lines, self.loading = self.loading, None
        errors = []
        for number, text in enumerate(lines, start=1):
            command = text.strip()
            if command and not (command.startswith(("set ", "delete ")) and self.edit(command)):
                where = f"terminal:{number}:(1) syntax error: {command.split()[-1]}"
                errors += [where, "  [edit]", f"    '{command}'", "      syntax error"]
        summary = f"load complete ({len(errors) // 4} errors)" if errors else "load complete"
        return "\n".join([*errors, summary])

    def configure(self, command: str) -> str:
        assert self.candidate is not None
        switch = self.switch
        if command == "load set terminal":
            self.loading = []
            return "[Type ^D at a new line to end input]"
        if command.startswith(("set ", "delete ")):
            accepted = self.edit(command)
            self.count_config_line()
            return "" if accepted else f"{' ' * 20}^\nsyntax error."
        if command == "show | compare":
            removed = [f"-  {line}" for line in self.state.config if line not in self.candidate]
            added = [f"+  {line}" for line in self.candidate if line not in self.state.config]
            return "\n".join(["[edit]", *removed, *added]) if removed or added else ""
        if command == "rollback 0":
            self.candidate = list(self.state.config)
            return "load complete"
        holder = self.lock_holder()
        if command.startswith("commit") and holder is not None:
            return LOCKED.format(user=holder.username)
        if command.startswith("commit confirmed") and self.mode == "private":
            return PRIVATE_NO_CONFIRMED
        refusals = commit_refusals("junos", self.candidate) if command.startswith("commit") else []
        if refusals:  # Junos checks the whole candidate before any commit, and commits nothing
            return junos_commit_error(refusals)
        if command == "commit check":
            return "configuration check succeeds"
        if match := re.fullmatch(r"commit confirmed(?: (\d+))?", command):
            minutes = int(match[1] or 10)
            previous = self.state.snapshot()
            switch.replace_config(list(self.candidate), "commit-confirmed", minutes=minutes)
            switch.start_confirm_timer(minutes * switch.options.minute_seconds, previous)
            return (
                "configuration check succeeds\n"
                f"commit confirmed will be automatically rolled back in {minutes} minutes unless confirmed\n"
                "commit complete\n\n"
                f"# commit confirmed will be rolled back in {minutes} minutes"
            )
        if command in ("commit", "commit and-quit"):
            if self.state.pending_confirm:
                switch.confirm()
            if self.candidate != self.state.config:
                switch.replace_config(list(self.candidate), "commit")
            if command == "commit and-quit":
                self.leave()
                return "commit complete\nExiting configuration mode"
            return "commit complete"
        if command in ("exit", "exit configuration-mode", "quit"):
            self.leave()
            return "Exiting configuration mode"
        return f"{' ' * 20}^\nunknown command."

    def lock_holder(self) -> JunosPersonality | None:
        """Another session holding `configure exclusive`, if any."""
        holder = self.switch.__dict__.get("junos_exclusive")
        return holder if holder is not self else None

    def leave(self) -> None:
        """Out of configuration mode: uncommitted changes go, and the exclusive lock with them."""
        self.candidate, self.mode = None, ""
        if self.switch.__dict__.get("junos_exclusive") is self:
            del self.switch.__dict__["junos_exclusive"]

    def end(self) -> None:
        self.leave()
