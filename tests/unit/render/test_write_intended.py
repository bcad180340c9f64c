"""write_intended rewrites only changed files, removes left-overs, and writes nothing in check mode."""

from __future__ import annotations

from pathlib import Path

from gpunet.render import RenderedSwitch, write_intended


def _rendered(config: str = "a\n") -> dict[str, RenderedSwitch]:
    return {
        "leaf01": RenderedSwitch("leaf01", "nxos", config, "# leaf01\n"),
        "leaf02": RenderedSwitch("leaf02", "eos", "b\n", "# leaf02\n"),
    }


def test_first_write_creates_every_file(tmp_path: Path) -> None:
    report = write_intended(_rendered(), tmp_path / "out")
    assert report.missing == ["leaf01.cfg", "leaf01.md", "leaf02.cfg", "leaf02.md"]
    assert (tmp_path / "out" / "leaf01.cfg").read_text() == "a\n"


def test_unchanged_files_are_not_rewritten(tmp_path: Path) -> None:
    write_intended(_rendered(), tmp_path)
    before = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    report = write_intended(_rendered(), tmp_path)
    assert report.up_to_date and len(report.unchanged) == 4
    assert {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == before


def test_only_the_changed_file_is_rewritten(tmp_path: Path) -> None:
    write_intended(_rendered(), tmp_path)
    report = write_intended(_rendered("a\nc\n"), tmp_path)
    assert (report.changed, report.missing, report.extra) == (["leaf01.cfg"], [], [])
    assert "+c" in report.diffs["leaf01.cfg"]
    assert (tmp_path / "leaf01.cfg").read_text() == "a\nc\n"


def test_files_of_removed_switches_are_reported_and_removed(tmp_path: Path) -> None:
    write_intended({**_rendered(), "old-leaf": RenderedSwitch("old-leaf", "eos", "x\n", "# x\n")}, tmp_path)
    (tmp_path / "README.txt").write_text("kept: not a rendered file\n")
    report = write_intended(_rendered(), tmp_path)
    assert report.extra == ["old-leaf.cfg", "old-leaf.md"]
    assert report.foreign == ["README.txt"]
    assert not (tmp_path / "old-leaf.cfg").exists()
    assert (tmp_path / "README.txt").exists()


def test_check_mode_writes_nothing_and_reports_every_difference(tmp_path: Path) -> None:
    write_intended({**_rendered(), "spare": RenderedSwitch("spare", "eos", "x\n", "x\n")}, tmp_path)
    (tmp_path / "spare.cfg").unlink()
    (tmp_path / "leaf02.md").unlink()
    report = write_intended(_rendered("z\n"), tmp_path, check=True)
    assert (report.changed, report.missing, report.extra) == (["leaf01.cfg"], ["leaf02.md"], ["spare.md"])
    assert not report.up_to_date
    assert (tmp_path / "leaf01.cfg").read_text() == "a\n"
    assert not (tmp_path / "leaf02.md").exists()
    assert (tmp_path / "spare.md").exists()
