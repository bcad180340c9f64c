"""Rendering in several processes prints exactly what one process prints, and records the same
reuse keys, so the next render reuses the same switches."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from gpunet.forked import WorkerLost
from gpunet.model.check import load_fabric
from gpunet.render import renderer
from gpunet.render.renderer import PARALLEL_FROM_SWITCHES, render_fabric, render_processes
from gpunet.render.reuse import RenderReuse
from tests.conftest import FIXTURES_DIR, REPO_ROOT

SOURCES = [
    REPO_ROOT / "inventories" / "lab",
    *sorted((FIXTURES_DIR / "inventories" / "valid").iterdir()),
]


def _source(path: Path) -> Path:
    return path / "hosts.yml" if (path / "hosts.yml").is_file() else path


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_several_processes_print_what_one_prints(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUNET_RENDER_CACHE", str(tmp_path / "cache"))
    fabric = load_fabric(_source(source))
    one_reuse, several_reuse = RenderReuse(tmp_path / "one"), RenderReuse(tmp_path / "several")
    one = render_fabric(fabric, one_reuse, jobs=1)
    several = render_fabric(fabric, several_reuse, jobs=3)
    assert list(several) == list(one) == sorted(fabric.switches)
    assert several == one
    assert several_reuse._records == one_reuse._records and one_reuse._records


@pytest.mark.parametrize(
    ("jobs", "switches", "expected"),
    [(None, PARALLEL_FROM_SWITCHES - 1, 1), (1, 5000, 1), (4, 2, 2), (2, 5000, 2)],
)
def test_render_processes(jobs: int | None, switches: int, expected: int) -> None:
    assert render_processes(jobs, switches) == expected


def test_a_killed_worker_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def killed(*_: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(renderer, "_print_switch", killed)
    with pytest.raises(WorkerLost):
        render_fabric(load_fabric(_source(SOURCES[0])), jobs=2)
