"""playbooks/render.yml in real ansible-playbook runs: writes once, then changes nothing; check mode
with --diff shows the change and writes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gpunet.cli import main
from tests.conftest import FIXTURES_DIR, REPO_ROOT
from tests.playbook import run_playbook

LAB = REPO_ROOT / "inventories" / "lab"
INVENTORY = FIXTURES_DIR / "render" / "nxos_mixed_speeds" / "hosts.yml"


def _render(out_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_playbook(
        "playbooks/render.yml", "-i", str(INVENTORY), "-e", f"render_out_dir={out_dir}", *args
    )


def test_render_playbook_writes_once_then_is_idempotent_and_check_diff_shows_changes(tmp_path: Path) -> None:
    first = _render(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "changed=1" in first.stdout
    expected = FIXTURES_DIR / "render" / "nxos_mixed_speeds" / "expected" / "leaf01.cfg"
    assert (tmp_path / "leaf01.cfg").read_text() == expected.read_text()

    second = _render(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "changed=0" in second.stdout
    assert "up to date (2 files)" in " ".join(second.stdout.split())  # the callback wraps long lines

    config = tmp_path / "leaf01.cfg"
    config.write_text(config.read_text().replace("speed 400000", "speed 100000"))
    checked = _render(tmp_path, "--check", "--diff")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "changed=1" in checked.stdout
    assert "-  speed 100000" in checked.stdout and "+  speed 400000" in checked.stdout
    assert "speed 100000" in config.read_text(), "check mode must not write"


def test_render_playbook_renders_again_after_a_host_var_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The play's second run with nothing changed skips the build (fabric_reuse.py); an edited
    host_var must still reach the files, exactly as a fresh `gpunet render` writes them."""
    monkeypatch.setenv("GPUNET_RENDER_CACHE", str(tmp_path / "cache"))
    inventory = tmp_path / "inventory"
    shutil.copytree(LAB, inventory)
    out = tmp_path / "intended"

    def play() -> subprocess.CompletedProcess[str]:
        return run_playbook("playbooks/render.yml", "-i", str(inventory), "-e", f"render_out_dir={out}")

    assert "changed=1" in play().stdout
    again = play()
    assert "changed=0" in again.stdout, again.stdout + again.stderr
    host_file = inventory / "host_vars" / "leaf01.yml"
    host_file.write_text(host_file.read_text().replace("cable_length_m: 3}", "cable_length_m: 40}", 1))
    edited = play()
    assert edited.returncode == 0, edited.stdout + edited.stderr
    assert "changed=1" in edited.stdout
    reference = tmp_path / "reference"
    monkeypatch.setenv("GPUNET_RENDER_CACHE", "off")
    assert main(["render", "-i", str(inventory), "--out", str(reference)]) == 0
    assert _files(out) == _files(reference)


def _files(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}
