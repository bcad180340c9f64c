"""Reading an artifact file: every size around the read boundaries gives its exact bytes, and a
file that cannot be read is an input error naming it, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpunet.validate.artifacts import FIRST_READ_BYTES, Artifacts, InputError, read_bytes
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
SIZES = [
    0,
    1,
    FIRST_READ_BYTES - 1,
    FIRST_READ_BYTES,
    FIRST_READ_BYTES + 1,
    17 * FIRST_READ_BYTES,
    17 * FIRST_READ_BYTES + 5,
]


@pytest.mark.parametrize("size", SIZES)
def test_read_bytes_gives_the_whole_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "capture.txt"
    content = bytes(index % 251 for index in range(size))
    path.write_bytes(content)
    assert read_bytes(str(path)) == content


# (what stands at the path, the error's words)
UNREADABLE = [
    (None, "hosts/gpu01/ibstat.txt was not collected"),
    ("folder", "hosts/gpu01/ibstat.txt: is a directory \\(only regular files are read\\)"),
]


@pytest.mark.parametrize(("what", "reason"), UNREADABLE)
def test_an_unreadable_capture_is_an_input_error(tmp_path: Path, what: str | None, reason: str) -> None:
    folder = tmp_path / "artifacts"
    (folder / "hosts" / "gpu01").mkdir(parents=True)
    (folder / "manifest.json").write_text((HEALTHY / "manifest.json").read_text())
    if what == "folder":
        (folder / "hosts" / "gpu01" / "ibstat.txt").mkdir()
    with pytest.raises(InputError, match=reason):
        Artifacts(folder).host("gpu01", "ibstat")
