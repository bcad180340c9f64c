"""execution-environment.yml without its staged inputs: `ansible-builder create` refuses, naming the
missing file under build/ee/, instead of writing a context that cannot build (no _build/wheels).
The build itself, with the inputs staged, is test_ee.py's (podman, minutes); this needs neither."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def test_unstaged_definition_is_refused(tmp_path: Path) -> None:
    shutil.copy(REPO_ROOT / "execution-environment.yml", tmp_path)
    shutil.copytree(REPO_ROOT / "ee", tmp_path / "ee")
    done = subprocess.run(
        [str(BIN / "ansible-builder"), "create", "-f", "execution-environment.yml", "-c", "context"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Dependency file build/ee/requirements." in output and "does not exist" in output, output
    assert not (tmp_path / "context" / "Containerfile").exists()


def test_the_staged_files_are_the_ones_build_ee_copies() -> None:
    """The definition's python and galaxy files are the copies build-ee.sh stages from ee/."""
    definition = yaml.safe_load((REPO_ROOT / "execution-environment.yml").read_text())
    staged = {definition["dependencies"][kind] for kind in ("python", "galaxy")}
    assert staged == {"build/ee/requirements.txt", "build/ee/requirements.yml"}
    script = (REPO_ROOT / "scripts" / "build-ee.sh").read_text()
    assert 'cp "$here/ee/requirements.txt" "$here/ee/requirements.yml" "$stage/"' in script
    assert all((REPO_ROOT / "ee" / Path(name).name).is_file() for name in staged)
