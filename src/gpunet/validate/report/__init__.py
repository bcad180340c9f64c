"""Reports of a verdict: terminal table, JSON, JUnit XML, Markdown, self-contained HTML."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from gpunet.validate.judge import Verdict

# Format -> (module in this package, its function). A format's module is imported when it is
# used: gpunet-node-check reaches report.prometheus through this package on GPU nodes, whose own
# Python has none of the HTML/JSON/table renderers' libraries (orjson, rich), and needs none of them.
RENDERERS: dict[str, tuple[str, str]] = {
    "table": ("table", "render_table"),
    "json": ("json_report", "render_json"),
    "junit": ("junit", "render_junit"),
    "markdown": ("markdown", "render_markdown"),
    "html": ("html", "render_html"),
}
FORMATS = tuple(RENDERERS)
# Formats also written piece by piece (module, function yielding UTF-8 bytes): at 16,384 hosts
# their reports are 480-500 MiB, and held whole (text, joined, encoded) they took a run past 2.6 GiB.
STREAMED: dict[str, tuple[str, str]] = {
    "json": ("json_report", "json_chunks"),
    "junit": ("junit", "junit_chunks"),
}


def render(
    verdict: Verdict,
    report_format: str,
    *,
    width: int | None = None,
    color: bool = False,
    failures_only: bool = False,
) -> str:
    """`width`, `color` and `failures_only` shape the terminal table; other formats ignore them."""
    module_name, function_name = RENDERERS[report_format]
    renderer = getattr(import_module(f"{__name__}.{module_name}"), function_name)
    if report_format == "table":
        return renderer(verdict, width=width, color=color, failures_only=failures_only)
    return renderer(verdict)


def chunks(verdict: Verdict, report_format: str) -> Iterator[bytes]:
    """A STREAMED format's report as UTF-8 pieces: joined and decoded, what `render` returns."""
    module_name, function_name = STREAMED[report_format]
    return getattr(import_module(f"{__name__}.{module_name}"), function_name)(verdict)
