"""How each simulated OS stores a statement that is typed again (LAB EQUIPMENT).

The simulator's own data (behaviour/<os>.yml, each rule with its vendor source), never the push's
(gpunet.netdev.osdata): if the push believed a statement replaced its value where the OS adds
it, the simulator keeps both, and the push tests see it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import yaml


@dataclass(frozen=True)
class StorageRules:
    platform: str
    data: dict[str, Any]

    def replace_key(self, line: str) -> str | None:
        """What names the statement in `line`, when typing it again replaces its value."""
        return _replace_key(self.platform, line)

    def shown_negated(self, line: str) -> bool:
        """A `no <statement>` the OS keeps and prints (EOS `no priority` in a tx-queue)."""
        return line.startswith("no ") and line[3:] in (self.data.get("shown_negated") or [])


@cache
def storage_rules(platform: str) -> StorageRules:
    text = resources.files(__package__).joinpath("behaviour", f"{platform}.yml").read_text()
    return StorageRules(platform, yaml.safe_load(text))


@lru_cache(maxsize=1 << 16)
def _replace_key(platform: str, line: str) -> str | None:
    # Cached: every stored line is asked again each time a line is set.
    data = storage_rules(platform).data
    if data.get("value_is_last_word"):
        if any(re.match(rf"{pattern}\b", line) for pattern in data.get("sets") or []):
            return None
        head, _, _ = line.rpartition(" ")
        return head or None
    text = line.removeprefix("no ") if data["form"] == "indented" else line
    for number, pattern in enumerate(data.get("choices") or []):
        if match := re.fullmatch(pattern, text):
            return f"{text[: match.start('choice')]}<choice {number}>"  # either leaf of this choice
    for pattern in data.get("one_value") or []:
        if match := re.match(rf"(?:{pattern})(?=\s|$)", text):
            return match.group(0)
    return None
