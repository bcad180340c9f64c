"""Render never writes outside --out (issue 34): a switch name that is no file name stops the
render before anything is written, from the CLI (the inventory check) and from write_intended
itself (a caller that skipped the check); a file in the folder that is a symbolic link is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.render import RenderedSwitch, write_intended
from gpunet.render.manifest import MANIFEST_NAME, RenderFolderError
from tests.conftest import FIXTURES_DIR

BROKEN = FIXTURES_DIR / "inventories" / "broken"

# (fixture, the first stderr line's start)
CLI_CASES = [
    ("host_name_path_escape", "../../../escaped: breaks the host name rule"),
    ("host_name_absolute_path", "/tmp/spine01: breaks the host name rule"),
    ("host_name_shell_word", "gpu08$(touch${IFS}/tmp/x): breaks the host name rule"),
]


@pytest.mark.parametrize(("fixture", "first_line"), CLI_CASES)
def test_render_of_a_badly_named_switch_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixture: str, first_line: str
) -> None:
    out = tmp_path / "a" / "b" / "c" / "out"
    assert main(["render", "-i", str(BROKEN / fixture), "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(first_line)
    assert err[-1].endswith("; nothing rendered")
    assert [p for p in tmp_path.rglob("*") if not p.is_dir()] == []
    assert not Path("/tmp/spine01.cfg").exists()


def _switch(name: str) -> RenderedSwitch:
    return RenderedSwitch(name, "eos", f"hostname {name}\n", f"# {name}\n")


@pytest.mark.parametrize("name", ["../escaped", "/tmp/abs", "leaf\n01", "sub/leaf01"])
def test_write_intended_refuses_a_name_before_writing(tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    rendered = {"leaf01": _switch("leaf01"), name: _switch(name)}
    with pytest.raises(RenderFolderError, match=r"breaks the host name rule.*; nothing was written"):
        write_intended(rendered, out)
    assert not out.exists()
    assert [p for p in tmp_path.rglob("*")] == []


@pytest.mark.parametrize("linked", ["leaf01.cfg", MANIFEST_NAME])
def test_a_symlink_in_the_folder_is_never_written_through(tmp_path: Path, linked: str) -> None:
    out, target = tmp_path / "out", tmp_path / "precious"
    out.mkdir()
    target.write_text("precious\n")
    (out / linked).symlink_to(target)
    with pytest.raises(RenderFolderError, match=f"{linked}: is a symbolic link"):
        write_intended({"leaf01": _switch("leaf01")}, out, force=True)
    assert target.read_text() == "precious\n"
