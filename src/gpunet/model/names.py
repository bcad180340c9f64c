"""The name rule: names that become file names, folder names, shell words or config words.

Host and switch names name `intended/<fabric>/<switch>.cfg`, `backups/<switch>/`, the artifacts'
`hosts/<host>/` and the words of scripts the host roles install; the fabric's name names a folder;
a queue's name is a word of every switch's QoS policy. Each is checked here, whole (`fullmatch`:
a pattern ending in `$` also matches before a final line feed), in ASCII alone: a Cyrillic ie (U+0435) in
"l\u0435af01" looks like `leaf01` and is another name; a control character splits a config line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class NameRule:
    what: str  # "host name"
    pattern: re.Pattern[str]
    words: str  # the rule as the error states it

    def problem(self, value: object) -> str | None:
        """Why `value` breaks the rule, or None."""
        if not isinstance(value, str):
            return f"is not a {self.what}: a {type(value).__name__}"
        if self.pattern.fullmatch(value):
            return None
        odd = next((c for c in value if not c.isascii() or not c.isprintable()), None)
        if odd is not None:
            position = value.index(odd)
            where = f"U+{ord(odd):04X} {unicodedata.name(odd, 'a control character')} at position {position}"
            return f"breaks the {self.what} rule: holds {where}; {self.words}"
        return f"breaks the {self.what} rule: {self.words}"


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
# RFC 1123 section 2.1 host names (RFC 952 with a leading digit allowed), which is also what
# Ansible, SSH, shells and every switch OS accept without quoting.
HOST_NAME = NameRule(
    "host name",
    re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*", re.ASCII),
    "ASCII letters, digits and '-' in dot-separated labels of 1-63 characters, each starting and "
    "ending with a letter or digit, at most 253 in all (RFC 1123)",
)
# The fabric's name names intended/<name>/ and the reports.
FABRIC_NAME = NameRule(
    "fabric name",
    re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}", re.ASCII),
    "ASCII letters, digits, '_', '.' and '-', starting with a letter or digit, at most 63",
)
# Queue names are words of rendered QoS policy names on every OS (Junos: one statement a line).
QUEUE_NAME = NameRule(
    "queue name",
    re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}", re.ASCII),
    "ASCII letters, digits, '_' and '-', starting with a letter, at most 32",
)


def shown(name: str) -> str:
    """`name` as an error's path: written with escapes when it holds what a terminal would hide."""
    return name if name.isascii() and name.isprintable() else ascii(name)


def case_twins(names: list[str]) -> list[tuple[str, str]]:
    """(name, earlier name) for each name that differs from an earlier one only in case: DNS and
    case-insensitive file systems take them for one name."""
    first: dict[str, str] = {}
    twins = []
    for name in names:
        earlier = first.setdefault(name.lower(), name)
        if earlier != name:
            twins.append((name, earlier))
    return twins
