"""The gpunet.fabric collection artifact: built by scripts/build-collection.sh, installed with
ansible-galaxy into an empty collections path, it runs site.yml's syntax check, the preflight and
the render on the example inventory, from a folder that is not the checkout and without the
checkout's ansible.cfg."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet

REPO_ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
PROD = REPO_ROOT / "inventories" / "prod"
VAULT = ("--vault-password-file", str(PROD / "vault-password.txt"))
# One of each kind of content the artifact must carry (the checkout links plugins/, which
# ansible-galaxy would skip).
EXPECTED_MEMBERS = (
    "MANIFEST.json",
    "meta/runtime.yml",
    "plugins/action/render.py",
    "plugins/modules/render.py",
    "plugins/filter/verify.py",
    "plugins/plugin_utils/gpunet_required.py",
    "roles/firewall/meta/argument_specs.yml",
    "playbooks/site.yml",
    "playbooks/preflight.yml",
    "LICENSE",
)


@dataclass(frozen=True)
class InstalledCollection:
    artifact: Path
    collections: Path
    workdir: Path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> InstalledCollection:
    work = tmp_path_factory.mktemp("collection")
    env = _env(work / "collections")
    built = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build-collection.sh"), str(work / "dist")],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    artifact = Path(built.stdout.strip().splitlines()[-1])
    install = subprocess.run(
        # --no-deps: no Galaxy to fetch ansible.posix and community.general from (the bundle has them)
        [str(BIN / "ansible-galaxy"), "collection", "install", "--no-deps", "-p", str(work / "collections"),
         str(artifact)],
        capture_output=True, text=True, env=env, cwd=work, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    workdir = work / "run"
    workdir.mkdir()
    return InstalledCollection(artifact=artifact, collections=work / "collections", workdir=workdir)


def _env(collections: Path) -> dict[str, str]:
    """The installed collection and no checkout ansible.cfg. Collections on sys.path stay visible:
    the roles use ansible.posix and community.general, which only the `ansible` bundle brings here
    (no Galaxy to install them from); it holds no gpunet.fabric."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        ANSIBLE_COLLECTIONS_PATH=str(collections),
        ANSIBLE_ROLES_PATH=str(collections / "no-roles-here"),
        ANSIBLE_NOCOLOR="1",
    )
    return env


def _playbook(installed: InstalledCollection, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "ansible-playbook"), *args],
        cwd=installed.workdir, env=_env(installed.collections), capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip


def test_the_artifact_carries_plugins_roles_and_playbooks(installed: InstalledCollection) -> None:
    with tarfile.open(installed.artifact) as artifact:
        names = set(artifact.getnames())
    assert not [member for member in EXPECTED_MEMBERS if member not in names]
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    assert (installed.collections / "ansible_collections/gpunet/fabric/playbooks/site.yml").is_file()


def test_installed_site_passes_the_syntax_check(installed: InstalledCollection) -> None:
    run = _playbook(installed, "gpunet.fabric.site", "-i", str(PROD), "--syntax-check")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ansible_collections/gpunet/fabric/playbooks/site.yml" in run.stdout


def test_installed_site_runs_preflight_and_render(installed: InstalledCollection) -> None:
    out = installed.workdir / "intended"
    run = _playbook(
        installed, "gpunet.fabric.site", "-i", str(PROD), *VAULT, "--tags", "render",
        "-e", f"render_out_dir={out}",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "fabric prod: 8 GPU hosts, 10 switches" in run.stdout  # the preflight's summary
    committed = REPO_ROOT / "intended" / "prod"
    assert sorted(p.name for p in out.glob("*.cfg")) == sorted(p.name for p in committed.glob("*.cfg"))
    for config in committed.glob("*.cfg"):
        assert (out / config.name).read_text() == config.read_text(), config.name


def test_installed_render_defaults_to_the_inventorys_project(installed: InstalledCollection) -> None:
    """Without render_out_dir: <project>/intended/<fabric>, the project found from the inventory (as
    `gpunet render`), not the folder ansible-playbook runs in, nor beside the collection's playbooks.
    The inventory is a copy: the checkout's own intended/ is not written."""
    project = installed.workdir.parent / "project"
    inventory = project / "inventories" / "prod"
    shutil.copytree(PROD, inventory)
    run = _playbook(installed, "gpunet.fabric.site", "-i", str(inventory), *VAULT, "--tags", "render")
    assert run.returncode == 0, run.stdout + run.stderr
    out = project / "intended" / "prod"
    assert f"{out}: " in run.stdout
    committed = REPO_ROOT / "intended" / "prod"
    assert sorted(p.name for p in out.glob("*.cfg")) == sorted(p.name for p in committed.glob("*.cfg"))
    assert not (installed.workdir / "intended" / "prod").exists()  # the other test writes intended/ itself
    assert not (installed.collections / "ansible_collections/gpunet/fabric/intended").exists()


def test_installed_push_reads_where_the_render_writes(installed: InstalledCollection) -> None:
    """switch_qos_intended_dir's default, evaluated by the installed collection's filter for the
    checkout's inventory, is the checkout's intended/ (where the render writes)."""
    role = installed.collections / "ansible_collections/gpunet/fabric/roles/switch_qos"
    defaults = yaml.safe_load((role / "defaults" / "main.yml").read_text())
    expression = defaults["switch_qos_intended_dir"]
    run = subprocess.run(
        [str(BIN / "ansible"), "localhost", "-i", str(PROD), *VAULT, "-m", "ansible.builtin.debug",
         "-a", f"msg={expression}"],
        cwd=installed.workdir, env=_env(installed.collections), capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f'"msg": "{REPO_ROOT / "intended"}"' in run.stdout, run.stdout


def _requirements() -> dict[str, str]:
    document = yaml.safe_load((REPO_ROOT / "requirements.yml").read_text())
    return {entry["name"]: entry["version"] for entry in document["collections"]}


def test_requirements_and_galaxy_dependencies_agree() -> None:
    galaxy = yaml.safe_load(
        (REPO_ROOT / "collections/ansible_collections/gpunet/fabric/galaxy.yml").read_text()
    )
    assert galaxy["dependencies"] == _requirements()


def test_every_collection_the_content_calls_is_required() -> None:
    used: set[str] = set()
    for path in [
        REPO_ROOT / "site.yml",
        *(REPO_ROOT / "playbooks").glob("*.yml"),
        *(REPO_ROOT / "roles").rglob("*.yml"),
    ]:
        if "molecule" in path.parts:
            continue
        used.update(
            re.findall(r"^\s*-?\s*([a-z_]+\.[a-z_]+)\.[a-z_]+:", path.read_text(), flags=re.MULTILINE)
        )
    assert used - {"ansible.builtin", "gpunet.fabric"} <= set(_requirements()), used


@pytest.mark.parametrize("name", sorted(_requirements()))
def test_the_tested_collection_versions_satisfy_the_requirements(name: str) -> None:
    namespace, collection = name.split(".")
    manifest = (
        Path(sysconfig.get_paths()["purelib"])
        / "ansible_collections"
        / namespace
        / collection
        / "MANIFEST.json"
    )
    if not manifest.is_file():
        pytest.skip(f"{name} is not installed beside Ansible here")
    version = json.loads(manifest.read_text())["collection_info"]["version"]
    assert version in SpecifierSet(_requirements()[name]), (
        f"{name} {version} is outside {_requirements()[name]}"
    )
