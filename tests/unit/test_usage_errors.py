"""Usage mistakes, run as the user runs them (the installed commands as subprocesses): each exits 2
(or the command's documented code) with one line saying what is wrong, never 1 "internal error",
and touches nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES_DIR, REPO_ROOT

INVENTORY = FIXTURES_DIR / "render" / "nxos_mixed_speeds" / "hosts.yml"
ARTIFACTS = FIXTURES_DIR / "artifacts" / "healthy"
BIN = Path(sys.executable).parent


def _foreign_folder(tmp: Path) -> None:
    (tmp / "docs").mkdir()
    (tmp / "docs" / "guide.md").write_text("# mine\n")


def _non_empty_folder(tmp: Path) -> None:
    (tmp / "inv").mkdir()
    (tmp / "inv" / "hosts.yml").write_text("all: {}\n")


def _traffic_class_file(tmp: Path) -> None:
    (tmp / "tc").write_text("error 106\n")


# (id, command, argv with {tmp} and {inv}, prepare(tmp) or None, exit code, the one stderr line)
CASES = [
    (
        "render --out a file",
        "gpunet",
        ["render", "-i", "{inv}", "--out", "README.md"],
        None,
        2,
        "gpunet render: README.md: is not a folder; give --out a folder (it is created if missing)",
    ),
    (
        "render --out /dev/null",
        "gpunet",
        ["render", "-i", "{inv}", "--out", "/dev/null"],
        None,
        2,
        "gpunet render: /dev/null: is not a folder; give --out a folder (it is created if missing)",
    ),
    (
        "render --out a folder of foreign files",
        "gpunet",
        ["render", "-i", "{inv}", "--out", "{tmp}/docs"],
        _foreign_folder,
        2,
        "gpunet render: {tmp}/docs: holds 1 file(s) gpunet did not write (guide.md) and no "
        ".gpunet-render.json; choose an empty or new folder, or pass --force to write beside them",
    ),
    (
        "render --out under a file",
        "gpunet",
        ["render", "-i", "{inv}", "--out", "README.md/intended"],
        None,
        2,
        "gpunet render: README.md/intended: cannot write (Not a directory); 0 file(s) written or removed "
        "before",
    ),
    (
        "plan --write-inventory onto a file",
        "gpunet",
        ["plan", "--gpus", "8", "--write-inventory", "README.md"],
        None,
        2,
        "README.md: is not a folder (expected a new folder for the inventory)",
    ),
    (
        "plan --write-inventory into a non-empty folder",
        "gpunet",
        ["plan", "--gpus", "8", "--write-inventory", "{tmp}/inv"],
        _non_empty_folder,
        2,
        "{tmp}/inv: is not empty; gpunet plan never overwrites an inventory (expected a new folder)",
    ),
    (
        "validate --output a folder",
        "gpunet-validate",
        ["--from-artifacts", str(ARTIFACTS), "--output", "{tmp}"],
        None,
        2,
        "gpunet-validate: --output {tmp}: is a folder; give a file name",
    ),
    (
        "validate --output under a file",
        "gpunet-validate",
        ["--from-artifacts", str(ARTIFACTS), "--output", "README.md/report.txt"],
        None,
        2,
        "gpunet-validate: --output README.md/report.txt: its folder README.md is not a folder",
    ),
    (
        "validate --output in a missing folder",
        "gpunet-validate",
        ["--from-artifacts", str(ARTIFACTS), "--output", "{tmp}/no/such/report.txt"],
        None,
        2,
        "gpunet-validate: --output {tmp}/no/such/report.txt: its folder {tmp}/no/such does not exist",
    ),
    (
        "parse traffic-class on text ending in a number",
        "gpunet",
        ["parse", "traffic-class", "{tmp}/tc"],
        _traffic_class_file,
        3,  # gpunet parse: unparseable input
        "gpunet parse: {tmp}/tc: not a traffic_class file: expected one line 'Global tclass=N' or 'N' "
        "with N 0..255, got 'error 106'",
    ),
]


@pytest.mark.parametrize(
    ("command", "argv", "prepare", "code", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_usage_mistake_is_one_clear_line(
    tmp_path: Path, command: str, argv: list[str], prepare, code: int, line: str
) -> None:
    if command == "gpunet-validate" and not ARTIFACTS.is_dir():
        pytest.skip("artifacts fixture not present")
    if prepare:
        prepare(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    readme = (REPO_ROOT / "README.md").read_text()
    args = [arg.format(tmp=tmp_path, inv=INVENTORY) for arg in argv]
    run = subprocess.run(
        [str(BIN / command), *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert (run.returncode, run.stderr.splitlines()) == (code, [line.format(tmp=tmp_path)])
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert (REPO_ROOT / "README.md").read_text() == readme
