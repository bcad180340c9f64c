"""The JSON report, whole or written piece by piece, is the one document orjson writes for the
verdict: indented for small fabrics, compact beyond; and the CLI writes those bytes."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import orjson
import pytest

from gpunet.validate.cli import main
from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report import chunks, json_report, render
from gpunet.validate.results import counts, exit_code
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"


def whole_document(verdict: Verdict, pretty: bool) -> bytes:
    """The reference: the report as one orjson.dumps of the whole document."""
    document = {
        "fabric": verdict.manifest.fabric,
        "summary": counts(verdict.results),
        "exit_code": exit_code(verdict.results),
        "thresholds": asdict(verdict.manifest.thresholds),
        "results": verdict.results,
        "pairs": verdict.pairs,
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 if pretty else 0) + b"\n"


# (fixture, what is left of its verdict, pieces of at most `chunk` results or pairs)
CASES = [
    ("healthy", lambda verdict: verdict, 7),
    ("bad_nic", lambda verdict: verdict, 1),
    ("bad_nic", lambda verdict: verdict, 10_000),
    ("failed_nccl", lambda verdict: verdict, 32),  # the 32 pairs: exactly one piece of pairs
    ("healthy", lambda verdict: replace(verdict, results=[]), 7),
    ("healthy", lambda verdict: replace(verdict, pairs=[]), 7),
]


@pytest.mark.parametrize("pretty", [True, False], ids=["indented", "compact"])
@pytest.mark.parametrize(("fixture", "shape", "chunk"), CASES)
def test_pieces_are_the_whole_document(fixture, shape, chunk: int, pretty: bool, monkeypatch) -> None:
    verdict = shape(judge(ARTIFACTS / fixture))
    monkeypatch.setattr(json_report, "CHUNK", chunk)
    if not pretty:
        monkeypatch.setattr(json_report, "PRETTY_MAX_RESULTS", 0)
    indented = len(verdict.results) <= json_report.PRETTY_MAX_RESULTS  # no results: indented
    pieces = list(chunks(verdict, "json"))
    assert b"".join(pieces) == whole_document(verdict, indented)
    assert render(verdict, "json").encode() == whole_document(verdict, indented)
    if not indented:  # the head, a piece per `chunk` results, the pairs' opening, per `chunk` pairs, the end
        assert len(pieces) == 3 + -(-len(verdict.results) // chunk) + -(-len(verdict.pairs) // chunk)


@pytest.mark.parametrize("to", ["file", "stdout"])
def test_the_cli_writes_the_pieces(to: str, tmp_path: Path, monkeypatch, capsysbinary) -> None:
    monkeypatch.setattr(json_report, "PRETTY_MAX_RESULTS", 0)
    monkeypatch.setattr(json_report, "CHUNK", 5)
    output = tmp_path / "report.json"
    where = ["--output", str(output)] if to == "file" else []
    code = main(["--from-artifacts", str(ARTIFACTS / "bad_nic"), "--format", "json", *where])
    written = output.read_bytes() if to == "file" else capsysbinary.readouterr().out
    verdict = judge(ARTIFACTS / "bad_nic")
    assert code == exit_code(verdict.results) == json.loads(written)["exit_code"]
    assert written == whole_document(verdict, pretty=False)
