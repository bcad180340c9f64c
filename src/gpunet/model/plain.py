"""Strip Ansible's tagged and lazy containers down to plain Python values."""

from __future__ import annotations

from typing import Any


def to_plain(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    # bool before int: bool is an int subclass.
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value
