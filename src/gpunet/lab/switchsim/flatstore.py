"""Flat `set`-form configurations (Junos `set`, Cumulus `nv set`) stored as the OS stores them.

LAB EQUIPMENT. A leaf set again replaces its value (the simulator's own rules, gpunet.lab.switchsim.storage);
`delete`/`nv unset` of a path removes it and everything below it.
"""

from __future__ import annotations

from gpunet.lab.switchsim.storage import StorageRules


def set_line(lines: list[str], line: str, rules: StorageRules) -> list[str]:
    key = rules.replace_key(line)
    if key is not None:
        lines = [old for old in lines if old == line or rules.replace_key(old) != key]
    return lines if line in lines else [*lines, line]


def unset_path(lines: list[str], path: str) -> list[str]:
    """Remove `path` (a `set` line without its verb's negation, e.g. `set interfaces et-0/0/1`)."""
    return [old for old in lines if old != path and not old.startswith(path + " ")]
