"""A render reuses a switch's files only when its inputs, the templates and the files on disk are
all what the last render into that folder had; the output is always what a fresh render writes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.render import renderer, reuse
from tests.conftest import REPO_ROOT

LAB = REPO_ROOT / "inventories" / "lab"


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Names of the switches whose templates were printed, per render."""
    monkeypatch.setenv(reuse.CACHE_ENV, str(tmp_path / "cache"))
    names: list[str] = []
    original = renderer._environment

    class Counting:
        def get_template(self, name: str) -> object:
            template = original().get_template(name)
            if name.endswith(renderer.CONFIG_TEMPLATE):
                names.append(name)
            return template

    monkeypatch.setattr(renderer, "_environment", lambda: Counting())
    return names


def _render(inventory: Path, out: Path, *extra: str) -> None:
    assert main(["render", "-i", str(inventory), "--out", str(out), *extra]) in (0, 3)


def _files(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


def _edit_config(out: Path) -> None:
    path = sorted(out.glob("*.cfg"))[0]
    path.write_text(path.read_text() + "! hand edit\n")


def _delete_summary(out: Path) -> None:
    sorted(out.glob("*.md"))[0].unlink()


def _change_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "_code_fingerprint", lambda: b"another template set")


CHANGES: dict[str, tuple[Callable[..., None], int]] = {
    # change -> how many switches print again (of the lab's)
    "nothing": (lambda out, mp: None, 0),
    "a config edited by hand": (lambda out, mp: _edit_config(out), 1),
    "a summary deleted": (lambda out, mp: _delete_summary(out), 1),
    "templates or render code changed": (lambda out, mp: _change_templates(mp), -1),  # all
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_second_render_prints_only_what_changed(
    change: str, printed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "intended"
    _render(LAB, out)
    switches = len(printed)
    assert switches > 1
    fresh = _files(out)
    apply, expected = CHANGES[change]
    apply(out, monkeypatch)
    printed.clear()
    _render(LAB, out)
    assert len(printed) == (switches if expected == -1 else expected)
    assert _files(out) == fresh


def test_an_inventory_change_prints_that_switch_again(printed: list[str], tmp_path: Path) -> None:
    inventory = tmp_path / "inventory"
    shutil.copytree(LAB, inventory)
    out = tmp_path / "intended"
    _render(inventory, out)
    host_file = sorted((inventory / "host_vars").glob("leaf*"))[0]
    text = host_file.read_text()
    assert "cable_length_m: " in text
    host_file.write_text(text.replace("cable_length_m: ", "cable_length_m: 1", 1))
    printed.clear()
    _render(inventory, out)
    assert len(printed) == 1
    reference = tmp_path / "reference"
    _render(inventory, reference, "--force")
    assert _files(out) == _files(reference)


def test_check_never_reuses(printed: list[str], tmp_path: Path) -> None:
    out = tmp_path / "intended"
    _render(LAB, out)
    switches = len(printed)
    printed.clear()
    _render(LAB, out, "--check")
    assert len(printed) == switches
