"""Cisco NX-OS personality: lines apply at once; checkpoints and atomic rollback.

LAB EQUIPMENT, modelled on the Nexus 9000 CLI as documented by Cisco.
"""

from __future__ import annotations

import re

from gpunet.lab.switchsim.configtree import ConfigEditor, ConfigTree
from gpunet.lab.switchsim.grammar_link import grammar_error_type
from gpunet.lab.switchsim.personalities import nxos_ipqos
from gpunet.lab.switchsim.personalities.base import EditorPersonality, unified
from gpunet.lab.switchsim.personalities.lldp import COMMANDS as LLDP_SHOWS
from gpunet.lab.switchsim.personalities.lldp import lldp_answer
from gpunet.lab.switchsim.personalities.nxos_refusals import input_queuing_refusal
from gpunet.lab.switchsim.personalities.showpfc import nxos_pfc

INVALID = "% Invalid command at '^' marker."
# Cisco Nexus 3548 NX-OS System Management Configuration Guide, "Configuring the Rollback Feature":
# up to ten named checkpoints per switch; `checkpoint file ...` files are not counted.
MAX_NAMED_CHECKPOINTS = 10


class NxosPersonality(EditorPersonality):
    banner_text = (
        "Cisco Nexus Operating System (NX-OS) Software\n"
        "TAC support: http://www.cisco.com/tac\n"
        "[gpunet switch simulator: lab equipment, not a real NX-OS]\n"
    )

    def prompt(self) -> str:
        host = self.state.hostname
        if self.editor is None:
            return f"{host}# "
        mode = self.editor.stack[-1] if self.editor.stack else "config"
        return f"{host}({mode})# "

    def exec_command(self, command: str) -> str:
        state = self.state
        if command.startswith("terminal width"):
            return ""
        if command == "terminal length 0":
            self.paging = False
            return ""
        if command in ("configure terminal", "config terminal", "conf t"):
            self.editor = ConfigEditor(
                self.switch.grammar, ConfigTree.from_lines(state.config, 2, self.switch.rules)
            )
            return "Enter configuration commands, one per line. End with CNTL/Z."
        if command == "show running-config":
            body = "\n".join(state.config)
            return self.page(
                f"!Command: show running-config\n!Running configuration\n\nversion 10.3(4a)\n{body}"
            )
        if command == "show running-config ipqos all":
            body = "\n".join(nxos_ipqos.ipqos_all(state.config, self.switch.rules))
            return self.page(f"!Command: {command}\n!Running configuration\n\nversion 10.3(4a)\n{body}")
        if command == "show startup-config":
            return self.page("!Command: show startup-config\n\n" + "\n".join(state.startup))
        if match := re.fullmatch(r"checkpoint file (bootflash:\S+)", command):
            state.checkpoints[match[1]] = state.snapshot()  # a file: not one of the ten named
            state.record("checkpoint", name=match[1])
            self.switch.persist()
            return "Done"
        if match := re.fullmatch(r"delete (bootflash:\S+)(?: no-prompt)?", command):
            if state.checkpoints.pop(match[1], None) is None:
                return f"% No such file or directory: {match[1]}"
            self.switch.persist()
            return ""
        if match := re.fullmatch(r"rollback running-config file (bootflash:\S+)(?: atomic)?", command):
            if match[1] not in state.checkpoints:
                return f"% No such file or directory: {match[1]}"
            self.switch.replace_config(state.checkpoints[match[1]], "rollback", name=match[1])
            return "Rollback completed successfully."
        if match := re.fullmatch(r"checkpoint (\S+)", command):
            named = [name for name in state.checkpoints if not name.startswith("bootflash:")]
            if len(named) >= MAX_NAMED_CHECKPOINTS:
                return f"% Maximum number of checkpoints ({MAX_NAMED_CHECKPOINTS}) reached"
            state.checkpoints[match[1]] = state.snapshot()
            state.record("checkpoint", name=match[1])
            self.switch.persist()
            return "Done"
        if match := re.fullmatch(r"no checkpoint (\S+)", command):
            state.checkpoints.pop(match[1], None)
            self.switch.persist()
            return "Done"
        if match := re.fullmatch(r"rollback running-config checkpoint (\S+)(?: atomic)?", command):
            if match[1] not in state.checkpoints:
                return f"Checkpoint name {match[1]} does not exist"
            self.switch.replace_config(state.checkpoints[match[1]], "rollback", name=match[1])
            return "Note: Applying config parallelly may fail Rollback verification\n"
            "Rollback completed successfully."
        if match := re.fullmatch(r"show diff rollback-patch checkpoint (\S+) running-config", command):
            if match[1] not in state.checkpoints:
                return f"Checkpoint name {match[1]} does not exist"
            return unified(state.checkpoints[match[1]], state.config, match[1], "running-config")
        if command == "copy running-config startup-config":
            state.startup = state.snapshot()
            state.record("save")
            self.switch.persist()
            return "[########################################] 100%\nCopy complete."
        if command in LLDP_SHOWS["nxos"]:
            return self.page(lldp_answer(self.switch, command))
        if command == "show interface priority-flow-control":
            return self.page(nxos_pfc(state))
        if command == "exit":
            self.closed = True
            return ""
        return f"{' ' * (len(self.prompt()) + 1)}^\n{INVALID}"

    def configure(self, command: str) -> str:
        assert self.editor is not None
        if command == "end" or (command == "exit" and not self.editor.stack):
            self.editor = None
            return ""
        caret = f"{' ' * len(self.prompt())}^\n{INVALID}"
        if self.switch.rejects(command):
            return caret
        if refused := nxos_ipqos.refusal(command):
            return refused
        before = self.editor.tree.copy()
        try:
            self.editor.feed(command)
        except grammar_error_type():
            return caret
        if refused := input_queuing_refusal(self.editor.tree.to_lines()):
            self.editor.tree = before  # the line is refused: nothing of it stays
            return refused
        self.switch.replace_config(self.editor.tree.to_lines(), "config-line")
        self.count_config_line()
        return ""
