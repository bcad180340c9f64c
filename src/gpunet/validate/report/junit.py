"""JUnit XML: one testsuite per check, one testcase per check and target, for CI dashboards."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby

from gpunet.validate.judge import Verdict
from gpunet.validate.report.json_report import PRETTY_MAX_RESULTS
from gpunet.validate.results import Status, counts


def render_junit(verdict: Verdict) -> str:
    totals = counts(verdict.results)
    root = ET.Element(
        "testsuites",
        name=f"gpunet-validate {verdict.manifest.fabric}",
        tests=str(len(verdict.results)),
        failures=str(totals["fail"]),
        errors=str(totals["error"]),
        skipped=str(totals["skipped"]),
    )
    ordered = sorted(verdict.results, key=lambda r: r.check)
    for check, members in groupby(ordered, key=lambda r: r.check):
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
                ET.SubElement(
                    case, "failure", message=f"expected {result.expected}, saw {result.actual}"
                ).text = detail
            elif result.status == Status.ERROR:
                ET.SubElement(case, "error", message=result.message or "could not run").text = detail
            elif result.status in (Status.SKIPPED, Status.NOT_CHECKED):
                ET.SubElement(case, "skipped", message=result.message)
            else:
                ET.SubElement(case, "system-out").text = detail
    if len(verdict.results) <= PRETTY_MAX_RESULTS:  # indented for a reader; beyond, it only adds size
        ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
