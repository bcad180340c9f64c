"""Community SONiC personality: a bash shell with the click `config`/`show` commands.

LAB EQUIPMENT, modelled on sonic-utilities' Command Reference. config_db is a JSON document;
`config apply-patch` applies a JSON Patch atomically (all or nothing) and `config rollback` goes
back to a checkpoint, both through GCU's checks (sonic_gcu); `pfcwd` writes PFC_WD directly.
Every `config` command needs root, as config/main.py's group callback demands; the image's
sudoers lets the sudo group run anything without a password (sonic-buildimage
files/image_config/sudoers/sudoers).
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonpointer

from gpunet.lab.switchsim import sonic_dpb, sonic_gcu
from gpunet.lab.switchsim.grammar_link import grammar_error_type
from gpunet.lab.switchsim.personalities import sonic_pfcwd
from gpunet.lab.switchsim.personalities.base import Personality
from gpunet.lab.switchsim.personalities.lldp import COMMANDS as LLDP_SHOWS
from gpunet.lab.switchsim.personalities.lldp import lldp_answer
from gpunet.lab.switchsim.personalities.showpfc import (
    sonic_db_cli,
    sonic_ecn,
    sonic_pfc_counters,
    sonic_pfc_priority,
    sonic_queue_counters,
)
from gpunet.lab.switchsim.personalities.sonic_incast import sonic_pfcwd_stats, sonic_wredcounters

HEREDOC = re.compile(r"cat > (\S+) <<\s*'?(\w+)'?")
ROOT_ONLY = "Root privileges are required for this operation"
CONFIG_COMMANDS = re.compile(
    r"config (checkpoint|rollback|delete-checkpoint|list-checkpoints|apply-patch|save|interface|qos)\b"
)
# A command's standard input from /dev/null: a prompt it reaches reads end of input.
NO_STDIN = re.compile(r"\s*<\s*/dev/null$")


def written_part(document: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """The tables, entries or fields the patch's add/replace operations wrote (for the grammar)."""
    part: dict[str, Any] = {}
    for op in ops:
        if op.get("op") == "remove":
            continue
        tokens = jsonpointer.JsonPointer(str(op.get("path", ""))).parts
        source: Any = document
        target = part
        for depth, token in enumerate(tokens):
            source = source[token]
            if depth == len(tokens) - 1:
                target[token] = source
            else:
                target = target.setdefault(token, {})
    return part


