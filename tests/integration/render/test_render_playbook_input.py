"""playbooks/render.yml needs no vault password (rendering reads no secret), and refuses a folder
of someone else's files, as `gpunet render` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.playbook import run_playbook

PROD = REPO_ROOT / "inventories" / "prod"


def test_check_diff_on_prod_works_without_the_vault_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)
    out = tmp_path / "intended"
    run = run_playbook(
        "playbooks/render.yml", "-i", str(PROD), "--check", "--diff", "-e", f"render_out_dir={out}"
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "20 file(s) would be written, 0 would be removed" in " ".join(run.stdout.split())
    assert not out.exists(), "check mode must not write"


def test_a_folder_of_foreign_files_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)
    (tmp_path / "notes.md").write_text("# mine\n")
    run = run_playbook("playbooks/render.yml", "-i", str(PROD), "-e", f"render_out_dir={tmp_path}")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "holds 1 file(s) gpunet did not write (notes.md)" in " ".join(run.stdout.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]
