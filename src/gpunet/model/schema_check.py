"""JSON Schema validation that reports problems by data path, with what would be valid."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from gpunet.model.errors import Problem
from gpunet.model.schema_allowed import ALLOWED, allowed

# A pattern's `$` is the end of the string, as in ECMA-262 (the schema's regex dialect) and as
# fastjsonschema compiles it; Python's `$` also matches before a final line feed, so jsonschema's
# own `pattern` let "prod\n" through where the compiled check refused it.
_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")


@cache
def _whole_string_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(_UNESCAPED_DOLLAR.sub(r"\\Z", pattern))


def _pattern(checker: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if checker.is_type(instance, "string") and not _whole_string_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("gpunet.model").joinpath("schema", f"{name}.schema.json").read_text()
    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)
    return schema


@cache
def validator(name: str) -> Draft202012Validator:
    return _Validator(load_schema(name))


def host_schema(kind: str) -> dict[str, Any]:
    """The schema for one host's variables: the kind's own keys plus the common ones, strict."""
    return _combined(kind)


@cache
def _combined(kind: str) -> dict[str, Any]:
    common = load_schema("common")
    own = load_schema(kind)
    return {
        **own,
        "properties": {**common["properties"], **own["properties"]},
        "additionalProperties": False,
    }


@cache
def host_validator(kind: str) -> Draft202012Validator:
    return _Validator(_combined(kind))


# Compiled checks by validator identity (validators are cached for the process).
_compiled: dict[int, tuple[Draft202012Validator, Callable[[Any], Any]]] = {}


def _fast_check(checker: Draft202012Validator) -> Callable[[Any], Any]:
    # Our schemas use only keywords whose meaning is the same in draft 7, which fastjsonschema
    # compiles to Python: ~20x faster than jsonschema on a 200-port switch.
    entry = _compiled.get(id(checker))
    if entry is None or entry[0] is not checker:
        entry = (checker, fastjsonschema.compile(checker.schema))
        _compiled[id(checker)] = entry
    return entry[1]


def check(instance: Any, checker: Draft202012Validator, root: str) -> list[Problem]:
    """Every schema violation in `instance`, one Problem each, paths rooted at `root`.

    Valid data (the common case, and all of it at scale) passes the compiled check alone; only
    invalid data pays for jsonschema's full walk, which names every problem with its path.
    """
    try:
        _fast_check(checker)(instance)
        return []
    except fastjsonschema.JsonSchemaException:
        pass
    problems: list[Problem] = []
    for error in sorted(checker.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        problems.extend(_describe(error, root))
    return problems


def join_path(root: str, parts: Any) -> str:
    path = root
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _describe(error: ValidationError, root: str) -> list[Problem]:
    path = join_path(root, error.absolute_path)
    kind = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind == "additionalProperties":
        keys = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(keys))
        return [
            Problem(join_path(path, [key]), "unknown key", expected=_allowed_keys(key, keys)) for key in extra
        ]
    if kind == "required":
        missing = (
            str(error.message).split("'")[1] if "'" in str(error.message) else str(error.validator_value)
        )
        return [
            Problem(
                join_path(path, [missing]), "missing required key", expected=_describe_key(schema, missing)
            )
        ]
    if kind == "enum":
        return [
            Problem(path, "not an allowed value", error.instance, f"one of {_list(error.validator_value)}")
        ]
    if kind == "const":
        return [Problem(path, "not an allowed value", error.instance, repr(error.validator_value))]
    if kind == "type":
        expected = allowed(schema) if schema else error.validator_value
        return [Problem(path, "wrong type", error.instance, expected)]
    if kind in ("minimum", "exclusiveMinimum"):
        op = ">=" if kind == "minimum" else ">"
        return [Problem(path, "too small", error.instance, f"{op} {error.validator_value}")]
    if kind in ("maximum", "exclusiveMaximum"):
        op = "<=" if kind == "maximum" else "<"
        return [Problem(path, "too large", error.instance, f"{op} {error.validator_value}")]
    if kind == "pattern":  # the schema's x-allowed spelling; a bare regex only where it has none
        expected = schema.get(ALLOWED, f"a match of {error.validator_value}")
        return [Problem(path, "badly formed", error.instance, expected)]
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return [
            Problem(path, "wrong number of items", len(error.instance), f"{bound} {error.validator_value}")
        ]
    if kind == "minLength":
        return [Problem(path, "must not be empty", error.instance)]
    if kind == "oneOf" and isinstance(error.instance, dict) and "traffic_class" in error.instance:
        return [
            Problem(
                path,
                "a queue takes either bandwidth_percent or strict: true, exactly one",
                {k: error.instance.get(k) for k in ("bandwidth_percent", "strict") if k in error.instance},
                "bandwidth_percent: <1-100> or strict: true",
            )
        ]
    return [Problem(path, error.message)]


def _allowed_keys(key: str, allowed: list[str]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}one of {_list(allowed)}" if allowed else "no keys here"


def _describe_key(schema: dict[str, Any], key: str) -> str:
    """What the missing key may hold (its description says what it means, not what is allowed)."""
    return allowed(schema.get("properties", {}).get(key, {}))


def _list(values: Any) -> str:
    return ", ".join(str(v) for v in values)
