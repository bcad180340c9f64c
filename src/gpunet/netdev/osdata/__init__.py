"""Per-OS vendor data for declarative pushes: what gpunet owns, and how the OS stores a statement
that is set again (replaces its value, or adds to a list). One YAML file per OS, each rule with
its vendor source. The switch simulator keeps its own reading of the vendors' facts
(gpunet.lab.switchsim.storage), so a wrong rule here cannot hide behind the simulator."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import yaml


@dataclass(frozen=True)
class OsRules:
    platform: str
    form: str  # indented | set | document
    data: dict[str, Any]

    @property
    def owned(self) -> dict[str, Any]:
        return self.data.get("owned") or {}

    def replace_key(self, line: str) -> str | None:
        """The part of `line` that names the statement, when setting it again replaces its value."""
        return _replace_key(self.platform, line)

    def shown_negated(self, line: str) -> bool:
        """A `no <statement>` the OS keeps and prints (EOS `no priority` in a tx-queue)."""
        return line.startswith("no ") and line[3:] in (self.data.get("shown_negated") or [])


@cache
def os_rules(platform: str) -> OsRules:
    text = resources.files("gpunet.netdev.osdata").joinpath(f"{platform}.yml").read_text()
    data = yaml.safe_load(text)
    return OsRules(platform, data["form"], data)


@lru_cache(maxsize=1 << 16)
def _replace_key(platform: str, line: str) -> str | None:
    # Cached: the simulator asks for every stored line each time a line is set.
    rules = os_rules(platform)
    text = line.removeprefix("no ") if rules.form == "indented" else line
    if rules.form == "set" and rules.data.get("value_is_last_word"):
        if any(re.match(rf"{pattern}\b", text) for pattern in rules.data.get("lists") or []):
            return None
        head, _, _ = text.rpartition(" ")
        return head or None
    for pattern in rules.data.get("replace") or []:
        if match := re.match(rf"(?:{pattern})(?=\s|$)", text):
            return match.group(0)
    return None
