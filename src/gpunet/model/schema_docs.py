"""Generate the inventory reference (docs/inventory-reference.md) from the JSON Schemas, so the
documentation cannot drift from what the check enforces."""

from __future__ import annotations

import json
from typing import Any

from gpunet.model.defaults import FABRIC_DEFAULTS
from gpunet.model.schema_check import load_schema

SECTIONS = (
    ("gpunet_fabric", "fabric", "group_vars/all"),
    ("GPU host variables", "gpu_host", "host_vars/<gpu host> (group gpu_nodes)"),
    ("Switch variables", "switch", "host_vars/<switch> (groups leaf, spine, superspine under switches)"),
    ("Variables any host may carry", "common", "any host"),
)


def render_reference() -> str:
    lines = [
        "# Inventory reference",
        "",
        "Generated from `src/gpunet/model/schema/*.schema.json` by `gpunet inventory docs`; do not edit.",
        "Unknown keys are errors. Defaults are the usual lossless RoCEv2 values.",
        "",
    ]
    for title, name, where in SECTIONS:
        schema = load_schema(name)
        lines += [f"## {title}", "", f"Where: {where}. {schema.get('description', '')}", ""]
        lines += ["| key | type | required | default | description |", "| --- | --- | --- | --- | --- |"]
        defaults = FABRIC_DEFAULTS if name == "fabric" else {}
        prefix = "gpunet_fabric." if name == "fabric" else ""
        lines += _rows(schema, prefix, defaults)
        lines.append("")
    return "\n".join(lines)


def _rows(node: dict[str, Any], prefix: str, defaults: Any) -> list[str]:
    rows = []
    required = set(node.get("required", []))
    for key, sub in (node.get("properties") or {}).items():
        path = f"{prefix}{key}"
        default = defaults.get(key) if isinstance(defaults, dict) else None
        shown_default = "" if default is None or isinstance(default, dict) else f"`{json.dumps(default)}`"
        rows.append(
            f"| `{path}` | {_type(sub)} | {'yes' if key in required else ''} | {shown_default} "
            f"| {sub.get('description', '')} |"
        )
        if sub.get("type") == "object":
            rows += _rows(sub, f"{path}.", default or {})
        items = sub.get("items")
        if isinstance(items, dict) and items.get("type") == "object":
            rows += _rows(items, f"{path}[].", {})
    return rows


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "type" not in node:
        return "mapping"
    kind = node["type"]
    if kind == "array":
        items = node.get("items", {})
        return f"list of {items.get('type', 'values')}"
    bounds = [f"{op} {node[key]}" for key, op in (("minimum", ">="), ("maximum", "<=")) if key in node]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")
