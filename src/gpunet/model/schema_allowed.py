"""What a schema allows, in words, for a problem's "expected": the schema's descriptions say what a
key means, not what may be written there ("expected Short name of the fabric; ..." told nothing).

A pattern's allowed spelling is the `x-allowed` annotation beside it in the schema (a regex is no
answer for an operator); `x-allowed-from` names a registry whose entries are the allowed values
(platforms, switch models), listed as the cross-checks list them for an unknown value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ALLOWED = "x-allowed"
ALLOWED_FROM = "x-allowed-from"


def _platforms() -> list[str]:
    from gpunet.platforms import known_platforms

    return known_platforms()


def _switch_models() -> list[str]:
    from gpunet.hardware.catalog import known_models

    return known_models()


REGISTRIES: dict[str, Callable[[], list[str]]] = {"platforms": _platforms, "switch_models": _switch_models}

_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
}


def allowed(schema: dict[str, Any]) -> str:
    """One phrase for the values `schema` accepts, e.g. "an integer from 0 to 7", "one of leaf, spine"."""
    if ALLOWED_FROM in schema:
        return f"one of {', '.join(REGISTRIES[schema[ALLOWED_FROM]]())}"
    if ALLOWED in schema:
        return str(schema[ALLOWED])
    if "enum" in schema:
        return f"one of {', '.join(str(value) for value in schema['enum'])}"
    if "const" in schema:
        return repr(schema["const"])
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives and all(isinstance(option, dict) for option in alternatives):
        return " or ".join(allowed(option) for option in alternatives)
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(_TYPES.get(str(k), str(k)) for k in kind)
    phrase = _TYPES.get(str(kind), "a value") if kind else "a value"
    if kind in ("integer", "number"):
        return phrase + _bounds(schema)
    if kind == "string" and schema.get("minLength"):
        return "a non-empty string"
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, dict) and items:
            phrase += f", each {allowed(items)}"
        if schema.get("minItems"):
            phrase += f", at least {schema['minItems']}"
        return phrase
    if kind == "object" and schema.get("required"):
        return f"{phrase} with {', '.join(schema['required'])}"
    return phrase


def _bounds(schema: dict[str, Any]) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    if schema.get("exclusiveMinimum") is not None:
        return f" > {schema['exclusiveMinimum']}"
    return ""
