"""The Markdown report names every host and switch of the inventory, one row each, problems first."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from gpunet.validate.checks import Catalog, load_catalog
from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report.markdown import MAX_OPEN_PASS_ROWS, render_markdown
from gpunet.validate.results import Result, Status
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"
_ROW = re.compile(r"^\| `(?P<device>[^`]+)` \| (?P<kind>[^|]+) \| \S+ (?P<verdict>[a-z ]+) \|")


def _device_rows(text: str) -> list[tuple[str, str]]:
    """(device, verdict) of every device row, in the order printed."""
    return [(m["device"], m["verdict"].strip()) for line in text.splitlines() if (m := _ROW.match(line))]


def _remove(folder: Path, relative: str) -> None:
    (folder / relative).unlink()


# (fixture, catalog checks or None for the default, damage, first device, its verdict)
CASES = [
    ("healthy", None, None, None, "pass"),
    ("bad_nic", None, None, "gpu03", "fail"),  # the suspect NIC's host: most failures
    ("failed_nccl", None, None, "gpu01", "fail"),  # the run's four hosts fail; by name
    ("healthy", ["ntp_offset"], None, "leaf01", "not checked"),  # no switch check selected
    ("healthy", None, "switches/leaf06/after/sonic-show-ecn.txt", "leaf06", "error"),
    ("healthy", None, "hosts/gpu02/chronyc-tracking.txt", "gpu02", "error"),
]


@pytest.mark.parametrize(("fixture", "checks", "damage", "first", "first_verdict"), CASES)
def test_every_device_has_one_row_problems_first(
    tmp_path: Path, fixture: str, checks: list[str] | None, damage: str | None, first: str | None,
    first_verdict: str,
) -> None:  # fmt: skip
    folder = ARTIFACTS / fixture
    if damage:
        folder = tmp_path / fixture
        shutil.copytree(ARTIFACTS / fixture, folder)
        _remove(folder, damage)
    catalog = Catalog(checks, {}, "test") if checks else load_catalog()
    verdict = judge(folder, catalog)
    rows = _device_rows(render_markdown(verdict))
    devices = [*verdict.manifest.hosts, *verdict.manifest.switches]
    assert sorted(name for name, _ in rows) == sorted(devices)  # each device exactly once
    if first is not None:
        assert rows[0] == (first, first_verdict)
    verdicts = [v for _, v in rows]
    # No passing device is printed before a device with a problem.
    last_problem = max((i for i, v in enumerate(verdicts) if v != "pass"), default=-1)
    first_pass = verdicts.index("pass") if "pass" in verdicts else len(verdicts)
    assert last_problem < first_pass
    assert set(verdicts) == ({first_verdict, "pass"} if first else {"pass"})


def test_not_checked_row_gives_the_reason() -> None:
    catalog = Catalog(["ntp_offset"], {}, "test")
    text = render_markdown(judge(ARTIFACTS / "healthy", catalog))
    leaf08 = next(line for line in text.splitlines() if line.startswith("| `leaf08`"))
    assert "no selected check reads junos output" in leaf08


def _scaled(hosts: int, failing: str) -> Verdict:
    """The healthy fixture's manifest stretched to `hosts` hosts, one ntp result each."""
    verdict = judge(ARTIFACTS / "healthy", Catalog(["ntp_offset"], {}, "test"))
    template = next(iter(verdict.manifest.hosts.values()))
    names = [f"gpu{i:04d}" for i in range(hosts)]
    manifest = replace(verdict.manifest, hosts={n: replace(template, name=n) for n in names})
    results = [
        Result("ntp_offset", n, Status.FAIL if n == failing else Status.PASS, "<= 1 ms", "0.1 ms")
        for n in names
    ]
    results += [r for r in verdict.results if r.target in manifest.switches]
    return replace(verdict, manifest=manifest, results=results)


def test_4096_hosts_stay_one_row_each_with_passes_collapsed() -> None:
    text = render_markdown(_scaled(4096, failing="gpu2048"))
    rows = _device_rows(text)
    assert len(rows) == 4096 + 10
    assert rows[0] == ("gpu2048", "fail")
    assert "<details><summary>4095 devices pass</summary>" in text
    assert len(text.splitlines()) < 4096 + 10 + 60  # one line per device plus a fixed frame


def test_a_small_fabric_shows_every_row_open() -> None:
    text = render_markdown(_scaled(MAX_OPEN_PASS_ROWS - 20, failing="gpu0001"))
    assert "<details>" not in text
    assert len(_device_rows(text)) == MAX_OPEN_PASS_ROWS - 20 + 10
