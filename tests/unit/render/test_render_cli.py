"""`gpunet render`: exit codes and what it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.render.cli import EXIT_STALE
from gpunet.render.manifest import MANIFEST_NAME
from tests.conftest import FIXTURES_DIR

INVENTORY = FIXTURES_DIR / "render" / "nxos_mixed_speeds" / "hosts.yml"
BROKEN = FIXTURES_DIR / "inventories" / "broken" / "unknown_platform"


def test_check_fails_until_rendered_then_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "intended"
    assert main(["render", "-i", str(INVENTORY), "--out", str(out), "--check"]) == EXIT_STALE
    assert "missing:" in capsys.readouterr().out
    assert not out.exists()

    assert main(["render", "-i", str(INVENTORY), "--out", str(out)]) == 0
    assert "created:" in capsys.readouterr().out
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST_NAME, "leaf01.cfg", "leaf01.md"]

    assert main(["render", "-i", str(INVENTORY), "--out", str(out), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_check_fails_on_a_hand_edited_file_and_shows_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["render", "-i", str(INVENTORY), "--out", str(tmp_path)])
    config = tmp_path / "leaf01.cfg"
    config.write_text(config.read_text().replace("mtu 9216", "mtu 1500", 1))
    capsys.readouterr()
    assert main(["render", "-i", str(INVENTORY), "--out", str(tmp_path), "--check", "--diff"]) == EXIT_STALE
    output = capsys.readouterr().out
    assert "changed:" in output
    assert re.search(r"^-\s+mtu 1500$", output, re.MULTILINE)
    assert re.search(r"^\+\s+mtu 9216$", output, re.MULTILINE)


def test_an_invalid_inventory_renders_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not BROKEN.is_dir():
        pytest.skip("broken-inventory fixture not present")
    assert main(["render", "-i", str(BROKEN), "--out", str(tmp_path / "x")]) == 2
    assert "nothing rendered" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_stale_is_neither_an_internal_error_nor_a_usage_error() -> None:
    assert EXIT_STALE not in (0, 1, 2)


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        ([], ["created: {out}/leaf01.cfg", "created: {out}/leaf01.md",
              "{out}: 2 file(s) written or removed, 0 unchanged"]),
        (["--quiet"], ["{out}: 2 file(s) written or removed, 0 unchanged"]),
        # notes about the folder stay: they ask for an action
        (["--quiet", "--check"],
         ["note: {out}/.gpunet-render.json is missing or out of date; a render writes it",
          "{out}: 2 file(s) out of date: run gpunet render"]),
    ],
)  # fmt: skip
def test_quiet_prints_the_summary_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], lines: list[str]
) -> None:
    out = tmp_path / "intended"
    main(["render", "-i", str(INVENTORY), "--out", str(out), *args])
    assert capsys.readouterr().out.splitlines() == [line.format(out=out) for line in lines]
