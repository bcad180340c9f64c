"""The NVUE commands the incast stage sends to a Cumulus Linux switch are GET paths of NVIDIA's NVUE
OpenAPI spec (5.3.0), and the documents the simulator prints for them have the spec's property
names and types, nothing else. Data: ../shared/vendor-schemas/nvue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpunet.collect.switch_show import PORT_COMMANDS
from gpunet.lab.switchsim.personalities import cumulus_incast
from gpunet.lab.switchsim.state import SwitchState
from tests.vendor_schemas.schemas import NVUE_DIR, require

TOOLS = sorted(PORT_COMMANDS["cumulus"])


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return json.loads((require(NVUE_DIR) / "nvue-openapi-5.3.0.json").read_text())


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = spec["x-defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _branches(spec: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [_resolve(spec, node)]
    for part in list(found):
        for sub in part.get("allOf", []):
            found += _branches(spec, sub)
    return found


def _problems(spec: dict[str, Any], node: dict[str, Any], value: Any, where: str) -> list[str]:
    """Where `value` leaves the schema `node`: an unknown property or a value of another type."""
    branches = _branches(spec, node)
    kinds = {b["type"] for b in branches if "type" in b}
    if "integer" in kinds:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is no integer"]
    if not isinstance(value, dict):
        return [f"{where}: {type(value).__name__}, not an object"]
    properties = {k: v for b in branches for k, v in b.get("properties", {}).items()}
    extra = next(
        (b["additionalProperties"] for b in branches if isinstance(b.get("additionalProperties"), dict)), None
    )
    problems = []
    for key, item in value.items():
        schema = properties.get(key, extra)
        if schema is None:
            problems.append(f"{where}.{key}: not a property of the spec")
        else:
            problems += _problems(spec, schema, item, f"{where}.{key}")
    return problems


def _path(command: str) -> str:
    words = command.split()
    assert words[:2] == ["nv", "show"] and words[-2:] == ["-o", "json"], command
    return "/" + "/".join("{interface-id}" if w == "{port}" else w for w in words[2:-2])


@pytest.mark.parametrize("tool", TOOLS)
def test_the_simulators_document_is_the_specs(spec: dict[str, Any], tool: str) -> None:
    path = _path(PORT_COMMANDS["cumulus"][tool])
    assert path in spec["paths"], f"{path} is no path of the NVUE 5.3 spec"
    response = _resolve(spec, spec["paths"][path]["get"]["responses"]["200"])
    schema = response["content"]["application/json"]["schema"]
    state = SwitchState("cumulus", "leaf05", config=[], ports=["swp1"])
    state.counters["swp1"].update({"ecn_marked": [1] * 8, "tx_drop": [2] * 8, "wred_drop": [3] * 8})
    document = json.loads(
        cumulus_incast.answer(state, PORT_COMMANDS["cumulus"][tool].format(port="swp1")) or ""
    )
    assert _problems(spec, schema, document, path) == []


def test_a_document_off_the_spec_is_caught(spec: dict[str, Any]) -> None:
    path = "/interface/{interface-id}/qos/counters/pfc-stats"
    schema = _resolve(spec, spec["paths"][path]["get"]["responses"]["200"])["content"]["application/json"][
        "schema"
    ]
    wrong = {"3": {"tx-pause-frames": "9", "tx-pause-packets": 1}}
    assert _problems(spec, schema, wrong, path) == [
        f"{path}.3.tx-pause-frames: '9' is no integer",
        f"{path}.3.tx-pause-packets: not a property of the spec",
    ]


def test_the_spec_has_no_pfc_watchdog(spec: dict[str, Any]) -> None:
    """Why incast_pfc_watchdog stays skipped on Cumulus: NVUE 5.3 has nothing named so."""
    assert "watchdog" not in json.dumps(spec)
