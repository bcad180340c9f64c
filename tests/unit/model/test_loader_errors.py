"""Errors from Ansible's loader name the file (and the line where Ansible has one)."""

from __future__ import annotations

from pathlib import Path

from gpunet.model.check import check_inventory
from tests.conftest import REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"


def test_a_vault_that_cannot_be_decrypted_names_its_file(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not the password\n")
    result = check_inventory(PROD, wrong)
    assert len(result.problems) == 1, "\n".join(map(str, result.problems))
    (problem,) = result.problems
    assert problem.path.endswith("inventories/prod/group_vars/switches/vault.yml")
    assert problem.message == (
        "Decryption failed (no vault secrets were found that could decrypt); check the vault password "
        "file, or leave it out: gpunet reads no secrets"
    )


def test_without_a_password_the_vault_is_skipped_and_the_check_passes() -> None:
    result = check_inventory(PROD)
    assert result.ok
    assert [Path(name).name for name in result.skipped_files] == ["vault.yml"]
