"""The JUnit report is the document ElementTree would write for the same results, indented or not,
whatever characters the results hold."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from itertools import groupby

import pytest

from gpunet.validate import report
from gpunet.validate.judge import Verdict, judge
from gpunet.validate.report import junit
from gpunet.validate.results import Result, Status, counts
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"
AWKWARD = "a<b & c>d \"quoted\" 'single'\n\ttab\rreturn \u00e9\u2014\U0001f600 ]]> &amp;"


def element_tree_junit(verdict: Verdict, pretty: bool) -> str:
    """The reference: the report as ElementTree builds and serialises it."""
    totals = counts(verdict.results)
    root = ET.Element(
        "testsuites",
        name=f"gpunet-validate {verdict.manifest.fabric}",
        tests=str(len(verdict.results)),
        failures=str(totals["fail"]),
        errors=str(totals["error"]),
        skipped=str(totals["skipped"]),
    )
    for check, members in groupby(sorted(verdict.results, key=lambda r: r.check), key=lambda r: r.check):
        cases = list(members)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=check,
            tests=str(len(cases)),
            failures=str(sum(r.status == Status.FAIL for r in cases)),
            errors=str(sum(r.status == Status.ERROR for r in cases)),
            skipped=str(sum(r.status in (Status.SKIPPED, Status.NOT_CHECKED) for r in cases)),
        )
        for result in cases:
            case = ET.SubElement(suite, "testcase", classname=f"gpunet.{check}", name=result.target)
            detail = f"expected: {result.expected}\nactual: {result.actual}\n{result.message}".strip()
            if result.status == Status.FAIL:
                failure = ET.SubElement(
                    case, "failure", message=f"expected {result.expected}, saw {result.actual}"
                )
                failure.text = detail
            elif result.status == Status.ERROR:
                ET.SubElement(case, "error", message=result.message or "could not run").text = detail
            elif result.status in (Status.SKIPPED, Status.NOT_CHECKED):
                ET.SubElement(case, "skipped", message=result.message)
            else:
                ET.SubElement(case, "system-out").text = detail
    if pretty:
        ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def awkward(verdict: Verdict) -> Verdict:
    """Every status, with markup characters, line ends and non-ASCII in every field."""
    results = [
        Result(f"check{index % 3}", f"{AWKWARD}:{index}", status, AWKWARD, AWKWARD, message, AWKWARD)
        for index, status in enumerate(Status)
        for message in (AWKWARD, "")
    ]
    # One character to escape alone in a name, and outcomes that repeat across checks and targets.
    results += [
        Result(f"check{index % 2}", f"gpu{character}01:mlx5_{index}", status, "0 drops", character, "", "nic")
        for index, character in enumerate("&<>\"\r\n\t'")
        for status in (Status.PASS, Status.FAIL)
    ]
    return replace(verdict, results=results)


CASES = [
    ("healthy", lambda verdict: verdict),
    ("bad_nic", lambda verdict: verdict),
    ("failed_nccl", lambda verdict: verdict),
    ("healthy", awkward),
    ("healthy", lambda verdict: replace(verdict, results=[])),
]


@pytest.mark.parametrize("pretty", [True, False], ids=["indented", "compact"])
@pytest.mark.parametrize(("fixture", "shape"), CASES)
def test_junit_is_what_element_tree_writes(
    fixture, shape, pretty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = shape(judge(ARTIFACTS / fixture))
    if not pretty:
        monkeypatch.setattr(junit, "PRETTY_MAX_RESULTS", 0)
    written = report.render(verdict, "junit")
    assert written == element_tree_junit(verdict, pretty and bool(verdict.results))
    assert ET.fromstring(written.split("\n", 1)[1]).get("tests") == str(len(verdict.results))


@pytest.mark.parametrize("chunk", [1, 7, 10_000])
@pytest.mark.parametrize(("fixture", "shape"), CASES)
def test_junit_pieces_are_the_whole_document(fixture, shape, chunk: int, monkeypatch) -> None:
    """Written piece by piece (480 MiB at 16,384 hosts): the same bytes, in pieces of `chunk`
    testcases (with the suites' tags between them) and the rest."""
    verdict = shape(judge(ARTIFACTS / fixture))
    monkeypatch.setattr(junit, "PRETTY_MAX_RESULTS", 0)
    monkeypatch.setattr(junit, "CHUNK", chunk)
    pieces = list(report.chunks(verdict, "junit"))
    assert b"".join(pieces) == element_tree_junit(verdict, pretty=False).encode()
    assert len(pieces) == len(verdict.results) // chunk + 1
