"""Ansible without the gpunet package: every gpunet.fabric plugin that needs it says so in one line
(which package, which Python) when used, instead of an import traceback; ansible-doc documents them
with or without it.

Ansible runs as `python -m ansible.cli.<command>` from a fresh venv that reaches the test venv's
Ansible but not its gpunet (tests/integration/package/venvs.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.package.venvs import fresh_venv

REPO_ROOT = Path(__file__).resolve().parents[3]
ANSIBLE_DOC = Path(sys.executable).with_name("ansible-doc")
# Each plugin that imports gpunet, as a task or an expression that loads it.
ACTION_TASKS = {
    "inventory_check": {"gpunet.fabric.inventory_check": {}},
    "render": {"gpunet.fabric.render": {}},
    "switch_config": {"gpunet.fabric.switch_config": {}},
    "verify_switch_show": {"gpunet.fabric.verify_switch_show": {}},
}
FILTERS = {
    "host_settings": "nccl_environment",
    "verify": "verify_host_commands",
}
MODULES = sorted(p.stem for p in (REPO_ROOT / "plugins" / "modules").glob("*.py"))
EXPECTED = "the gpunet.fabric plugins need the gpunet Python package in the Python that runs Ansible"


@pytest.fixture(scope="module")
def python_without_gpunet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = fresh_venv(tmp_path_factory.mktemp("venv") / "no-gpunet")
    probe = subprocess.run([str(python), "-c", "import gpunet"], capture_output=True, text=True, check=False)
    assert probe.returncode != 0, "the venv without gpunet can import gpunet"
    return python


def _ansible(python: Path, tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["ANSIBLE_CONFIG"] = str(REPO_ROOT / "ansible.cfg")
    return subprocess.run(
        [str(python), "-m", f"ansible.cli.{tool}", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    "task",
    [pytest.param(task, id=f"action-{name}") for name, task in ACTION_TASKS.items()]
    + [
        pytest.param(
            {"ansible.builtin.debug": {"msg": f"{{{{ {{}} | gpunet.fabric.{fil} }}}}"}}, id=f"filter-{n}"
        )
        for n, fil in FILTERS.items()
    ],
)
def test_playbook_names_the_missing_package(python_without_gpunet: Path, tmp_path: Path, task: dict) -> None:
    import yaml

    playbook = tmp_path / "play.yml"
    playbook.write_text(yaml.safe_dump([{"hosts": "localhost", "gather_facts": False, "tasks": [task]}]))
    done = _ansible(python_without_gpunet, "playbook", "-i", "localhost,", str(playbook), cwd=REPO_ROOT)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert EXPECTED in output and str(python_without_gpunet) in output, output
    assert "Traceback" not in output and "probably a bug" not in output, output


def test_ansible_doc_of_a_filter_works_without_gpunet(python_without_gpunet: Path) -> None:
    """The plugins load without gpunet (only their use needs it), so their docs can be read first."""
    done = _ansible(
        python_without_gpunet, "doc", "-t", "filter", "gpunet.fabric.nccl_environment", cwd=REPO_ROOT
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "gpunet.fabric.nccl_environment" in output and "NCCL_IB_HCA" in output, output
    assert EXPECTED not in output and "Traceback" not in output, output


@pytest.mark.parametrize("module", MODULES)
def test_ansible_doc_shows_every_module(module: str) -> None:
    env = {**os.environ, "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    name = f"gpunet.fabric.{module}"
    as_json = subprocess.run(
        [str(ANSIBLE_DOC), "--json", name],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert as_json.returncode == 0, as_json.stderr
    doc = json.loads(as_json.stdout)[name]["doc"]
    assert doc["module"] == module and doc["short_description"] and doc["description"], doc
    # The text a user reads also formats RETURN and EXAMPLES, and fails on what JSON lets through.
    as_text = subprocess.run(
        [str(ANSIBLE_DOC), name], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert as_text.returncode == 0, as_text.stderr
    assert f"> MODULE {name}" in as_text.stdout, as_text.stdout[:300]
