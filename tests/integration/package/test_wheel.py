"""The built wheel works outside a checkout: installed into a fresh virtualenv and run from a
temporary folder, `gpunet inventory check`, `render`, `plan` and `gpunet-validate --from-artifacts`
give exactly what the checkout's gpunet gives.

Cheap by design (about 20 s): the wheel is built without build isolation from a clean copy of the
package source, installed with --no-deps, and the fresh venv reaches the test venv's dependencies
through a .pth line (a path added that way does not run the .pth files there, so the test venv's
editable gpunet stays invisible; see venvs.py). The test asserts the gpunet that runs is the wheel's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.package.venvs import fresh_venv

REPO_ROOT = Path(__file__).resolve().parents[3]
CHECKOUT_BIN = Path(sys.executable).parent
PROD = REPO_ROOT / "inventories" / "prod"
HEALTHY_ARTIFACTS = REPO_ROOT / "tests" / "fixtures" / "artifacts" / "healthy"
BAD_NIC_ARTIFACTS = REPO_ROOT / "tests" / "fixtures" / "artifacts" / "bad_nic"
# What the wheel must carry besides Python modules: one file of each kind of package data.
EXPECTED_DATA = (
    "gpunet/templates/switch/summary.md.j2",
    "gpunet/templates/switch/nxos/config.j2",
    "gpunet/model/role_variables.json",
    "gpunet/hardware/models.yml",
    "gpunet/grammar/junos.yml",
    "gpunet/lab/images/node/Containerfile",
    "gpunet/lab/images/ntp/chrony-server.conf",
    "gpunet/validate/checks/catalog.yml",
)


@dataclass(frozen=True)
class Installed:
    source: Path  # the clean copy the wheel was built from
    wheel: Path
    bin: Path
    venv: Path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO_ROOT / name, source / name)
    # A clean copy: a stale build/ or egg-info in the checkout must not leak into the wheel.
    shutil.copytree(
        REPO_ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    dist = work / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, source]
    )
    (wheel,) = dist.glob("gpunet-*.whl")

    venv = work / "venv"
    python = fresh_venv(venv)
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel])
    return Installed(source=source, wheel=wheel, bin=venv / "bin", venv=venv)


def _run(command: list, cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, env=_env(), check=False
    )
    assert done.returncode in ok, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip()


def _env() -> dict[str, str]:
    """No PYTHONPATH or virtualenv of the caller may put the checkout's gpunet in front."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    env["PATH"] = "/usr/bin:/bin"
    return env


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_the_wheel_carries_every_kind_of_package_data(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    missing = [name for name in EXPECTED_DATA if name not in names]
    assert not missing, f"{installed.wheel.name} lacks {missing}"
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    metadata = zipfile.ZipFile(installed.wheel).read("gpunet-0.1.0.dist-info/METADATA").decode()
    assert "Provides-Extra: lab" in metadata and "License-Expression: Apache-2.0" in metadata


def test_a_wheel_built_from_the_sdist_carries_the_same_files(installed: Installed, tmp_path: Path) -> None:
    build_sdist = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    name = _run([sys.executable, "-c", build_sdist, tmp_path / "sdist"], cwd=installed.source).splitlines()[
        -1
    ]
    with tarfile.open(tmp_path / "sdist" / name) as sdist:
        sdist.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            tmp_path,
            unpacked,
        ]
    )
    (from_sdist,) = tmp_path.glob("gpunet-*.whl")
    assert set(zipfile.ZipFile(from_sdist).namelist()) == set(zipfile.ZipFile(installed.wheel).namelist())


def test_the_gpunet_that_runs_is_the_wheels(installed: Installed, tmp_path: Path) -> None:
    where = _run([installed.bin / "python", "-c", "import gpunet; print(gpunet.__file__)"], cwd=tmp_path)
    assert Path(where).is_relative_to(installed.venv), where
    assert not Path(where).is_relative_to(REPO_ROOT), where


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param(["gpunet", "inventory", "check", "-i", PROD], id="check-prod"),
        pytest.param(
            [
                "gpunet",
                "inventory",
                "check",
                "--format",
                "json",
                "-i",
                REPO_ROOT / "tests/fixtures/inventories/broken/nic_speed_differs",
            ],
            id="check-broken",
        ),
        pytest.param(["gpunet", "plan", "--gpus", "256", "--switch-radix", "64", "--compare"], id="plan"),
        pytest.param(["gpunet", "plan", "--gpus", "1024", "--format", "json"], id="plan-json"),
        pytest.param(
            ["gpunet-validate", "--from-artifacts", HEALTHY_ARTIFACTS, "--format", "json"],
            id="validate-healthy",
        ),
        pytest.param(
            ["gpunet-validate", "--from-artifacts", BAD_NIC_ARTIFACTS, "--format", "json"],
            id="validate-bad-nic",
        ),
    ],
)
def test_wheel_output_equals_the_checkouts(installed: Installed, tmp_path: Path, arguments: list) -> None:
    command, *rest = arguments
    outputs = []
    for bin_dir, folder in ((CHECKOUT_BIN, tmp_path / "checkout"), (installed.bin, tmp_path / "wheel")):
        folder.mkdir()
        done = subprocess.run(
            [str(bin_dir / command), *map(str, rest)], cwd=folder, capture_output=True, text=True, env=_env()
        )
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0][1], f"{arguments} printed nothing: {outputs[0]}"
    assert outputs[1] == outputs[0]


def test_wheel_renders_what_the_checkout_renders(installed: Installed, tmp_path: Path) -> None:
    trees = []
    for bin_dir, name in ((CHECKOUT_BIN, "checkout"), (installed.bin, "wheel")):
        folder = tmp_path / name
        folder.mkdir()
        _run([bin_dir / "gpunet", "render", "-i", PROD, "--out", folder / "intended"], cwd=folder)
        trees.append(_tree(folder / "intended"))
    assert len([name for name in trees[0] if name.endswith(".cfg")]) == 10  # every switch of prod
    assert trees[1] == trees[0]
    # and both equal the committed intended/prod
    committed = _tree(REPO_ROOT / "intended" / "prod")
    assert {k: v for k, v in trees[1].items() if k.endswith((".cfg", ".md"))} == {
        k: v for k, v in committed.items() if k.endswith((".cfg", ".md"))
    }
