"""The JSON Schemas are valid draft 2020-12, strict, and describe every field (they are the docs)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gpunet.model.schema_check import load_schema

SCHEMAS = ["fabric", "common", "switch", "gpu_host"]


def _undescribed(node: Any, path: str) -> list[str]:
    missing = []
    if isinstance(node, dict):
        for key, sub in (node.get("properties") or {}).items():
            if "description" not in sub:
                missing.append(f"{path}.{key}")
            missing += _undescribed(sub, f"{path}.{key}")
        if isinstance(node.get("items"), dict):
            missing += _undescribed(node["items"], f"{path}[]")
    return missing


def _open_objects(node: Any, path: str) -> list[str]:
    found = []
    if isinstance(node, dict):
        if (
            node.get("type") == "object"
            and "properties" in node
            and node.get("additionalProperties") is not False
        ):
            found.append(path)
        for key, sub in (node.get("properties") or {}).items():
            found += _open_objects(sub, f"{path}.{key}")
        if isinstance(node.get("items"), dict):
            found += _open_objects(node["items"], f"{path}[]")
    return found


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_is_valid_2020_12(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_field_is_described(name: str) -> None:
    assert _undescribed(load_schema(name), name) == []


@pytest.mark.parametrize("name", ["fabric"])
def test_nested_objects_reject_unknown_keys(name: str) -> None:
    # Host-level objects are closed when combined (schema_check.host_schema); nested ones always.
    assert _open_objects(load_schema(name), name) == []
