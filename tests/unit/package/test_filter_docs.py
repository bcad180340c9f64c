"""Every gpunet.fabric filter has a sidecar doc (plugins/filter/<name>.yml) that agrees with its code.

ansible-test sanity does not hold filter docs to much: validate-modules skips filter plugins and its
ansible-doc test leaves out undocumented filters. So this reads each plugin file's FilterModule
(with ast: no import, no Ansible plugin loader state) and checks, per filter: a sidecar exists and
names it, it has the keys ansible-doc shows, and its options are the wrapper's parameters in order
(`positional` = the parameters after the piped-in `_input`). Then ansible-doc must list every
filter as documented.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
FILTERS = REPO_ROOT / "plugins" / "filter"


def _filters() -> dict[str, list[str]]:
    """Filter name -> the parameter names of the function it maps to, from every plugin file."""
    found: dict[str, list[str]] = {}
    for plugin in sorted(FILTERS.glob("*.py")):
        tree = ast.parse(plugin.read_text())
        functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        mappings = [node for node in ast.walk(tree) if isinstance(node, ast.Dict) and node.keys]
        for mapping in mappings:
            for key, value in zip(mapping.keys, mapping.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Name) and value.id in functions:
                    found[key.value] = [arg.arg for arg in functions[value.id].args.args]
    return found


FILTER_PARAMETERS = _filters()


def test_the_filter_plugins_are_found() -> None:
    assert {"fabric_settings", "nccl_environment", "verify_raw_output"} <= set(FILTER_PARAMETERS)


def test_every_sidecar_documents_a_filter() -> None:
    assert sorted(p.stem for p in FILTERS.glob("*.yml")) == sorted(FILTER_PARAMETERS)


@pytest.mark.parametrize("name", sorted(FILTER_PARAMETERS))
def test_sidecar_agrees_with_the_filter(name: str) -> None:
    document = yaml.safe_load((FILTERS / f"{name}.yml").read_text())
    doc = document["DOCUMENTATION"]
    assert doc["name"] == name
    assert doc["short_description"] and doc["description"] and doc["version_added"]
    assert document["EXAMPLES"].count(f"gpunet.fabric.{name}") >= 1
    assert document["RETURN"]["_value"]["description"] and document["RETURN"]["_value"]["type"]
    input_name, *rest = FILTER_PARAMETERS[name]
    assert doc["options"]["_input"]["required"] is True, input_name
    assert list(doc["options"]) == ["_input", *rest]
    positional = [part.strip() for part in doc.get("positional", "").split(",") if part.strip()]
    assert positional == rest


def test_ansible_doc_lists_every_filter_as_documented() -> None:
    env = {**os.environ, "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg")}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ansible-doc")), "-t", "filter", "-l", "--json", "gpunet.fabric"],
        capture_output=True, text=True, env=env, cwd=REPO_ROOT, check=True, timeout=120,
    )  # fmt: skip
    listed = json.loads(done.stdout)
    assert sorted(listed) == sorted(f"gpunet.fabric.{name}" for name in FILTER_PARAMETERS)
    assert not [name for name, summary in listed.items() if summary == "UNDOCUMENTED"]
