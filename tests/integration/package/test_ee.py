"""The execution environment image (execution-environment.yml), built offline by scripts/build-ee.sh
from the project's base image: inside it, ansible-playbook runs the preflight and the render of the
example inventory from the installed gpunet.fabric collection (render only, no connection), and
gpunet-validate --from-artifacts judges the validation fixtures with the checkout's verdicts.

Slow the first time (about 3 minutes on 2 busy cores: the image installs gpunet's dependencies from
staged wheels); podman's layer cache makes later builds with the same inputs shorter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet

pytestmark = pytest.mark.podman

REPO_ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
TAG = "localhost/gpunet-ee:test"
PROD = REPO_ROOT / "inventories" / "prod"
ARTIFACTS = REPO_ROOT / "tests" / "fixtures" / "artifacts"
# Fixture -> the exit code gpunet-validate gives it (0 healthy, 4 problems found).
VERDICTS = {"healthy": 0, "bad_nic": 4}


def _podman_env() -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "CONTAINERS_CONF": str(REPO_ROOT / "molecule" / "containers.conf"),
    }


@pytest.fixture(scope="module")
def image() -> str:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed")
    built = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build-ee.sh"), TAG],
        capture_output=True, text=True, env=_podman_env(), timeout=1200, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return TAG


def _in_image(
    image: str, *command: str, mounts: tuple[tuple[Path, str], ...] = ()
) -> subprocess.CompletedProcess[str]:
    volumes = [arg for source, target in mounts for arg in ("-v", f"{source}:{target}")]
    return subprocess.run(
        ["podman", "run", "--rm", "--network", "none", *volumes, image, *command],
        capture_output=True, text=True, env=_podman_env(), timeout=600, check=False,
    )  # fmt: skip


def test_the_image_runs_preflight_and_render(image: str, tmp_path: Path) -> None:
    out = tmp_path / "intended"
    out.mkdir()
    out.chmod(0o777)  # the image runs as uid 1000
    run = _in_image(
        image, "ansible-playbook", "gpunet.fabric.site", "-i", "/inventory", "--tags", "render",
        "--vault-password-file", "/inventory/vault-password.txt", "-e", "render_out_dir=/out",
        mounts=((PROD, "/inventory:ro"), (out, "/out")),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "fabric prod: 8 GPU hosts, 10 switches" in run.stdout  # the preflight's summary
    committed = REPO_ROOT / "intended" / "prod"
    assert sorted(p.name for p in out.glob("*.cfg")) == sorted(p.name for p in committed.glob("*.cfg"))
    for config in committed.glob("*.cfg"):
        assert (out / config.name).read_text() == config.read_text(), config.name


def test_the_image_has_the_required_collections(image: str) -> None:
    """gpunet.fabric and requirements.yml's collections, installed where ansible-builder puts them
    (the image has ansible-core, not the `ansible` bundle), at versions requirements.yml allows."""
    run = _in_image(image, "ansible-galaxy", "collection", "list", "--format", "json")
    assert run.returncode == 0, run.stderr
    installed = json.loads(run.stdout).get("/usr/share/ansible/collections/ansible_collections", {})
    assert "gpunet.fabric" in installed, installed
    required = yaml.safe_load((REPO_ROOT / "requirements.yml").read_text())["collections"]
    for entry in required:
        assert entry["name"] in installed, installed
        assert installed[entry["name"]]["version"] in SpecifierSet(entry["version"]), entry


@pytest.mark.parametrize("fixture", sorted(VERDICTS))
def test_the_image_judges_artifacts_like_the_checkout(image: str, fixture: str) -> None:
    command = ("gpunet-validate", "--from-artifacts", "/artifacts", "--format", "json")
    run = _in_image(image, *command, mounts=((ARTIFACTS / fixture, "/artifacts:ro"),))
    assert run.returncode == VERDICTS[fixture], run.stdout[-2000:] + run.stderr[-2000:]
    checkout = subprocess.run(
        [str(BIN / "gpunet-validate"), *command[1:2], str(ARTIFACTS / fixture), *command[3:]],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checkout.returncode == VERDICTS[fixture]
    assert json.loads(run.stdout)["summary"] == json.loads(checkout.stdout)["summary"]
