"""The cleaning step every parser shares, over damaged copies of real and fixture outputs: colour
and cursor codes, NULs, CRLF and BOMs change nothing; a doubled capture is refused; any parser
exception ends as a ParseError (exit 3), never as an internal error."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.validate.cli import main
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.parsers.clean import clean_text, has_artefacts, refuse_doubled_capture
from tests.conftest import FIXTURES_DIR, sample_files
from tests.unit.validate.test_parsers import tool_for

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"


def _fixture_inputs() -> list[tuple[str, Path]]:
    """(tool, file) for every committed fixture file whose stem names its parser."""
    inputs = []
    for path in sorted(HEALTHY.glob("hosts/gpu01/*.txt")) + sorted(HEALTHY.glob("switches/*/after/*.txt")):
        inputs.append((path.name.split(".")[0], path))
    inputs.append(("perftest", next(HEALTHY.glob("pairs/0/*.ib_write_bw.txt"))))
    inputs.append(("perftest", next(HEALTHY.glob("pairs/0/*.ib_read_lat.txt"))))
    inputs.append(("nccl-tests", HEALTHY / "nccl" / "all-nodes.txt"))
    inputs.append(("iperf3", next(HEALTHY.glob("pairs/iperf3/*.txt"))))
    return inputs


INPUTS = _fixture_inputs() + [(tool_for(path), path) for path in sample_files("*.txt")]


def _colour(text: str) -> str:
    """What a terminal capture adds: colour around every line, a cursor move, a title string."""
    lines = [f"\x1b[1;32m{line}\x1b[0m" if line else line for line in text.split("\n")]
    return "\x1b]0;gpu01: ~\x07\x1b[2K\x1b[1G" + "\n".join(lines)


DAMAGE: dict[str, Callable[[str], str]] = {
    "ansi": _colour,
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "bom": lambda text: "\ufeff" + text,
    "nul": lambda text: text.replace("\n", "\x00\n", 3) + "\x00\x00",
    "all": lambda text: "\ufeff" + _colour(text).replace("\n", "\r\n") + "\x00",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize(("tool", "path"), INPUTS, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_transport_artefacts_change_nothing(tool: str, path: Path, damage: str) -> None:
    text = path.read_text()
    assert parse(tool, DAMAGE[damage](text)) == parse(tool, text)


@pytest.mark.parametrize(("tool", "path"), INPUTS, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_a_doubled_capture_is_refused(tool: str, path: Path) -> None:
    text = path.read_text().rstrip("\n") + "\n"
    with pytest.raises(ParseError, match="duplicated"):
        parse(tool, text + text)


# (text, refused as doubled): the same lines twice, however indented or spaced out, are refused;
# the same words broken into other lines, or a first line that recurs, are not.
_RUN = "---\nRDMA_Write BW Test\n 65536 5000 386.00\n---\n"
DOUBLINGS = [
    (_RUN * 2, True),
    (_RUN + "\n\n  ---\n\tRDMA_Write BW Test  \n 65536 5000 386.00\n---\n", True),
    (_RUN + "---\nRDMA_Write BW\nTest 65536 5000 386.00\n---\n", False),
    ("---\nRDMA_Write BW Test\n---\n 65536 5000 386.00\n---\n 65536 5000 386.01\n", False),
    ("---\n---\n", True),
    ("---\nT\n---\nT\n---\na\n---\nb\n", False),  # first and second lines recur, an even number of times
    ("---\n  T x\n---\nT\n" * 2, True),
    ("---\nx\n---\ny\n", False),
]


@pytest.mark.parametrize(("text", "refused"), DOUBLINGS)
def test_doubled_capture_by_its_lines(text: str, refused: bool) -> None:
    if refused:
        with pytest.raises(ParseError, match=r"same \d+ lines twice"):
            refuse_doubled_capture(text)
    else:
        refuse_doubled_capture(text)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mDown\x1b[0m", "Down"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("\ufeffCA 'mlx5_0'", "CA 'mlx5_0'"),
        ("St\x00ate", "State"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("tab\tkept", "tab\tkept"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


MALFORMED_IPERF3 = [
    '{"start": [], "end": {}}',
    '{"start": {"connected": "x"}, "end": {}}',
    '{"end": {"sum_received": {"bits_per_second": "fast"}}}',
    '{"end": {"sum_sent": 3}}',
    '{"start": {"connected": [{}]}}',
]


@pytest.mark.parametrize("text", MALFORMED_IPERF3)
def test_malformed_iperf3_json_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError, match="iperf3"):
        parse("iperf3", text)


@pytest.mark.parametrize("text", MALFORMED_IPERF3)
def test_malformed_input_exits_3_naming_the_file(text: str, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    victim = next(folder.glob("pairs/iperf3/*.txt"))
    victim.write_text(text)
    code = main(["--from-artifacts", str(folder), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    errors = [r for r in report["results"] if r["status"] == "error"]
    assert code == 3
    assert [r["check"] for r in errors] == ["iperf3_throughput"]
    assert victim.name in errors[0]["message"]


# Every character the cleaning passes remove or rewrite, alone in otherwise clean ASCII and
# non-ASCII text: has_artefacts (its ASCII shortcut included) says the text would change.
_ARTEFACT_CHARACTERS = [chr(code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, 0x9B, 0xFEFF]]


@pytest.mark.parametrize("character", _ARTEFACT_CHARACTERS, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize(
    "base", ["Port  TxQ\nEthernet0 UC3 1\n", "Périphérique mlx5_0\n"], ids=["ascii", "non-ascii"]
)
def test_has_artefacts_finds_each_character_clean_text_changes(base: str, character: str) -> None:
    damaged = base[:5] + character + base[5:]
    assert has_artefacts(damaged)
    assert clean_text(damaged) != damaged


@pytest.mark.parametrize("text", ["", "Port  TxQ\n\tEthernet0 UC3 1\n", "Périphérique mlx5_0 \u2014 ok\n"])
def test_has_artefacts_passes_clean_text_untouched(text: str) -> None:
    assert not has_artefacts(text)
    assert clean_text(text) is text
