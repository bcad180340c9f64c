"""Render role templates and defaults with Ansible's own templar, as a play would on a host.

The project's collection path is installed first, so `gpunet.fabric.*` filters resolve exactly as
they do under ansible-playbook (ansible.cfg's collections_path).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader
from ansible.template import Templar, trust_as_template

from tests.conftest import REPO_ROOT


def trusted(value: Any) -> Any:
    """Mark strings as templates (ansible-core 2.19 templates only trusted text, as files of a role are)."""
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [trusted(item) for item in value]
    return value


@cache
def _plugins_ready() -> None:
    init_plugin_loader([str(REPO_ROOT / "collections")])


def templar(variables: dict[str, Any]) -> Templar:
    _plugins_ready()
    return Templar(loader=DataLoader(), variables=variables)


def role_defaults(role: Path) -> dict[str, Any]:
    """The role's defaults/main.yml, unrendered (the templar resolves them lazily, as Ansible does)."""
    return trusted(yaml.safe_load((role / "defaults/main.yml").read_text()) or {})


def role_vars(role: Path, name: str) -> dict[str, Any]:
    """One of the role's vars/<name>.yml files (per-OS facts)."""
    return trusted(yaml.safe_load((role / "vars" / f"{name}.yml").read_text()) or {})


def render_value(expression: Any, variables: dict[str, Any]) -> Any:
    """A variable's value, templated against the other variables."""
    return templar(variables).template(trusted(expression))


def render_role_template(path: Path, variables: dict[str, Any]) -> str:
    return str(templar(variables).template(trust_as_template(path.read_text())))
