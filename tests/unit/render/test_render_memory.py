"""What keeps a large render's memory down gives the same files: workers that print into a staging
folder send back StagedSwitches that read as the text one process prints; write_intended writes
them as it writes the text; the parsed inventory is freed before printing; and with the render
cache off the inventory is not spelled out for a key nobody looks up."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.model.check import load_fabric
from gpunet.model.loader import load_inventory
from gpunet.render import fabric_reuse, pipeline
from gpunet.render.intended import write_intended
from gpunet.render.renderer import StagedSwitch, render_fabric
from gpunet.render.reuse import CACHE_ENV, RenderReuse
from tests.conftest import FIXTURES_DIR, REPO_ROOT

LAB = REPO_ROOT / "inventories" / "lab"
PROD = REPO_ROOT / "inventories" / "prod"
SOURCES = [LAB, PROD, *sorted((FIXTURES_DIR / "inventories" / "valid").iterdir())]


def _source(path: Path) -> Path:
    return path / "hosts.yml" if (path / "hosts.yml").is_file() else path


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_staged_workers_print_what_one_process_prints(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    fabric = load_fabric(_source(source), PROD / "vault-password.txt")
    one_reuse, staged_reuse = RenderReuse(tmp_path / "one"), RenderReuse(tmp_path / "staged")
    (tmp_path / "staging").mkdir()
    one = render_fabric(fabric, one_reuse, jobs=1)
    staged = render_fabric(fabric, staged_reuse, jobs=3, staging=tmp_path / "staging")
    assert list(staged) == list(one) == sorted(fabric.switches)
    for name, switch in staged.items():
        assert isinstance(switch, StagedSwitch)
        assert (switch.name, switch.platform, switch.config, switch.summary) == (
            one[name].name,
            one[name].platform,
            one[name].config,
            one[name].summary,
        )
        digests = (one[name].config_digest, one[name].summary_digest)
        assert (switch.config_digest, switch.summary_digest) == digests
    assert staged_reuse._records == one_reuse._records and one_reuse._records


@pytest.mark.parametrize(
    ("before", "check"),
    [
        ("empty", False),
        ("one file edited, one switch gone", False),
        ("one file edited, one switch gone", True),
    ],
)
def test_staged_text_is_written_and_reported_as_the_text(tmp_path: Path, before: str, check: bool) -> None:
    fabric = load_fabric(LAB)
    (tmp_path / "staging").mkdir()
    one = render_fabric(fabric, jobs=1)
    staged = render_fabric(fabric, jobs=2, staging=tmp_path / "staging")
    reports = []
    for label, rendered in (("text", one), ("staged", staged)):
        out = tmp_path / label
        if before != "empty":
            write_intended({**one, "gone01": one[sorted(one)[0]]}, out)
            (out / f"{sorted(one)[1]}.cfg").write_text("edited\n")
        reports.append((write_intended(rendered, out, check=check), _files(out)))
    (text_report, text_files), (staged_report, staged_files) = reports
    assert staged_files == text_files
    assert (staged_report.missing, staged_report.changed, staged_report.extra, staged_report.unchanged) == (
        text_report.missing,
        text_report.changed,
        text_report.extra,
        text_report.unchanged,
    )
    assert staged_report.digests == text_report.digests and staged_report.diffs == text_report.diffs
    assert staged_report.manifest_current == text_report.manifest_current


@pytest.mark.parametrize("check", [False, True])
def test_the_parsed_inventory_is_freed_before_printing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: bool
) -> None:
    monkeypatch.setenv(CACHE_ENV, "off")
    alive_when_printing = []
    original = pipeline.render_fabric

    def printing(*args: object, **kwargs: object) -> object:
        gc.collect()
        alive_when_printing.append(raw_ref() is not None)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "render_fabric", printing)
    raw = load_inventory(LAB)
    raw_ref = weakref.ref(raw)
    arguments = [raw]
    del raw
    outcome = pipeline.render_inventory(
        arguments.pop(), lambda _: tmp_path / "out", check=check, force=False, with_diffs=False
    )
    assert outcome.report is not None
    assert alive_when_printing == [False]


@pytest.mark.parametrize(("setting", "keys_spelled"), [("off", 0), ("no", 0), ("folder", 1)])
def test_the_inventory_key_is_spelled_only_with_the_render_cache_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, keys_spelled: int
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache") if setting == "folder" else setting)
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    spelled = []
    original = fabric_reuse._key

    def counting(raw: object) -> object:
        spelled.append(1)
        return original(raw)  # type: ignore[arg-type]

    monkeypatch.setattr(fabric_reuse, "_key", counting)
    assert main(["render", "-i", str(LAB), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert len(spelled) == keys_spelled
    assert _files(tmp_path / "out") == _files(REPO_ROOT / "intended" / "lab")
