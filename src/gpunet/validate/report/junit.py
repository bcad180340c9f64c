"""JUnit XML: one testsuite per check, one testcase per check and target, for CI dashboards.

Written as text, element by element, with the standard library's XML escaping: the same
document ElementTree writes (tests/unit/validate_report/test_junit.py holds the two equal), but
ElementTree serialises in Python, node by node, which took 4-5 s for the 1.2 million elements
of a 4,096-host fabric.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from xml.sax.saxutils import escape

from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import counts_per_check
from gpunet.validate.report.json_report import PRETTY_MAX_RESULTS
from gpunet.validate.report.safe_text import xml_visible
from gpunet.validate.results import Result, Status, counts

CHUNK = 10_000  # testcases a piece written at a time
# What ElementTree escapes in an attribute value beyond &, < and >.
_ATTRIBUTE_ENTITIES = {'"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}
# Those, and what safe_text.xml_visible rewrites (XML 1.0 allows no other C0 character).
_ATTRIBUTE_SPECIALS = re.compile('[&<>"\r\n\t\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]')


def render_junit(verdict: Verdict) -> str:
    return b"".join(junit_chunks(verdict)).decode()


def junit_chunks(verdict: Verdict) -> Iterator[bytes]:
    """The document as UTF-8 pieces of about `CHUNK` testcases; joined, `render_junit`'s bytes.
    At 16,384 hosts it is 2.76 million testcases, 478 MiB: held as strings, joined and encoded
    whole, the run passed 2.6 GiB."""
    totals = counts(verdict.results)
    # Indented for a reader; beyond PRETTY_MAX_RESULTS indentation only adds size.
    pretty = len(verdict.results) <= PRETTY_MAX_RESULTS
    indents = [("\n" + "  " * depth) if pretty else "" for depth in range(4)]
    root = _start(
        "testsuites",
        name=f"gpunet-validate {verdict.manifest.fabric}",
        tests=str(len(verdict.results)),
        failures=str(totals["fail"]),
        errors=str(totals["error"]),
        skipped=str(totals["skipped"]),
    )
    if not verdict.results:
        yield f'<?xml version="1.0" encoding="UTF-8"?>\n{root[:-1]} />\n'.encode()
        return
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', root]
    by_check: dict[str, list[Result]] = {}  # each check's results in their order
    for result in verdict.results:
        by_check.setdefault(result.check, []).append(result)
    per_check = counts_per_check(verdict.results)
    # A check's results mostly repeat one expectation and one observation (every lossless port
    # "0 drops on UC3"): each distinct outcome element is written once and reused.
    outcomes: dict[tuple[Status, str, str, str], str] = {}  # -> the testcase from its name on
    pending = 0  # testcases in `out`
    for check in sorted(by_check):
        cases, tally = by_check[check], per_check[check]
        out += (
            indents[1],
            _start(
                "testsuite",
                name=check,
                tests=str(len(cases)),
                failures=str(tally[Status.FAIL]),
                errors=str(tally[Status.ERROR]),
                skipped=str(tally[Status.SKIPPED] + tally[Status.NOT_CHECKED]),
            ),
        )
        # One string a testcase: its start tag up to the name, and from its outcome to its end tag.
        opening = f'{indents[2]}<testcase classname="{_attribute(f"gpunet.{check}")}" name="'
        for result in cases:
            key = (result.status, result.expected, result.actual, result.message)
            closing = outcomes.get(key)
            if closing is None:
                closing = outcomes[key] = f'">{indents[3]}{_outcome(result)}{indents[2]}</testcase>'
            out.append(f"{opening}{_attribute(result.target)}{closing}")
            pending += 1
            if pending == CHUNK:
                yield "".join(out).encode()
                out.clear()
                pending = 0
        out += indents[1], "</testsuite>"
    out += indents[0], "</testsuites>\n"
    yield "".join(out).encode()


def _outcome(result: Result) -> str:
    detail = escape(
        xml_visible(f"expected: {result.expected}\nactual: {result.actual}\n{result.message}".strip())
    )
    if result.status == Status.FAIL:
        message = _attribute(f"expected {result.expected}, saw {result.actual}")
        return f'<failure message="{message}">{detail}</failure>'
    if result.status == Status.ERROR:
        return f'<error message="{_attribute(result.message or "could not run")}">{detail}</error>'
    if result.status in (Status.SKIPPED, Status.NOT_CHECKED):
        return f'<skipped message="{_attribute(result.message)}" />'
    return f"<system-out>{detail}</system-out>"


def _start(tag: str, **attributes: str) -> str:
    return f"<{tag} " + " ".join(f'{key}="{_attribute(value)}"' for key, value in attributes.items()) + ">"


def _attribute(value: str) -> str:
    # Most values (every target name) hold nothing to escape: one search spares seven replaces.
    return escape(xml_visible(value), _ATTRIBUTE_ENTITIES) if _ATTRIBUTE_SPECIALS.search(value) else value
