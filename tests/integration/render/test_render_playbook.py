"""playbooks/render.yml in real ansible-playbook runs: writes once, then changes nothing; check mode
with --diff shows the change and writes nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import FIXTURES_DIR
from tests.playbook import run_playbook

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
