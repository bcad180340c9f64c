"""The HTML report puts problems first with where to look, counts passes per check, shows one
pair-view cell per NIC coloured against the threshold with failing cells linking to their row,
and marks the leaf whose port failed."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report.html import _colour, nic_anchor, render_html, worst_share_per_nic
from gpunet.validate.results import Result, Status
from tests.conftest import FIXTURES_DIR

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def bad_nic() -> Verdict:
    return judge(FIXTURES_DIR / "artifacts" / "bad_nic")


@pytest.fixture(scope="module")
def page(bad_nic: Verdict) -> str:
    return render_html(bad_nic)


def test_problems_come_first_with_where_to_look(page: str) -> None:
    assert page.index("<h2>Problems (6)</h2>") < page.index("<h2>Checks</h2>") < page.index("Pair bandwidth")
    problems = page[page.index("<h2>Problems") : page.index("<h2>Checks</h2>")]
    # gpu03's rail-2 NIC trained at 200G: host, NIC, switch and port in their own columns.
    assert "<td>gpu03</td><td>mlx5_2</td><td>leaf03</td><td>Ethernet3/1</td>" in problems
    assert ">pass<" not in problems


def test_passes_are_counted_per_check(page: str) -> None:
    checks = page[page.index("<h2>Checks</h2>") : page.index("Pair bandwidth")]
    assert '<tr><td>switch_pfc</td><td class="n">177</td>' in checks
    assert '<tr><td>nic_port_state</td><td class="n">31</td><td class="n fail">1</td>' in checks


def test_one_cell_per_nic_and_failing_cells_link_to_their_row(page: str, bad_nic: Verdict) -> None:
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}rect")) == 4 * 8
    links = {a.get("href") for a in root.iter(f"{SVG}a")}
    assert f"#{nic_anchor('gpu03', 'mlx5_2')}" in links
    for link in links:
        assert f'id="{link[1:]}"' in page  # every link has its row


def test_worst_share_is_the_nics_worst_pair(bad_nic: Verdict) -> None:
    worst = worst_share_per_nic(bad_nic.pairs, bad_nic.manifest)
    assert worst[("gpu03", 2)] == pytest.approx(193.0 / 400, abs=0.01)
    assert worst[("gpu01", 0)] > 0.9


@pytest.mark.parametrize(
    ("share", "hue"),
    [(0.89, "red"), (0.5, "red"), (0.9, "green"), (1.0, "green"), (None, "grey")],
)
def test_colour_flips_at_the_threshold(share: float | None, hue: str) -> None:
    red, green, blue = (int(_colour(share, 0.9)[i : i + 2], 16) for i in (1, 3, 5))
    got = "grey" if red == green == blue else "red" if red > green else "green"
    assert got == hue


def test_the_leaf_with_the_failing_port_is_marked(page: str) -> None:
    fabric = page[page.index("<h2>Fabric</h2>") :]
    leaf03 = next(line for line in fabric.split("<li>") if line.startswith("leaf03: "))
    assert "Ethernet3/1 (gpu03:mlx5_2)" in leaf03  # the bad NIC's port (its pair partners too)
    assert re.search(r"\d+ leaves, 2 with problems", fabric)  # leaf03 and leaf06 (slow path)


def test_the_page_grows_with_problems_not_with_passes(bad_nic: Verdict) -> None:
    passes = [Result("nic_qos", f"gpu01:mlx5_{i}", Status.PASS, "x", "x") for i in range(5000)]
    bigger = render_html(replace(bad_nic, results=bad_nic.results + passes))
    assert len(bigger) - len(render_html(bad_nic)) < 200


def test_a_check_failing_everywhere_does_not_push_the_views_away(bad_nic: Verdict) -> None:
    from gpunet.validate.report.html import TOP_ROWS_PER_CHECK

    clocks = [Result("ntp_offset", f"gpu{i:03d}", Status.FAIL, "<= 10 ms", "11 ms") for i in range(50)]
    page = render_html(replace(bad_nic, results=bad_nic.results + clocks))
    top = page[page.index("<h2>Problems") : page.index("<h2>Checks</h2>")]
    assert top.count("<td>ntp_offset</td>") == TOP_ROWS_PER_CHECK
    assert f"{50 - TOP_ROWS_PER_CHECK} more ({50 - TOP_ROWS_PER_CHECK} ntp_offset)" in top
    more = page[page.index('id="more-problems"') :]
    assert more.count("<td>ntp_offset</td>") == 50 - TOP_ROWS_PER_CHECK
    assert f'id="{nic_anchor("gpu03", "mlx5_2")}"' in top  # NIC rows keep their place at the top
