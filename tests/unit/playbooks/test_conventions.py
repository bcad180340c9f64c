"""Playbook conventions (docs/playbooks.md): every role and stage is tagged, GPU-node stages go in
batches, and the preflight runs whatever --limit and --tags say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

PLAYBOOKS = REPO_ROOT / "playbooks"
GPU_NODE_STAGES = ["base.yml", "gpu_stack.yml", "roce_hosts.yml"]


def plays(name: str) -> list[dict[str, Any]]:
    return yaml.safe_load((PLAYBOOKS / name).read_text())


def role_entries() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{path.name}: {play['name']}", role)
        for path in sorted(PLAYBOOKS.glob("*.yml"))
        for play in plays(path.name)
        for role in play.get("roles", [])
    ]


@pytest.mark.parametrize(("where", "role"), role_entries(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_role_is_tagged_with_its_name(where: str, role: dict[str, Any]) -> None:
    assert role["role"] in role.get("tags", []), f"{where}: role {role['role']} lacks its tag"


def test_every_stage_of_site_is_tagged() -> None:
    imports = yaml.safe_load((REPO_ROOT / "site.yml").read_text())
    untagged = [
        entry["ansible.builtin.import_playbook"]
        for entry in imports
        if "preflight" not in entry["ansible.builtin.import_playbook"] and not entry.get("tags")
    ]
    assert untagged == []


@pytest.mark.parametrize("name", GPU_NODE_STAGES)
def test_gpu_node_stages_run_in_batches(name: str) -> None:
    gpu_plays = [play for play in plays(name) if play["hosts"] == "gpu_nodes"]
    assert gpu_plays, f"{name} has no gpu_nodes play"
    for play in gpu_plays:
        assert "gpu_nodes_serial" in str(play.get("serial")), play["name"]
        assert "gpu_nodes_max_fail_percentage" in str(play.get("max_fail_percentage")), play["name"]


def test_rdma_stack_is_installed_before_the_gpu_driver() -> None:
    # nvidia-peermem is built against DOCA-OFED only if rdma_tools installed it before the driver.
    imports = [
        entry["ansible.builtin.import_playbook"]
        for entry in yaml.safe_load((REPO_ROOT / "site.yml").read_text())
    ]
    assert imports.index("playbooks/roce_hosts.yml") < imports.index("playbooks/gpu_stack.yml")


def test_preflight_targets_every_host_once_and_always() -> None:
    (play,) = plays("preflight.yml")
    assert play["hosts"] == "all"
    assert "always" in play["tags"]
    assert all(task.get("run_once") is True for task in play["tasks"])


def test_the_docs_name_every_stage_tag() -> None:
    doc = (REPO_ROOT / "docs" / "playbooks.md").read_text()
    imports = yaml.safe_load((REPO_ROOT / "site.yml").read_text())
    for entry in imports:
        for tag in entry.get("tags", []):
            assert f"`{tag}`" in doc, tag


def test_the_project_carries_the_licence_its_metadata_names() -> None:
    assert "Apache License\n                           Version 2.0" in Path(REPO_ROOT / "LICENSE").read_text()
    assert 'license = "Apache-2.0"' in (REPO_ROOT / "pyproject.toml").read_text()
