"""Build in-memory RawInventory objects from the fixture generator's data, without Ansible."""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Callable
from typing import Any

from gpunet.model.build import RawInventory, relevant_vars
from tests.conftest import FIXTURES_DIR

_spec = importlib.util.spec_from_file_location(
    "inventory_fixtures", FIXTURES_DIR / "inventories" / "generate.py"
)
assert _spec and _spec.loader
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)


def _members(tree: dict[str, Any], name: str, groups: dict[str, list[str]]) -> list[str]:
    hosts = list((tree.get("hosts") or {}).keys())
    for child, subtree in (tree.get("children") or {}).items():
        hosts += _members(subtree or {}, child, groups)
    groups[name] = list(dict.fromkeys(hosts))
    return hosts


def raw_inventory(mutate: Callable[[dict[str, Any]], Any] | None = None) -> RawInventory:
    """The minimal valid inventory, optionally mutated, as the loader would hand it over."""
    inv = copy.deepcopy(fixtures.minimal())
    if mutate:
        mutate(inv)
    groups: dict[str, list[str]] = {}
    _members(inv["groups"]["all"], "all", groups)
    hostvars = {
        name: relevant_vars({**inv["all"], **variables}) for name, variables in inv["host_vars"].items()
    }
    return RawInventory(groups=groups, hostvars=hostvars)
