"""The block YAML that PyYAML's safe dumper writes (sort_keys=False, default_flow_style=False) for
the planner's plain documents, spelled directly: printing 43,000 host_vars files through PyYAML's
representer was half of planning 262,144 GPUs.

Only what the planner writes is spelled here: mappings of plain keys, nested mappings, lists of
scalars or of mappings of scalars, and scalars that PyYAML leaves unquoted (a string of name
characters whose implicit tag is str, an int, a bool, None). Anything else (quoting, an empty
container, a float, a long key, a nested list) gives None and the caller uses PyYAML, so the text
is always PyYAML's; tests/unit/plan/test_inventory_writer.py holds the two equal.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

# Characters that never make PyYAML quote a plain scalar in block context: no indicator, no space,
# no ': ' or ' #'. A ':' at the end counts as followed by a space, so it is excluded below.
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./:@+-]*")
_STR_TAG = "tag:yaml.org,2002:str"
# PyYAML writes a key of 128 characters or more as a complex key ('? ').
_SIMPLE_KEY_MAX = 127
_RESOLVER = yaml.resolver.Resolver()
_plain_keys: dict[str, bool] = {}


class _NotPlain(Exception):
    """A value this module leaves to PyYAML."""


def block_yaml(document: dict[str, Any]) -> str | None:
    """PyYAML's text of `document`, or None where it is not one of the planner's plain shapes."""
    if type(document) is not dict or not document:
        return None
    parts: list[str] = []
    try:
        _mapping(document, "", parts)
    except _NotPlain:
        return None
    return "".join(parts)


def _mapping(mapping: dict[str, Any], indent: str, parts: list[str]) -> None:
    for key, value in mapping.items():
        parts.append(f"{indent}{_key(key)}:")
        kind = type(value)
        if kind is dict:
            if not value:
                raise _NotPlain
            parts.append("\n")
            _mapping(value, indent + "  ", parts)
        elif kind is list:
            if not value:
                raise _NotPlain
            parts.append("\n")
            _sequence(value, indent, parts)
        else:
            parts.append(f" {_scalar(value)}\n")


def _sequence(items: list[Any], indent: str, parts: list[str]) -> None:
    """A list under a mapping key: PyYAML's indentless block sequence, '- ' at the key's indent."""
    inner = indent + "  "
    for item in items:
        if type(item) is dict:
            if not item:
                raise _NotPlain
            lead = f"{indent}- "
            for key, value in item.items():
                if type(value) in (dict, list):
                    raise _NotPlain
                parts.append(f"{lead}{_key(key)}: {_scalar(value)}\n")
                lead = inner
        elif type(item) is list:
            raise _NotPlain
        else:
            parts.append(f"{indent}- {_scalar(item)}\n")


def _key(key: Any) -> str:
    if type(key) is not str or len(key) > _SIMPLE_KEY_MAX:
        raise _NotPlain
    plain = _plain_keys.get(key)
    if plain is None:
        plain = _plain_keys[key] = _is_plain(key)
    if not plain:
        raise _NotPlain
    return key


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        if not _is_plain(value):
            raise _NotPlain
        return value
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    raise _NotPlain


def _is_plain(text: str) -> bool:
    return (
        _PLAIN.fullmatch(text) is not None
        and not text.endswith(":")
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG
    )
