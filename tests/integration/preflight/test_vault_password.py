"""Without the vault password: the render needs none (as `gpunet render`), and a play that does
need it stops at the preflight with one line naming the vault file and how to give the password,
not Ansible's "no vault secrets found"."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.playbook import ANSIBLE_PLAYBOOK, run_playbook

NO_PASSWORD = "no vault password for {vault}"


@pytest.fixture
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of prod without its vault password file (group_vars/switches/vault.yml stays encrypted),
    in a project of its own so the render writes into that project's intended/."""
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)
    copy = tmp_path / "project" / "inventories" / "prod"
    shutil.copytree(REPO_ROOT / "inventories" / "prod", copy)
    (copy / "vault-password.txt").unlink()
    return copy


@pytest.mark.parametrize(
    "playbook, args, rc, says",
    [
        pytest.param("playbooks/render.yml", (), 0, "20 file(s) written", id="render-playbook"),
        pytest.param("site.yml", ("--tags", "render"), 2, NO_PASSWORD, id="site-tags-render"),
        pytest.param("site.yml", ("--tags", "switches"), 2, NO_PASSWORD, id="site-tags-switches"),
        pytest.param("playbooks/preflight.yml", (), 2, NO_PASSWORD, id="preflight"),
    ],
)
def test_without_the_vault_password(
    inventory: Path, playbook: str, args: tuple[str, ...], rc: int, says: str
) -> None:
    run = run_playbook(playbook, "-i", str(inventory), *args)
    text = " ".join(run.stdout.split())  # the callback wraps long lines
    assert run.returncode == rc, run.stdout + run.stderr
    assert says.format(vault=inventory / "group_vars" / "switches" / "vault.yml") in text, text
    assert "no vault secrets found" not in text
    if rc:
        assert "give it with --vault-password-file FILE or --ask-vault-pass" in text
        assert "PLAY [Render" not in text  # stopped at the preflight, before anything ran


def test_cable_lengths_name_the_switch_whose_vault_is_unread(inventory: Path) -> None:
    """roce_host's default reads the leaves' gpunet_ports; where a run skips the preflight
    (playbooks/roce_hosts.yml alone) the filter says which switch's vault it could not read.
    `debug` runs on the controller: nothing is contacted."""
    expression = "{{ gpunet_nics | gpunet.fabric.nic_cable_lengths(gpunet_fabric, hostvars) }}"
    run = subprocess.run(
        [str(ANSIBLE_PLAYBOOK.with_name("ansible")), "gpu01", "-i", str(inventory),
         "-m", "ansible.builtin.debug", "-a", f"msg={expression}"],
        cwd=REPO_ROOT, env={**os.environ, "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg")},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    text = " ".join((run.stdout + run.stderr).split())
    assert run.returncode != 0, text
    assert "no vault password for leaf01's vault-encrypted variables" in text, text
    assert "--vault-password-file FILE" in text
