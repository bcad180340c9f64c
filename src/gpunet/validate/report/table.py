"""Terminal table grouped by host or switch (rich), problems first."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import by_group, summary_line
from gpunet.validate.results import Status

_STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.ERROR: "yellow", Status.SKIPPED: "dim"}
_STYLE[Status.NOT_CHECKED] = "magenta"


def render_table(verdict: Verdict, width: int = 160, color: bool = False) -> str:
    console = Console(width=width, record=True, force_terminal=color, no_color=not color, file=_Discard())
    table = Table(title=f"gpunet-validate: fabric {verdict.manifest.fabric}", show_lines=False)
    for column in ("device", "check", "target", "status", "expected", "actual / message"):
        table.add_column(column, overflow="fold")
    for group, results in by_group(verdict.results):
        table.add_section()
        for index, result in enumerate(results):
            detail = result.actual + (f" ({result.message})" if result.message else "")
            table.add_row(
                group if index == 0 else "",
                result.check,
                result.target,
                f"[{_STYLE[result.status]}]{result.status}[/]",
                result.expected,
                detail,
            )
    console.print(table)
    console.print(summary_line(verdict.results))
    return console.export_text(styles=color)


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
