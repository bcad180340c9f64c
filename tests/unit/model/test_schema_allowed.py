"""Schema problems say what is allowed, not what the key means: no "expected" is a description, a
regex, or a bare type name; registries (platforms, switch models) are listed from the registry."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpunet.hardware.catalog import known_models
from gpunet.model.schema_allowed import ALLOWED
from gpunet.model.schema_check import check, host_validator, load_schema, validator
from gpunet.platforms import known_platforms

SCHEMAS = ("common", "fabric", "gpu_host", "switch")
FIREWALL = {"fabric_cidrs": [], "mgmt_cidrs": []}
FABRIC = {"name": "prod", "ntp": {"servers": ["192.0.2.1"]}, "firewall": FIREWALL}
SWITCH = {
    "gpunet_platform": "sonic",
    "gpunet_switch_model": "SN5600",
    "gpunet_role": "leaf",
    "gpunet_ports": [{"name": "Ethernet0", "speed_gbps": 400, "peer": "gpu01:mlx5_0"}],
}
NIC = {"name": "mlx5_0", "netdev": "ens1f0np0", "speed_gbps": 400, "rail": 0, "switch": "leaf01",
       "switch_port": "Ethernet0", "ip": "198.51.100.1/31"}  # fmt: skip
GPU_HOST = {"gpunet_gpus": {"count": 8, "model": "H100-SXM5-80GB"}, "gpunet_nics": [NIC]}


def _without(data: dict[str, Any], *path: Any) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    node = changed
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return changed


def _with(data: dict[str, Any], value: Any, *path: Any) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    node = changed
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return changed


def _mtu() -> dict[str, Any]:
    return load_schema("fabric")["properties"]["mtu"]


CASES = [
    ("fabric", _without(FABRIC, "name"), "x.name: missing required key",
     "letters, digits, '_', '.' and '-', starting with a letter or digit, e.g. prod"),
    ("fabric", _with(FABRIC, "my fabric", "name"), "x.name: badly formed",
     "letters, digits, '_', '.' and '-', starting with a letter or digit, e.g. prod"),
    ("fabric", _with(FABRIC, "jumbo", "mtu"), "x.mtu: wrong type",
     f"an integer from {_mtu()['minimum']} to {_mtu()['maximum']}"),
    ("switch", _without(SWITCH, "gpunet_platform"), "x.gpunet_platform: missing required key",
     f"one of {', '.join(known_platforms())}"),
    ("switch", _without(SWITCH, "gpunet_switch_model"), "x.gpunet_switch_model: missing required key",
     f"one of {', '.join(known_models())}"),
    ("switch", _with(SWITCH, "gpu01", "gpunet_ports", 0, "peer"), "x.gpunet_ports[0].peer: badly formed",
     "<gpu host>:<nic name> or <switch>:<port>, no spaces, one ':' after the device "
     "(a Junos channel adds its own), e.g. gpu01:mlx5_0"),
    ("switch", _without(SWITCH, "gpunet_role"), "x.gpunet_role: missing required key",
     "one of leaf, spine, superspine"),
    ("gpu_host", _without(GPU_HOST, "gpunet_nics", 0, "rail"), "x.gpunet_nics[0].rail: missing required key",
     "an integer from 0 to 63"),
    ("gpu_host", _with(GPU_HOST, "ens1f0np0-too-long", "gpunet_nics", 0, "netdev"),
     "x.gpunet_nics[0].netdev: badly formed", "1 to 15 letters, digits, '_', '.', '@' and '-'"),
]  # fmt: skip


@pytest.mark.parametrize("kind, instance, where, expected", CASES, ids=[case[2] for case in CASES])
def test_problems_say_what_is_allowed(kind: str, instance: dict[str, Any], where: str, expected: str) -> None:
    checker = validator("fabric") if kind == "fabric" else host_validator(kind)
    problems = [problem for problem in check(instance, checker, "x") if str(problem).startswith(where)]
    assert len(problems) == 1, check(instance, checker, "x")
    assert f"expected {expected}" in str(problems[0]), str(problems[0])


def _nodes(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _nodes(value)
    elif isinstance(node, list):
        for value in node:
            found += _nodes(value)
    return found


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_pattern_says_in_words_what_it_allows(name: str) -> None:
    patterns = [node for node in _nodes(load_schema(name)) if "pattern" in node]
    assert patterns or name == "common"
    assert not [node["pattern"] for node in patterns if not node.get(ALLOWED)]
