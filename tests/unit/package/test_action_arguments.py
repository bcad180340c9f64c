"""Each gpunet.fabric action plugin's argument spec agrees with the documentation of its module file.

ansible-test's validate-modules compares DOCUMENTATION with the argument_spec of a real module
(roce_qos), but an action plugin's module file is documentation only, so the plugin's ARGUMENTS
(what validate_argument_spec enforces) are compared here: the same options, each with the same
type, required flag, default and choices. Both are read with ast: no Ansible plugin loader.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
ACTIONS = sorted(p.stem for p in (REPO_ROOT / "plugins" / "action").glob("*.py"))


def _assigned(path: Path, name: str) -> Any:
    """The value of module-level `name = <literal>` in path (names of other literals resolved)."""
    tree = ast.parse(path.read_text())
    constants: dict[str, Any] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and value is not None:
            try:
                constants[target.id] = _literal(value, constants)
            except ValueError:
                continue
    return constants[name]


def _literal(node: ast.expr, constants: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list":
        return list(_literal(node.args[0], constants))
    if isinstance(node, ast.Dict):
        return {
            _literal(k, constants): _literal(v, constants)
            for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, (ast.Tuple, ast.List)):
        return type(ast.literal_eval(node) if not node.elts else [])(
            _literal(e, constants) for e in node.elts
        )
    return ast.literal_eval(node)


def _normalised(option: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": option.get("type", "str"),
        "required": bool(option.get("required", False)),
        "default": option.get("default"),
        "choices": list(option["choices"]) if "choices" in option else None,
    }


def test_every_action_plugin_is_covered() -> None:
    assert {"render", "switch_config", "inventory_check", "verify_switch_show"} <= set(ACTIONS)


@pytest.mark.parametrize("action", ACTIONS)
def test_argument_spec_agrees_with_the_documentation(action: str) -> None:
    spec = _assigned(REPO_ROOT / "plugins" / "action" / f"{action}.py", "ARGUMENTS")
    documentation = _assigned(REPO_ROOT / "plugins" / "modules" / f"{action}.py", "DOCUMENTATION")
    documented = yaml.safe_load(documentation).get("options") or {}
    assert sorted(spec) == sorted(documented)
    for name, option in spec.items():
        assert _normalised(option) == _normalised(documented[name]), name