class SonicPersonality(Personality):
    banner_text = (
        "Debian GNU/Linux comes with ABSOLUTELY NO WARRANTY.\n"
        "[gpunet switch simulator: lab equipment, not a real SONiC]\n"
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.heredoc: tuple[str, str, list[str]] | None = None  # (path, end marker, lines so far)
        self.asking: sonic_dpb.Breakout | None = None  # a breakout waiting for its confirmation

    @property
    def files(self) -> dict[str, str]:
        return self.switch.__dict__.setdefault("sonic_files", {})

    def prompt(self) -> str:
        if self.heredoc is not None:
            return "> "
        if self.asking is not None:
            return self.asking.prompt
        return f"{self.username}@{self.state.hostname}:~$ "

    def handle(self, line: str) -> str:
        if self.heredoc is not None:
            path, marker, lines = self.heredoc
            if line.strip() == marker:
                self.files[path] = "\n".join(lines)
                self.heredoc = None
            else:
                lines.append(line)
                self.count_config_line()
            return ""
        if self.asking is not None:
            run, self.asking = self.asking, None
            answered = len(run.output)
            if run.ask is not None:
                run.ask(line)
            if run.config is not None:
                self.switch.replace_config(run.config, "breakout", answer=line.strip())
            return "\n".join(run.output[answered:])
        command = line.strip()
        stdin_closed = bool(NO_STDIN.search(command))
        command = NO_STDIN.sub("", command)
        root = command.startswith("sudo ")
        if root:
            command = command[5:]
        if not command:
            return ""
        # click resolves the subcommand before the group's root check runs: an unknown one still
        # gets "No such command"
        if CONFIG_COMMANDS.match(command) and not root:
            return ROOT_ONLY
        if command.startswith("pfcwd "):
            return self._pfcwd(command.removeprefix("pfcwd "), root)
        if match := HEREDOC.fullmatch(command):
            self.heredoc = (match[1], match[2], [])
            return ""
        if match := re.fullmatch(r"pgrep -f '([^']+)'", command):  # procps: one PID a line, none: nothing
            found = [n for n, running in enumerate(self.switch.in_flight) if re.search(match[1], running)]
            return "\n".join(str(4000 + n) for n in found)
        if match := re.fullmatch(r"rm -f (\S+)", command):
            self.files.pop(match[1], None)
            return ""
        if command == "show runningconfiguration all":
            return json.dumps(self.state.config, indent=4, sort_keys=True)
        if match := re.fullmatch(r"config checkpoint (\S+)", command):
            self.state.checkpoints[match[1]] = self.state.snapshot()
            self.state.record("checkpoint", name=match[1])
            self.switch.persist()
            return (
                "Config Rollbacker: Config checkpoint starting.\n"
                f"Checkpoint name: {match[1]}.\nCheckpoint created successfully."
            )
        if match := re.fullmatch(r"config rollback (\S+)", command):
            if match[1] not in self.state.checkpoints:
                return f"Error: Checkpoint '{match[1]}' does not exist."
            target = self.state.checkpoints[match[1]]
            try:
                sonic_gcu.check_transition(self.state.config, target)
            except sonic_gcu.GcuRefusal as refusal:
                return (
                    "Config Rollbacker: Config rollbacking starting.\n"
                    f"Failed to rollback config\nError: {refusal}"
                )
            self.switch.replace_config(target, "rollback", name=match[1])
            return (
                "Config Rollbacker: Config rollbacking starting.\n"
                f"Target checkpoint: {match[1]}.\nConfig rolled back successfully."
            )
        if match := re.fullmatch(r"config delete-checkpoint (\S+)", command):
            if self.state.checkpoints.pop(match[1], None) is None:
                return f"Error: Checkpoint '{match[1]}' does not exist."
            self.state.record("delete-checkpoint", name=match[1])
            self.switch.persist()
            return (
                "Config Rollbacker: Deleting checkpoint starting.\n"
                f"Checkpoint name: {match[1]}.\nCheckpoint deleted successfully."
            )
        if command == "config list-checkpoints":
            return json.dumps(sorted(self.state.checkpoints), indent=4)
        if command.startswith("config interface breakout"):
            return self._breakout(command.removeprefix("config interface breakout"), stdin_closed)
        if match := re.fullmatch(r"config qos reload --ports (\S+)", command):
            config, output = sonic_dpb.qos_reload_ports(self.state.config, match[1])
            if config != self.state.config:
                self.switch.replace_config(config, "qos-reload-ports", ports=match[1])
            return output
        if match := re.fullmatch(r"config apply-patch (\S+)", command):
            return self.apply_patch(match[1])
        if command in ("config save -y", "config save --yes"):
            self.state.startup = self.state.snapshot()
            self.state.record("save")
            self.switch.persist()
            return "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json"
        if command == "show pfc counters":
            return sonic_pfc_counters(self.state)
        if command.startswith("sonic-db-cli "):
            return sonic_db_cli(self.state, command.split()[1:])
        if command in LLDP_SHOWS["sonic"]:
            return lldp_answer(self.switch, command)
        if command == "show pfc priority":
            return sonic_pfc_priority(self.state)
        if command == "show ecn":
            return sonic_ecn(self.state)
        if command == "show queue wredcounters":  # the incast stage's two (personalities/sonic_incast.py)
            return sonic_wredcounters(self.state)
        if command == "show pfcwd stats":
            return sonic_pfcwd_stats(self.state)
        if command == "show queue counters" or command.startswith("show queue counters "):
            return self._show_queue_counters(command.split()[3:])
        if command == "exit":
            self.closed = True
            return ""
        word = command.split()[0]
        if word in ("config", "show"):
            return (
                f'Usage: {word} [OPTIONS] COMMAND [ARGS]...\nTry "{word} -h" for help.\n\n'
                f'Error: No such command "{command.split()[1] if len(command.split()) > 1 else ""}".'
            )
        return f"-bash: {word}: command not found"

    def _breakout(self, arguments: str, stdin_closed: bool) -> str:
        # DPB arrived with SONiC 202012 (sonic-breakout_cfg.yang): an older release has no such command
        if self.switch.newer_than_release(json.dumps({"BREAKOUT_CFG": {}})):
            return (
                'Usage: config interface [OPTIONS] COMMAND [ARGS]...\nTry "config interface -h" for help.'
                '\n\nError: No such command "breakout".'
            )
        if self.switch.rejects(f"config interface breakout{arguments}"):
            return "[ERROR] Port breakout Failed!!! Opting Out\nFailed to break out Port. Error: "
        run = sonic_dpb.breakout(self.state.config, arguments, stdin_closed=stdin_closed)
        if run.ask is not None:
            self.asking = run
            return run.text()
        if run.config is not None:
            self.switch.replace_config(run.config, "breakout", arguments=arguments.strip())
        return run.text()

    def _pfcwd(self, arguments: str, root: bool) -> str:
        if arguments.startswith("show "):
            return ""
        if self.switch.rejects(f"pfcwd {arguments}"):
            return f"Failed to run command, invalid options:\n{arguments}"
        config, output = sonic_pfcwd.run(self.state.config, arguments, root)
        if config is not None and config != self.state.config:
            if not config.get("PFC_WD"):
                config = {table: entries for table, entries in config.items() if table != "PFC_WD"}
            self.switch.replace_config(config, "pfcwd", arguments=arguments)
        return output

    def _show_queue_counters(self, options: list[str]) -> str:
        """`show queue counters [-j|--json]`; another option is refused as click refuses it."""
        unknown = [option for option in options if option not in ("-j", "--json")]
        if unknown:
            return (
                'Usage: show queue counters [OPTIONS] [INTERFACE_NAME]\nTry "show queue counters -h" for '
                f"help.\n\nError: No such option: {unknown[0]}"
            )
        return sonic_queue_counters(self.state, as_json=bool(options))

    def apply_patch(self, path: str) -> str:
        if path not in self.files:
            return f"Error: Invalid value for 'PATCH_FILE_PATH': File '{path}' does not exist."
        header = "Patch Applier: localhost: Patch application starting."
        try:
            ops = json.loads(self.files[path])
            for op in ops:
                if self.switch.rejects(json.dumps(op, sort_keys=True)):
                    raise ValueError(f"operation on {op.get('path')} rejected by YANG validation")
            patched = sonic_gcu.apply(self.state.config, ops)
            written = json.dumps(written_part(patched, ops))
            self.switch.grammar.check_document(written)
            if unknown := self.switch.newer_than_release(written):
                raise ValueError(f"table {', '.join(unknown)} is unknown to SONiC {self.state.os_version}")
        except (ValueError, grammar_error_type()) as error:
            return f"{header}\nFailed to apply patch due to: {error}\nError: {error}"
        self.switch.replace_config(patched, "apply-patch", operations=len(ops))
        return f"{header}\nPatch Applier: localhost: Patch applied successfully.\nPatch applied successfully."
