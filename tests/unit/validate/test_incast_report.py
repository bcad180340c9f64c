"""The HTML and Markdown reports show the incast evidence per rail: one verdict line per rail (the
rails whose results fail are exactly the rails the fault is on), and per path port and NIC the
counters before and after with their delta, as the incast checks' recorded artifacts hold them
(test_incast_checks' generator and fault cases)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpunet.model.check import load_fabric
from gpunet.validate.checks import Catalog
from gpunet.validate.incast import RailIncast, incast_plan
from gpunet.validate.judge import Verdict, judge
from gpunet.validate.manifest import Manifest, build_manifest
from gpunet.validate.report.html import render_html
from gpunet.validate.report.markdown import render_markdown
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_incast_checks import (
    CASES,
    NAMES,
    PRIO,
    Incast,
    Targets,
    _artifacts,
    _rail,
)

RAIL_CELL = re.compile(r'<td class="(\w+)"><a href="#incast-rail-(\d+)">')


@pytest.fixture(scope="module")
def prod() -> tuple[Manifest, list[RailIncast]]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return build_manifest(fabric), incast_plan(fabric)


def _verdict(folder: Path, manifest: Manifest, plan: list[RailIncast], fault: Incast) -> Verdict:
    return judge(_artifacts(folder, manifest, plan, fault), Catalog(NAMES, {}, "test"))


def _failing_rails(plan: list[RailIncast], targets: set[tuple[str, str]]) -> set[int]:
    """The rails whose receiver, senders or path ports the fault's failures name."""
    named = {target for _, target in targets}
    return {
        r.rail
        for r in plan
        if named & ({p.target for p in r.path} | {r.receiver_target} | {s.target for s in r.senders})
    }


@pytest.mark.parametrize(("case", "fault", "failures"), CASES, ids=[c[0] for c in CASES])
def test_one_verdict_line_per_rail(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]], case: str, fault: Incast, failures: Targets
) -> None:
    manifest, plan = prod
    verdict = _verdict(tmp_path, manifest, plan, fault)
    failing = _failing_rails(plan, failures(plan, manifest))
    markdown = render_markdown(verdict)
    lines = {int(m[1]): m[2] for m in re.finditer(r"^- \S+ \w+ rail (\d+): (PASS|FAIL) - ", markdown, re.M)}
    assert set(lines) == {r.rail for r in plan}, case
    assert {rail for rail, word in lines.items() if word == "FAIL"} == failing, case
    # The verdict lines come before the device rows: the first thing a rollout's reader sees.
    assert markdown.index("### Incast") < markdown.index("### Devices"), case
    html = render_html(verdict)
    rows = {int(rail): status for status, rail in RAIL_CELL.findall(html)}
    assert set(rows) == {r.rail for r in plan}, case
    assert {rail for rail, status in rows.items() if status == "fail"} == failing, case
    assert html.index('id="incast"') < html.index("<h2>Problems"), case


# (case, the platform of the rail looked at, the row's target role, counter column, its shown value)
DELTAS = [
    ("lossless drops", Incast(drops=4_211, out_of_sequence=377), "sonic", "receiver-edge",
     f"lossless drops q{PRIO}", "0 → 4211 (+4211) ❌ fail"),
    ("lossless drops", Incast(drops=4_211, out_of_sequence=377), "eos", "receiver",
     "out_of_sequence", "+377 | ❌ fail"),
    ("ECN marks", Incast(), "junos", "receiver-edge", f"ECN marks q{PRIO}", "0 → 52113 (+52113) ✅ pass"),
    ("no marks", Incast(ecn_marks=0), "eos", "receiver-edge", f"ECN marks q{PRIO}", "0 → 0 (+0) ❌ fail"),
    ("pauses on priority 4", Incast(pause_priority=4), "sonic", "sender-edge",
     "PFC pauses other priorities", "0 → 1520 (+1520) ❌ fail"),
    ("PFC watchdog storm", Incast(watchdog_stuck=2), "sonic", "receiver-edge",
     f"watchdog storms q{PRIO}", "0 → 2 (stormed) (+2) ❌ fail"),
    ("CNPs", Incast(cnp_handled=0), "eos", "sender", "rp_cnp_handled", "+0 | ❌ fail"),
    ("no counter on NX-OS", Incast(), "nxos", "receiver-edge", f"lossless drops q{PRIO}",
     "- → - (-) ⏭️ skipped"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "fault", "platform", "role", "column", "shown"), DELTAS)
