"""The README's quick start without the lab, run as a newcomer would: its block, line for line, in a
copy of the checkout outside it, with a fresh virtualenv (no system site packages, no .pth into the
test venv) that `pip install .` fills from a local wheelhouse and no index, so a dependency
pyproject.toml forgets fails here. HOME is a temporary folder (the block's ~/.venvs/gpunet and
gpunet's ~/.cache land there) and PATH holds only a python3 >= 3.11 and the system's /usr/bin:/bin.

About 60-110 s on a busy 2-core machine, hence the e2e mark (CI's
`make test` runs the e2e set); the wheelhouse is built once per set of versions (wheelhouse.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.package import wheelhouse

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[3]
PROBE = "import gpunet, netmiko; print(gpunet.__file__, netmiko.__file__)"  # both from the fresh venv
BLOCK = re.compile(r"<!-- quickstart:[^\n]*-->\n```sh\n(.*?)```\n<!-- /quickstart -->", re.S)
CLONE = re.compile(r"^git clone \S.* && cd gpunet$")


def quickstart(readme: str) -> list[str]:
    """The block's command lines; the clone is the test's copy of the checkout."""
    match = BLOCK.search(readme)
    assert match, "README.md has no quickstart block"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert CLONE.match(lines[0]), lines[0]
    return lines[1:]


def _copy_checkout(target: Path) -> None:
    """What a clone holds: the tracked files and the new ones not ignored, as they are now."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file() and not source.is_symlink():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
        elif source.is_symlink():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).symlink_to(os.readlink(source))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    work = tmp_path_factory.mktemp("quickstart")
    clone, home, bin_dir = work / "gpunet", work / "home", work / "bin"
    for folder in (clone, home, bin_dir):
        folder.mkdir()
    _copy_checkout(clone)
    wheels = wheelhouse.build(REPO_ROOT / ".cache" / "quickstart-wheelhouse", REPO_ROOT / "pyproject.toml")
    (bin_dir / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        # No index and no pip configuration of this machine: only the wheelhouse.
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
    }
    script = "\n".join(["set -euo pipefail", *(f"echo '$ {line}'\n{line}" for line in quickstart_lines())])
    done = subprocess.run(
        ["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    return done, clone, home


def quickstart_lines() -> list[str]:
    return quickstart((REPO_ROOT / "README.md").read_text())


def test_the_quickstart_runs(run: tuple[subprocess.CompletedProcess[str], Path, Path]) -> None:
    done, clone, _home = run
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
    out = done.stdout
    assert "OK: fabric prod: 8 GPU hosts, 10 switches, 64 NICs" in out
    assert f"{clone}/intended/prod: 0 file(s) written or removed, 20 unchanged" in out
    assert re.search(r"\n\d+ pass, 0 fail, 0 error, 0 skipped, 0 not checked\n", out), out[-3000:]


def test_the_venv_is_fresh_and_runs_its_own_gpunet(
    run: tuple[subprocess.CompletedProcess[str], Path, Path],
) -> None:
    done, _clone, home = run
    assert done.returncode == 0, done.stderr[-3000:]
    venv = home / ".venvs" / "gpunet"
    config = (venv / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config
    test_venv = str(Path(sys.prefix))
    pth_lines = [pth.read_text() for pth in venv.glob("lib/python*/site-packages/*.pth")]
    assert not [text for text in pth_lines if str(REPO_ROOT) in text or test_venv in text]
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PROBE],
        cwd=home, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, check=True,
    ).stdout  # fmt: skip
    assert all(path.startswith(str(venv)) for path in where.split()), where


def test_the_block_is_what_the_readme_promises() -> None:
    """One pip command, no root, Python >= 3.11 stated beside it; and each gpunet line is a real command."""
    lines = quickstart_lines()
    assert [line for line in lines if re.match(r"(\S+/)?pip3? install", line)] == [lines[1]]
    assert not [line for line in lines if re.search(r"\bsudo\b|\bapt(-get)?\b|\bdnf\b|\bmake\b", line)]
    assert "3.11" in lines[0]
