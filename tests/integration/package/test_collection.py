"""The gpunet.fabric collection artifact, installed alone as an operator would: built by
scripts/build-collection.sh; a fresh virtualenv (no system site packages, no index: a wheelhouse of
gpunet's dependencies repacked from the test venv, tests/integration/package/wheelhouse.py) gets
ansible-core, whose ansible-galaxy installs the artifact into an empty collections path; the first
plugin used says gpunet is missing and how to install it, and that command, taken from the message,
installs gpunet from the wheel the collection carries (requirements.txt). From there, in a folder
that is not the checkout and without the checkout's ansible.cfg: site.yml's syntax check, the
preflight and the render on the example inventory. gpunet depends on ansible-core alone, so the
collections of requirements.yml are installed beside gpunet.fabric from tarballs packed from the
copies the test venv's Ansible uses (scripts/pack-installed-collection.py). About 50-60 s."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.integration.package import wheelhouse

REPO_ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
COLLECTION_META = REPO_ROOT / "collections/ansible_collections/gpunet/fabric"
MISSING = "the gpunet.fabric plugins need the gpunet Python package"
HINT = re.compile(r"install it there with `([^`]+)`")
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
    "requirements.txt",
    "bindep.txt",
    "meta/execution-environment.yml",
    "wheels/gpunet-0.1.0-py3-none-any.whl",
)


@dataclass(frozen=True)
class InstalledCollection:
    artifact: Path
    collections: Path
    workdir: Path
    venv: Path
    # What the first plugin said in the venv with ansible-core alone, before gpunet was installed.
    without_gpunet: str


def _run(
    argv: list[str], env: dict[str, str], cwd: Path, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> InstalledCollection:
    work = tmp_path_factory.mktemp("collection")
    collections, venv, workdir = work / "collections", work / "venv", work / "run"
    workdir.mkdir()
    built = _run(
        [str(REPO_ROOT / "scripts" / "build-collection.sh"), str(work / "dist")],
        {**os.environ, "PYTHON": sys.executable}, work,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    artifact = Path(built.stdout.strip().splitlines()[-1])

    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = _env(collections, venv)
    wheels = wheelhouse.build(REPO_ROOT / ".cache" / "quickstart-wheelhouse", REPO_ROOT / "pyproject.toml")
    # The test venv's pip installs into the fresh venv (--python), so it needs no pip of its own;
    # --no-compile: byte-compiling ansible-core and netmiko's dependencies is not needed to run them.
    pip = [str(BIN / "pip"), "--python", str(venv / "bin" / "python"), "install", "-q", "--no-compile",
           "--find-links", str(wheels)]  # fmt: skip
    core = _run([*pip, _pinned("ansible-core")], env, work)
    assert core.returncode == 0, core.stdout + core.stderr
    install = _run(
        # --offline: no Galaxy; the artifact and requirements.yml's collections, packed from the
        # copies the test venv's Ansible uses
        [str(venv / "bin" / "ansible-galaxy"), "collection", "install", "--offline",
         "-p", str(collections), str(artifact), *_pack_required(work / "required")],
        env, work,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    # The first plugin used, before gpunet is installed, says how to install it; the test runs that.
    first = _run(
        [str(venv / "bin" / "ansible"), "localhost", "-i", "localhost,", "-m", "ansible.builtin.debug",
         "-a", "msg={{ 'x' | gpunet.fabric.intended_root }}"],
        env, workdir,
    )  # fmt: skip
    hint = HINT.search(first.stdout + first.stderr)
    assert hint, first.stdout + first.stderr
    command = hint.group(1).split()
    assert command[:4] == [str(venv / "bin" / "python"), "-m", "pip", "install"], command
    gpunet = _run([*pip, *command[4:]], env, work)
    assert gpunet.returncode == 0, gpunet.stdout + gpunet.stderr
    return InstalledCollection(
        artifact=artifact, collections=collections, workdir=workdir, venv=venv,
        without_gpunet=first.stdout + first.stderr,
    )  # fmt: skip


def _installed_collection(name: str) -> Path | None:
    """Where the test venv's Ansible finds collection `name`, in its search order: ansible.cfg's
    collections_path (the checkout's collections/, scripts/install-collections.sh), then an
    `ansible` bundle in site-packages (an older venv)."""
    namespace, collection = name.split(".")
    for root in (REPO_ROOT / "collections", Path(sysconfig.get_paths()["purelib"])):
        path = root / "ansible_collections" / namespace / collection
        if (path / "MANIFEST.json").is_file():
            return path
    return None


def _pack_required(out: Path) -> list[str]:
    """requirements.yml's collections as artifacts (scripts/pack-installed-collection.py)."""
    out.mkdir()
    tarballs = []
    for name in sorted(_requirements()):
        source = _installed_collection(name)
        assert source, f"{name} is not installed (scripts/install-collections.sh)"
        tarball = out / f"{name.replace('.', '-')}.tar.gz"
        subprocess.run(
            [sys.executable, str(REPO_ROOT / "scripts" / "pack-installed-collection.py"), str(source),
             str(tarball)],
            check=True,
        )  # fmt: skip
        tarballs.append(str(tarball))
    return tarballs


def _pinned(name: str) -> str:
    """name==the version installed in the test venv (the one the wheelhouse holds)."""
    return f"{name}=={metadata.version(name)}"


def _env(collections: Path, venv: Path) -> dict[str, str]:
    """The fresh venv first on PATH, the installed collection, no checkout ansible.cfg, no pip
    configuration or index of this machine (only the wheelhouse). ansible.posix and community.general
    are installed beside gpunet.fabric: the venv has ansible-core only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "PIP_", "VIRTUAL_ENV"))}
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin",
        ANSIBLE_COLLECTIONS_PATH=str(collections),
        ANSIBLE_ROLES_PATH=str(collections / "no-roles-here"),
        ANSIBLE_NOCOLOR="1",
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def _playbook(installed: InstalledCollection, *args: str) -> subprocess.CompletedProcess[str]:
    return _run(
        [str(installed.venv / "bin" / "ansible-playbook"), *args],
        _env(installed.collections, installed.venv), installed.workdir,
    )  # fmt: skip


def test_without_gpunet_the_plugin_names_the_shipped_wheel(installed: InstalledCollection) -> None:
    collection = installed.collections / "ansible_collections/gpunet/fabric"
    assert MISSING in installed.without_gpunet, installed.without_gpunet
    assert (
        f"--find-links {collection / 'wheels'} -r {collection / 'requirements.txt'}"
        in installed.without_gpunet
    )


def test_the_venv_runs_the_collections_gpunet(installed: InstalledCollection) -> None:
    """gpunet and Ansible come from the fresh venv (no test venv, no checkout on its path)."""
    probe = "import ansible, gpunet, netmiko; print(ansible.__file__, gpunet.__file__, netmiko.__file__)"
    where = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c", probe],
        cwd=installed.workdir, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, check=True,
    ).stdout.split()  # fmt: skip
    assert len(where) == 3 and all(path.startswith(str(installed.venv)) for path in where), where
    assert "include-system-site-packages = false" in (installed.venv / "pyvenv.cfg").read_text()


def test_requirements_txt_pins_the_shipped_wheel() -> None:
    """requirements.txt, galaxy.yml, pyproject.toml and the wheel build-collection.sh ships agree on
    gpunet's version, and meta/execution-environment.yml names files the collection has."""
    pins = [
        Requirement(line)
        for line in (COLLECTION_META / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert [(pin.name, str(pin.specifier)) for pin in pins] == [("gpunet", f"=={version}")]
    assert yaml.safe_load((COLLECTION_META / "galaxy.yml").read_text())["version"] == version
    assert f"wheels/gpunet-{version}-py3-none-any.whl" in EXPECTED_MEMBERS
    ee = yaml.safe_load((COLLECTION_META / "meta" / "execution-environment.yml").read_text())
    assert ee["version"] == 1
    assert sorted(ee["dependencies"].values()) == ["bindep.txt", "requirements.txt"]
    assert all((COLLECTION_META / name).is_file() for name in ee["dependencies"].values())


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


# (ANSIBLE_COLLECTIONS_PATH for gpunet-validate: the installed collection's or an empty one,
#  whether the collection's playbook runs and is judged, else exit 2 with no report)
VALIDATE_OUTSIDE = [("installed", True), ("empty", False)]


@pytest.mark.parametrize(("collections", "judged"), VALIDATE_OUTSIDE)
def test_validate_outside_a_checkout_runs_the_installed_verify(
    installed: InstalledCollection, tmp_path: Path, collections: str, judged: bool
) -> None:
    """`gpunet-validate -i` from a folder that is no checkout runs gpunet.fabric.verify from the
    installed collection (its roles, its artifacts, a verdict); without it, one line and exit 2.
    The fixture inventory's hosts are this machine (ansible_connection: local): the NIC and GPU
    commands fail there, which is judged (the report's exit status), not a playbook that never
    started (2). `--limit gpu01`: one host, so no pair test, NCCL run or switch login dials the
    fixture's 192.0.2.x addresses (the run waited out their connect timeouts: 70 s in CI)."""
    inventory = tmp_path / "inventory"
    shutil.copytree(REPO_ROOT / "tests/fixtures/inventories/valid/minimal", inventory)
    with (inventory / "group_vars" / "all.yml").open("a") as group_vars:
        group_vars.write("\nansible_connection: local\n")
    env = _env(installed.collections, installed.venv)
    if collections == "empty":
        env["ANSIBLE_COLLECTIONS_PATH"] = str(tmp_path / "no-collections")
    artifacts, report = tmp_path / "artifacts", tmp_path / "report.json"
    run = _run(
        [str(installed.venv / "bin" / "gpunet-validate"), "-i", str(inventory), "--artifacts", str(artifacts),
         "--limit", "gpu01", "--quiet", "--format", "json", "--output", str(report)],
        env, installed.workdir, timeout=120,
    )  # fmt: skip
    if not judged:
        assert run.returncode == 2, run.stdout + run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert "no playbooks/verify.yml in" in run.stderr and "no gpunet.fabric collection" in run.stderr
        assert not report.exists() and not (artifacts / ".runner").exists()
        return
    assert run.returncode not in (0, 2), run.stdout + run.stderr  # judged, and nothing real to pass
    # ansible-runner's record of the command: the FQCN, run in the installed collection
    (command_file,) = (artifacts / ".runner" / "artifacts").glob("*/command")
    command = json.loads(command_file.read_text())
    assert command["command"][-1] == "gpunet.fabric.verify"
    assert command["cwd"] == str(installed.collections / "ansible_collections/gpunet/fabric")
    assert json.loads((artifacts / "manifest.json").read_text())["fabric"] == "minimal"
    verdict = json.loads(report.read_text())
    assert verdict["exit_code"] == run.returncode and verdict["results"]


@pytest.mark.parametrize(
    "variable, folder", [("switch_qos_intended_dir", "intended"), ("switch_qos_backup_dir", "backups")]
)
def test_installed_push_folders_are_the_inventorys_project(
    installed: InstalledCollection, variable: str, folder: str
) -> None:
    """switch_qos's defaults, evaluated by the installed collection's filters for the checkout's
    inventory from another folder: the checkout's intended/ (where the render writes) and backups/,
    neither the run folder nor inside the installed collection."""
    role = installed.collections / "ansible_collections/gpunet/fabric/roles/switch_qos"
    defaults = yaml.safe_load((role / "defaults" / "main.yml").read_text())
    run = _run(
        [str(installed.venv / "bin" / "ansible"), "localhost", "-i", str(PROD), *VAULT,
         "-m", "ansible.builtin.debug", "-a", f"msg={defaults[variable]}"],
        _env(installed.collections, installed.venv), installed.workdir, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f'"msg": "{REPO_ROOT / folder}"' in run.stdout, run.stdout


def _requirements(file: str = "requirements.yml") -> dict[str, str]:
    document = yaml.safe_load((REPO_ROOT / file).read_text())
    return {entry["name"]: entry["version"] for entry in document["collections"]}


def _task_collections(text: str) -> set[str]:
    """The collections of the FQCN task keys (`- ns.name.module:`) of a playbook or task file."""
    return set(re.findall(r"^\s*-?\s*([a-z_]+\.[a-z_]+)\.[a-z_]+:", text, flags=re.MULTILINE))


def test_gpunet_depends_on_ansible_core_not_the_bundle() -> None:
    """The roles' other collections come from requirements.yml (scripts/install-collections.sh),
    not from the 54 MB `ansible` bundle."""
    names = [
        Requirement(dep).name
        for dep in tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    ]
    assert "ansible-core" in names and "ansible" not in names, names


def test_requirements_and_galaxy_dependencies_agree() -> None:
    galaxy = yaml.safe_load((COLLECTION_META / "galaxy.yml").read_text())
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
        used.update(_task_collections(path.read_text()))
    assert used - {"ansible.builtin", "gpunet.fabric"} <= set(_requirements()), used


def test_the_test_collections_cover_molecules_driver_and_the_tests_connections() -> None:
    """A fresh venv has ansible-core only: what Molecule's podman driver playbooks call and the
    `ansible_connection:` plugins the tests name must come from requirements-test.yml."""
    import molecule_plugins.podman

    playbooks = Path(molecule_plugins.podman.__file__).parent / "playbooks"
    driver = set().union(*(_task_collections(path.read_text()) for path in playbooks.glob("*.yml")))
    connections = {
        match
        for path in (REPO_ROOT / "tests").rglob("*.py")
        for match in re.findall(r"ansible_connection:\s*([a-z_]+\.[a-z_]+)\.[a-z_]+", path.read_text())
    }
    assert "containers.podman" in driver | connections, (driver, connections)
    needed = (driver | connections) - {"ansible.builtin"}
    assert needed <= set(_requirements("requirements-test.yml")) | set(_requirements()), needed


@pytest.mark.parametrize(
    ("file", "name"),
    [(file, name) for file in ("requirements.yml", "requirements-test.yml") for name in _requirements(file)],
)
def test_the_tested_collection_versions_satisfy_the_requirements(file: str, name: str) -> None:
    source = _installed_collection(name)
    assert source, f"{name} is not installed (scripts/install-collections.sh)"
    version = json.loads((source / "MANIFEST.json").read_text())["collection_info"]["version"]
    assert version in SpecifierSet(_requirements(file)[name]), f"{name} {version} is outside {file}'s range"
