"""The RFC 6902 subset gpunet needs for SONiC config_db: make a patch, apply it atomically.

Only `add`, `replace` and `remove` on object members; config_db is a two-level mapping of
tables to keys to fields, so no array operations are needed.
"""

from __future__ import annotations

import copy
from typing import Any


class PatchError(ValueError):
    """A patch operation that cannot be applied to the document."""


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def make_patch(current: dict[str, Any], intended: dict[str, Any]) -> list[dict[str, Any]]:
    """Operations that make `current` hold every field of `intended` (a merge: nothing is deleted)."""
    ops: list[dict[str, Any]] = []
    for table, entries in intended.items():
        table_path = f"/{_escape(table)}"
        if table not in current:
            ops.append({"op": "add", "path": table_path, "value": entries})
            continue
        for key, fields in entries.items():
            key_path = f"{table_path}/{_escape(key)}"
            if key not in current[table]:
                ops.append({"op": "add", "path": key_path, "value": fields})
                continue
            for field, value in fields.items():
                if current[table][key].get(field) != value:
                    kind = "replace" if field in current[table][key] else "add"
                    ops.append({"op": kind, "path": f"{key_path}/{_escape(field)}", "value": value})
    return ops


def apply_patch(document: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """A patched copy of `document`; raises PatchError and leaves `document` untouched on failure."""
    result = copy.deepcopy(document)
    for index, op in enumerate(ops):
        kind, path = op.get("op"), op.get("path", "")
        if kind not in ("add", "replace", "remove") or not path.startswith("/"):
            raise PatchError(f"operation {index}: unsupported op {kind!r} or path {path!r}")
        *parents, last = [_unescape(t) for t in path[1:].split("/")]
        target: Any = result
        for token in parents:
            if not isinstance(target, dict) or token not in target:
                raise PatchError(f"operation {index}: path {path!r} does not exist")
            target = target[token]
        if not isinstance(target, dict):
            raise PatchError(f"operation {index}: parent of {path!r} is not an object")
        if kind in ("replace", "remove") and last not in target:
            raise PatchError(f"operation {index}: {path!r} does not exist")
        if kind == "remove":
            del target[last]
        else:
            target[last] = copy.deepcopy(op["value"])
    return result
