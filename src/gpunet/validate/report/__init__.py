"""Reports of a verdict: terminal table, JSON, JUnit XML, Markdown, self-contained HTML."""

from __future__ import annotations

from collections.abc import Callable

from gpunet.validate.judge import Verdict
from gpunet.validate.report.html import render_html
from gpunet.validate.report.json_report import render_json
from gpunet.validate.report.junit import render_junit
from gpunet.validate.report.markdown import render_markdown
from gpunet.validate.report.table import render_table

RENDERERS: dict[str, Callable[[Verdict], str]] = {
    "table": render_table,
    "json": render_json,
    "junit": render_junit,
    "markdown": render_markdown,
    "html": render_html,
}
FORMATS = tuple(RENDERERS)


def render(
    verdict: Verdict,
    report_format: str,
    *,
    width: int | None = None,
    color: bool = False,
    failures_only: bool = False,
) -> str:
    """`width`, `color` and `failures_only` shape the terminal table; other formats ignore them."""
    if report_format == "table":
        return render_table(verdict, width=width, color=color, failures_only=failures_only)
    return RENDERERS[report_format](verdict)
