"""`gpunet render --out DIR` removes only what its manifest says it wrote; a folder of someone
else's files without a manifest is refused unless forced; bad --out values are usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.render import RenderedSwitch, write_intended
from gpunet.render.manifest import MANIFEST_NAME, RenderFolderError, digest, manifest_text

DOCS = {"inventory.md": "# the user's docs\n", "notes.cfg": "not a switch\n"}


def _rendered(*names: str) -> dict[str, RenderedSwitch]:
    return {name: RenderedSwitch(name, "eos", f"! {name}\n", f"# {name}\n") for name in names}


def _folder_of_foreign_files(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, content in DOCS.items():
        (folder / name).write_text(content)
    return folder


def _contents(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in folder.iterdir()}


@pytest.mark.parametrize("check", [False, True], ids=["write", "check"])
def test_a_folder_of_foreign_files_without_manifest_is_refused_and_untouched(
    tmp_path: Path, check: bool
) -> None:
    folder = _folder_of_foreign_files(tmp_path)
    with pytest.raises(RenderFolderError) as raised:
        write_intended(_rendered("leaf01"), folder, check=check)
    assert str(raised.value) == (
        f"{folder}: holds 2 file(s) gpunet did not write (inventory.md, notes.cfg) and no "
        f"{MANIFEST_NAME}; choose an empty or new folder, or pass --force to write beside them"
    )
    assert _contents(folder) == DOCS


def test_force_writes_beside_foreign_files_and_leaves_them_alone(tmp_path: Path) -> None:
    folder = _folder_of_foreign_files(tmp_path)
    report = write_intended(_rendered("leaf01"), folder, force=True)
    assert report.foreign == ["inventory.md", "notes.cfg"]
    assert report.missing == ["leaf01.cfg", "leaf01.md"]
    assert {name: _contents(folder)[name] for name in DOCS} == DOCS
    manifest = json.loads((folder / MANIFEST_NAME).read_text())
    assert sorted(manifest["files"]) == ["leaf01.cfg", "leaf01.md"]


def test_with_a_manifest_foreign_files_are_reported_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write_intended(_rendered("leaf01", "leaf02"), folder)
    for name, content in DOCS.items():
        (folder / name).write_text(content)
    report = write_intended(_rendered("leaf01"), folder)
    assert report.extra == ["leaf02.cfg", "leaf02.md"]  # gpunet wrote them: removed
    assert report.foreign == ["inventory.md", "notes.cfg"]
    assert sorted(_contents(folder)) == sorted([MANIFEST_NAME, "leaf01.cfg", "leaf01.md", *DOCS])


def test_a_file_gpunet_wrote_but_someone_edited_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write_intended(_rendered("leaf01", "leaf02"), folder)
    (folder / "leaf02.cfg").write_text("! hand-edited\n")
    report = write_intended(_rendered("leaf01"), folder)
    assert (report.extra, report.edited) == (["leaf02.md"], ["leaf02.cfg"])
    assert (folder / "leaf02.cfg").read_text() == "! hand-edited\n"
    assert not (folder / "leaf02.md").exists()


def test_a_legacy_folder_of_rendered_files_is_adopted(tmp_path: Path) -> None:
    """intended/<fabric>/ from before manifests: only this render's file names, so no refusal."""
    folder = tmp_path / "intended"
    folder.mkdir()
    (folder / "leaf01.cfg").write_text("! old\n")
    (folder / "leaf01.md").write_text("# leaf01\n")
    report = write_intended(_rendered("leaf01"), folder)
    assert (report.changed, report.unchanged, report.foreign) == (["leaf01.cfg"], ["leaf01.md"], [])
    assert (folder / MANIFEST_NAME).read_text() == manifest_text(
        {"leaf01.cfg": "! leaf01\n", "leaf01.md": "# leaf01\n"}
    )


def test_the_manifest_is_deterministic_sorted_and_one_entry_per_line() -> None:
    files = {"b.cfg": "2\n", "a.cfg": "1\n"}
    text = manifest_text(files)
    assert text == manifest_text(dict(reversed(list(files.items()))))
    lines = text.splitlines()
    one, two = digest("1\n"), digest("2\n")
    assert lines[2] == f'    "a.cfg": "{one}",'
    assert lines[3] == f'    "b.cfg": "{two}"'


def test_check_mode_reports_a_missing_manifest_without_writing_it(tmp_path: Path) -> None:
    write_intended(_rendered("leaf01"), tmp_path)
    (tmp_path / MANIFEST_NAME).unlink()
    report = write_intended(_rendered("leaf01"), tmp_path, check=True)
    assert report.up_to_date and not report.manifest_current
    assert not (tmp_path / MANIFEST_NAME).exists()


def test_a_broken_manifest_is_an_error_not_a_licence_to_delete(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    (tmp_path / "leaf09.cfg").write_text("x\n")
    with pytest.raises(RenderFolderError, match=r"not a gpunet render manifest"):
        write_intended(_rendered("leaf01"), tmp_path)
    assert (tmp_path / "leaf09.cfg").exists()


@pytest.mark.parametrize("out_name", ["README.md", "/dev/null"], ids=["a file", "a device"])
def test_an_output_that_is_not_a_folder_is_refused(tmp_path: Path, out_name: str) -> None:
    out = Path(out_name) if out_name.startswith("/") else tmp_path / out_name
    if not out.exists():
        out.write_text("# readme\n")
    with pytest.raises(RenderFolderError, match=r": is not a folder; give --out a folder"):
        write_intended(_rendered("leaf01"), out)
