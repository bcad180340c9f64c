"""execution-environment.yml without its staged inputs: `ansible-builder create` refuses, naming the
missing file under build/ee/, instead of writing a context that cannot build (no _build/wheels).
The build itself, with the inputs staged, is test_ee.py's (podman, minutes); this needs neither."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
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


def _stage_fake_inputs(root: Path) -> None:
    """build/ee/ as build-ee.sh leaves it, with one stand-in file for the wheels and the tarballs:
    ansible-builder create copies them, it does not read them."""
    stage = root / "build" / "ee"
    for folder, name in (("wheels", "gpunet-0-py3-none-any.whl"), ("collections", "gpunet-fabric.tar.gz")):
        (stage / folder).mkdir(parents=True)
        (stage / folder / name).write_text("stand-in\n")
    for name in ("requirements.txt", "requirements.yml"):
        shutil.copy(REPO_ROOT / "ee" / name, stage / name)


# (definition, the package manager its Containerfile must use, one it must never call)
DEFINITIONS = [
    ("execution-environment.yml", "/usr/bin/apt-get", "dnf"),
    ("execution-environment-ubi9.yml", "/usr/bin/dnf", "apt-get"),
]


@pytest.mark.parametrize(("definition", "manager", "foreign"), DEFINITIONS)
def test_staged_definition_writes_a_complete_context(
    tmp_path: Path, definition: str, manager: str, foreign: str
) -> None:
    """Both bases share the staged inputs; the context has every file a COPY names, and the RPM
    one installs with dnf alone (its build needs a registry: not run here, docs/install.md)."""
    shutil.copy(REPO_ROOT / definition, tmp_path)
    shutil.copytree(REPO_ROOT / "ee", tmp_path / "ee")
    _stage_fake_inputs(tmp_path)
    done = subprocess.run(
        [str(BIN / "ansible-builder"), "create", "-f", definition, "-c", "context",
         "--output-filename", "Containerfile"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    context = tmp_path / "context"
    containerfile = (context / "Containerfile").read_text()
    assert f'ARG PKGMGR="{manager}"' in containerfile
    assert foreign not in containerfile
    copies = [line.split()[1:-1] for line in containerfile.splitlines() if line.startswith("COPY ")]
    sources = [source for args in copies if not args[0].startswith("--from=") for source in args]
    assert "_build/wheels" in sources and "_build/collections" in sources
    missing = [source for source in sources if not (context / source).exists()]
    assert not missing, missing
    assert (context / "_build" / "wheels" / "gpunet-0-py3-none-any.whl").is_file()
