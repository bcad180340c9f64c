"""The HTML report puts problems first with where to look, counts passes per check, shows one
pair-view cell per NIC coloured against the threshold with failing cells linking to their row,
and marks the leaf whose port failed."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest

from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report.html import _colour, nic_anchor, render_html, worst_share_per_nic
from gpunet.validate.results import Result, Status
from tests.conftest import FIXTURES_DIR


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


class _Cells(HTMLParser):
    """The cells of a `<div class=...>` view: (tag, attributes) of each `<i>` or `<a>` in it."""

    def __init__(self, view: str) -> None:
        super().__init__()
        self.view, self.depth, self.cells = view, 0, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if self.depth:
            self.depth += tag == "div"
            if tag in ("i", "a"):
                self.cells.append((tag, attributes))
        elif tag == "div" and attributes.get("class") == self.view:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "div":
            self.depth -= 1


def cells(page: str, view: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Cells(view)
    parser.feed(page)
    return parser.cells


def cell_fill(page: str, cell: dict[str, str | None]) -> str:
    """The background the page's CSS gives a pair-view cell: its class's, else the cells' own."""
    name = cell.get("class")
    rule = rf"\.pv \.{name} \{{ background: (#[0-9a-f]{{6}}); \}}" if name else None
    rule = rule or r"\.pv i, \.pv a \{ background: (#[0-9a-f]{6}); \}"
    return re.findall(rule, page)[0]


@pytest.mark.parametrize("fixture", ["healthy", "bad_nic", "failed_nccl"])
def test_one_cell_per_nic_with_its_colour_title_and_link(fixture: str) -> None:
    verdict = judge(FIXTURES_DIR / "artifacts" / fixture)
    page = render_html(verdict)
    threshold = verdict.manifest.thresholds.perftest_min_fraction
    worst = worst_share_per_nic(verdict.pairs, verdict.manifest)
    expected = {
        f"{host} {nic.name}: {worst[(host, nic.rail)] * 100:.0f}%": (host, nic)
        for host, record in verdict.manifest.hosts.items()
        for nic in record.nics
    }
    shown = cells(page, "pv")
    assert sorted(attributes["title"] for _, attributes in shown) == sorted(expected)
    for tag, attributes in shown:
        host, nic = expected[attributes["title"]]
        share = worst[(host, nic.rail)]
        assert cell_fill(page, attributes) == _colour(share, threshold)
        # A failing cell links to its problem row, which the page has; a passing one is no link.
        assert (tag == "a") == (share < threshold)
        if tag == "a":
            assert attributes["href"] == f"#{nic_anchor(host, nic.name)}"
            assert f'id="{nic_anchor(host, nic.name)}"' in page


@pytest.mark.parametrize("fixture", ["healthy", "bad_nic"])
def test_a_pair_view_cell_is_a_few_dozen_bytes(fixture: str) -> None:
    """The view is nearly the whole page at scale (131,072 cells at 16,384 hosts): a cell was an
    SVG <rect> with position, size, fill and a <title>, 114 bytes; the page must stay under 8 MB."""
    page = render_html(judge(FIXTURES_DIR / "artifacts" / fixture))
    view = page[page.index('<div class="pv">') : page.index("<h2>Fabric</h2>")]
    markup = re.findall(r"<i [^>]*></i>|<a [^>]*></a>", view)
    assert len(markup) == len(cells(view, "pv")) == 32
    assert sum(map(len, markup)) / len(markup) < 45  # failing cells carry their link too
    assert "<svg" not in page and "<rect" not in page


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


def test_the_leaf_with_the_failing_port_is_marked(page: str, bad_nic: Verdict) -> None:
    fabric = page[page.index("<h2>Fabric</h2>") :]
    leaf03 = next(line for line in fabric.split("<li>") if line.startswith("leaf03: "))
    assert "Ethernet3/1 (gpu03:mlx5_2)" in leaf03  # the bad NIC's port (its pair partners too)
    assert re.search(r"\d+ leaves, 2 with problems", fabric)  # leaf03 and leaf06 (slow path)
    squares = cells(fabric, "sw")
    assert len(squares) == len(bad_nic.manifest.switches)
    marked = {a["title"].split(":")[0] for _, a in squares if a.get("class") == "bad"}
    assert marked == {"leaf03", "leaf06"}
    leaf03_square = next(a["title"] for _, a in squares if a["title"].startswith("leaf03: "))
    assert "Ethernet3/1 (gpu03:mlx5_2)" in leaf03_square


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
