"""What every simulated OS shell has in common: prompt, paging, fault-injection hooks.

LAB EQUIPMENT: personalities imitate what gpunet touches on a real switch OS, no more.
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod

from gpunet.lab.switchsim.configtree import ConfigEditor
from gpunet.lab.switchsim.switch import SimulatedSwitch


class Personality(ABC):
    """One interactive CLI session on a simulated switch."""

    banner_text = ""

    def __init__(self, switch: SimulatedSwitch, username: str) -> None:
        self.switch = switch
        self.state = switch.state
        self.username = username
        self.paging = True
        self.closed = False
        self.config_lines_sent = 0  # counts towards `--drop-after`

    def banner(self) -> str:
        return self.banner_text

    def end(self) -> None:  # noqa: B027 - most OSes free nothing of their own
        """The SSH session ended, closed or cut: free what the OS ties to a session (a lock)."""

    @abstractmethod
    def prompt(self) -> str: ...

    @abstractmethod
    def handle(self, line: str) -> str:
        """Run one line; return what the OS prints before the next prompt."""

    def count_config_line(self) -> None:
        self.config_lines_sent += 1
        self.switch.count_config_line(self.config_lines_sent)

    def page(self, text: str) -> str:
        """Without paging turned off, output stops at one screen like the real CLI's pager."""
        lines = text.split("\n")
        if not self.paging or len(lines) <= self.switch.options.page_lines:
            return text
        return "\n".join([*lines[: self.switch.options.page_lines], " --More-- "])


class EditorPersonality(Personality):
    """IOS-style CLIs (NX-OS, EOS): exec mode, and a configuration editor once `configure` ran."""

    def __init__(self, switch: SimulatedSwitch, username: str) -> None:
        super().__init__(switch, username)
        self.editor: ConfigEditor | None = None

    def handle(self, line: str) -> str:
        command = line.strip()
        if not command:
            return ""
        if self.editor is not None:
            return self.configure(command)
        return self.exec_command(command)

    @abstractmethod
    def exec_command(self, command: str) -> str: ...

    @abstractmethod
    def configure(self, command: str) -> str: ...


def unified(before: list[str], after: list[str], before_name: str, after_name: str) -> str:
    return "\n".join(
        line.rstrip("\n")
        for line in difflib.unified_diff(before, after, before_name, after_name, lineterm="")
    )
