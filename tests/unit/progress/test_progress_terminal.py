"""The real commands show progress on a pseudo-terminal and print no control characters into a
pipe: `gpunet render` (inventory reading and rendering) and `gpunet-validate --from-artifacts`
(judging), each run as its own process."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES_DIR, REPO_ROOT

BIN = Path(sys.executable).parent
LAB = REPO_ROOT / "inventories" / "lab"
ARTIFACTS = FIXTURES_DIR / "artifacts" / "healthy"


def _commands(tmp_path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (command, progress labels it must show on a terminal)"""
    return {
        "render": (
            [str(BIN / "gpunet"), "render", "-i", str(LAB), "--out", str(tmp_path / "out")],
            ["reading inventory: host", "rendering: switch"],
        ),
        "validate": (
            [str(BIN / "gpunet-validate"), "--from-artifacts", str(ARTIFACTS), "--no-color"],
            ["judging: check"],
        ),
    }


def _run_on_terminal(command: list[str]) -> str:
    controller, terminal = pty.openpty()
    env = {**os.environ, "GPUNET_PARSE_CACHE": "off", "GPUNET_RENDER_CACHE": "off"}
    process = subprocess.Popen(
        command, stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=REPO_ROOT
    )
    os.close(terminal)
    seen = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        seen += chunk
    process.wait(timeout=60)
    os.close(controller)
    return seen.decode(errors="replace")


@pytest.mark.parametrize("name", ["render", "validate"])
def test_progress_on_a_terminal(name: str, tmp_path: Path) -> None:
    if name == "validate" and not ARTIFACTS.is_dir():
        pytest.skip("artifacts fixture not present")
    command, labels = _commands(tmp_path)[name]
    seen = _run_on_terminal(command)
    for label in labels:
        assert f"\r{label} 1/" in seen, seen[-500:]
    assert "\r\033[K" in seen  # the line is cleared at the end


@pytest.mark.parametrize("name", ["render", "validate"])
def test_no_progress_into_a_pipe(name: str, tmp_path: Path) -> None:
    if name == "validate" and not ARTIFACTS.is_dir():
        pytest.skip("artifacts fixture not present")
    command, labels = _commands(tmp_path)[name]
    env = {**os.environ, "GPUNET_PARSE_CACHE": "off", "GPUNET_RENDER_CACHE": "off"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=120)
    assert done.returncode in (0, 4), done.stderr
    for label in labels:
        assert label not in done.stdout + done.stderr
    assert "\r" not in done.stdout + done.stderr