def test_the_counters_are_shown_before_and_after(
    tmp_path: Path,
    prod: tuple[Manifest, list[RailIncast]],
    case: str,
    fault: Incast,
    platform: str,
    role: str,
    column: str,
    shown: str,
) -> None:
    manifest, plan = prod
    rail = _rail(plan, platform, manifest)
    markdown = render_markdown(_verdict(tmp_path, manifest, plan, fault))
    section = markdown.split(f"#### Rail {rail.rail}:")[1].split("#### Rail")[0]
    if role in ("receiver", "sender"):  # the NIC table: | NIC | role | counter | before | after | delta |
        nic = rail.receiver_target if role == "receiver" else rail.senders[0].target
        row = next(line for line in section.splitlines() if line.startswith(f"| {nic} | {role} | {column} "))
        assert row.endswith(shown + " |"), (case, row)
        return
    header = next(line for line in section.splitlines() if line.startswith("| switch port |"))
    index = [c.strip() for c in header.split("|")].index(column)
    row = next(line for line in section.splitlines() if f"| {role} |" in line)
    assert [c.strip() for c in row.split("|")][index] == shown, (case, row)


def test_the_bandwidth_is_shown_against_line_rate(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    manifest, plan = prod
    html = render_html(_verdict(tmp_path, manifest, plan, Incast(sender_gbps=120.0)))
    rail = plan[0]
    assert f'<span class="fail">240.0 Gb/s received of a {rail.receiver_gbps} Gb/s line rate (60%),' in html


ALLTOALL_SHOWN = [
    # (case, fault, the verdict shown, busbw and its share of 400 Gb/s as the reports print them)
    ("good alltoall", Incast(), "pass", "busbw 41.3 GB/s", "(83% of 400 Gb/s), 0 wrong"),
    ("low busbw", Incast(alltoall_busbw=30.2), "fail", "busbw 30.2 GB/s", "(60% of 400 Gb/s), 0 wrong"),
    ("wrong values", Incast(alltoall_wrong=12), "fail", "busbw 41.3 GB/s", "(83% of 400 Gb/s), 12 wrong"),
]


@pytest.mark.parametrize(("case", "fault", "status", "busbw", "share"), ALLTOALL_SHOWN)
def test_the_alltoall_busbw_is_shown_per_rail_next_to_the_perftest_bandwidth(
    tmp_path: Path,
    prod: tuple[Manifest, list[RailIncast]],
    case: str,
    fault: Incast,
    status: str,
    busbw: str,
    share: str,
) -> None:
    manifest, plan = prod
    verdict = _verdict(tmp_path, manifest, plan, fault)
    markdown, html = render_markdown(verdict), render_html(verdict)
    for rail in plan:
        assert rail.alltoall is not None and rail.receiver_gbps == 400
        hosts = ", ".join(rail.alltoall.hosts)
        section = markdown.split(f"#### Rail {rail.rail}:")[1].split("#### Rail")[0]
        line = next(x for x in section.splitlines() if x.startswith("Alltoall: "))
        assert f"{busbw} across {hosts} {share}, floor 35.00 GB/s" in line, (case, line)
        assert section.index("Bandwidth: ") < section.index("Alltoall: ")
        part = html.split(f'id="incast-rail-{rail.rail}"')[1].split("incast-rail-")[0]
        assert f'Alltoall: <span class="{status}">{busbw} across {hosts}' in part, case


def test_the_section_follows_the_incast_checks(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    """Shown when the incast checks were judged, absent when the catalog left them out."""
    manifest, plan = prod
    folder = _artifacts(tmp_path, manifest, plan, Incast())
    for names, shown in ((NAMES, True), (["pair_bandwidth"], False)):
        verdict = judge(folder, Catalog(names, {}, "test"))
        assert ("### Incast" in render_markdown(verdict)) is shown, names
        assert ('id="incast"' in render_html(verdict)) is shown, names
