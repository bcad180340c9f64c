"""Where intended/ is: found from the inventory (gpunet.project), never from the working directory."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.project import backups_root, intended_root, project_dir
from tests.conftest import FIXTURES_DIR

FIXTURE = FIXTURES_DIR / "render" / "nxos_mixed_speeds" / "hosts.yml"
FABRIC = "nxos_mixed_speeds"


@pytest.mark.parametrize(
    "layout, inventory, project",
    [
        (["site/inventories/prod/hosts.yml"], "site/inventories/prod", "site"),
        (["site/inventories/prod/hosts.yml"], "site/inventories/prod/hosts.yml", "site"),
        (["site/inventories/hosts.yml"], "site/inventories/hosts.yml", "site"),
        (["site/inventories/prod/dc1/hosts.yml"], "site/inventories/prod/dc1", "site"),
        # outside an inventories/ folder: the folder holding the inventory, never inside an inventory folder
        (["site/lab/hosts.yml"], "site/lab", "site"),
        (["site/hosts.yml"], "site/hosts.yml", "site"),
        (["site/inventories/prod/hosts.yml"], "site/inventories/prod/../prod", "site"),
    ],
)
def test_project_dir(tmp_path: Path, layout: list[str], inventory: str, project: str) -> None:
    for name in layout:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("all: {}\n")
    assert project_dir(tmp_path / inventory) == (tmp_path / project).resolve()


def test_inventories_of_two_projects_are_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "inventories" / "x", tmp_path / "b" / "inventories" / "x"
    assert intended_root([a, tmp_path / "a" / "inventories" / "y"]) == (tmp_path / "a" / "intended").resolve()
    with pytest.raises(ValueError, match="belong to 2 projects"):
        intended_root([a, b])
    with pytest.raises(ValueError, match="none"):
        intended_root([])


@pytest.mark.parametrize(
    "root, folder", [(intended_root, "intended"), (backups_root, "backups")], ids=["intended", "backups"]
)
def test_backups_and_intended_share_the_inventorys_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Callable[..., Path], folder: str
) -> None:
    """Both folders sit in the inventory's project, whatever the working directory (the push's
    backups once defaulted to the playbook's parent, inside an installed collection)."""
    inventory = tmp_path / "site" / "inventories" / "prod"
    inventory.mkdir(parents=True)
    monkeypatch.chdir(inventory)
    assert root(["prod", str(inventory / "hosts.yml")]) == (tmp_path / "site" / folder).resolve()
    with pytest.raises(ValueError, match=f"which project's {folder}/ to use"):
        root([inventory, tmp_path / "other" / "inventories" / "x"])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with its inventory under inventories/, and the working directory somewhere else."""
    inventory = tmp_path / "project" / "inventories" / "site" / "hosts.yml"
    inventory.parent.mkdir(parents=True)
    shutil.copy(FIXTURE, inventory)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path / "project"


@pytest.mark.parametrize("inventory", ["absolute", "relative"])
def test_render_from_another_folder_writes_into_the_projects_intended(
    project: Path, inventory: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "inventories" / "site"
    argument = str(path) if inventory == "absolute" else "../project/inventories/site"
    assert main(["render", "-i", argument, "--quiet"]) == 0
    out = (project / "intended" / FABRIC).resolve()
    assert (out / "leaf01.cfg").is_file()
    assert not (Path.cwd() / "intended").exists()
    assert capsys.readouterr().out.startswith(f"{out}: ")


def test_drift_reads_the_projects_intended(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drift", "-i", str(project / "inventories" / "site")]) == 2
    folder = (project / "intended" / FABRIC).resolve()
    assert f"no reviewed config for leaf01 in {folder}" in capsys.readouterr().err


def test_out_still_overrides(project: Path) -> None:
    assert main(["render", "-i", str(project / "inventories" / "site"), "--out", "here"]) == 0
    assert (Path.cwd() / "here" / "leaf01.cfg").is_file()
    assert not (project / "intended").exists()
