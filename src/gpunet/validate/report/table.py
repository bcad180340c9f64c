"""Terminal report that fits a screen (rich): problems first, then passes counted per check.

A row per result made 100,000 lines at 512 hosts. Now: the failed and errored results (the first
MAX_PROBLEM_ROWS of them, grouped by device; `failures_only` lists every one and nothing else),
then one line per check with its counts, then the summary line.
"""

from __future__ import annotations

import shutil

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpunet.validate.judge import Verdict
from gpunet.validate.report.grouping import by_group, counts_per_check, summary_line
from gpunet.validate.report.safe_text import visible
from gpunet.validate.results import Result, Status

_STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.ERROR: "yellow", Status.SKIPPED: "dim"}
_STYLE[Status.NOT_CHECKED] = "magenta"
_PROBLEMS = (Status.FAIL, Status.ERROR)
MAX_PROBLEM_ROWS = 30
# Up to this many devices are named (every device of a small fabric appears in the report);
# beyond, only their number, which keeps a large fabric's report on one screen.
MAX_NAMED_DEVICES = 64
DEFAULT_WIDTH = 160


def render_table(
    verdict: Verdict, width: int | None = None, color: bool = False, failures_only: bool = False
) -> str:
    """`width` defaults to the terminal's (160 columns when there is none)."""
    width = width or shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    console = Console(width=width, record=True, force_terminal=color, no_color=not color, file=_Discard())
    console.print(_text(f"gpunet-validate: fabric {verdict.manifest.fabric}"), style="bold")
    problems = [r for r in verdict.results if r.status in _PROBLEMS]
    shown = problems if failures_only else problems[:MAX_PROBLEM_ROWS]
    if problems:
        console.print(_problem_table(shown))
        if len(shown) < len(problems):
            console.print(
                f"... and {len(problems) - len(shown)} more problems: --failures-only lists them all, "
                "--format html or json has the detail"
            )
    else:
        console.print("no problems", style=_STYLE[Status.PASS])
    if not failures_only:
        console.print(_counts_table(verdict.results))
        console.print(_text(_devices_line(verdict)))
    console.print(summary_line(verdict.results))
    return console.export_text(styles=color)


def _problem_table(problems: list[Result]) -> Table:
    table = Table(title="problems", title_justify="left", show_lines=False)
    for column in ("device", "check", "target", "status", "expected", "actual / message"):
        table.add_column(column, overflow="fold")
    for group, results in by_group(problems):
        table.add_section()
        for index, result in enumerate(results):
            detail = result.actual + (f" ({result.message})" if result.message else "")
            table.add_row(
                _text(group) if index == 0 else "",
                _text(result.check),
                _text(result.target),
                f"[{_STYLE[result.status]}]{result.status}[/]",
                _text(result.expected),
                _text(detail),
            )
    return table


def _counts_table(results: list[Result]) -> Table:
    per_check = counts_per_check(results)
    table = Table(title="per check", title_justify="left")
    table.add_column("check")
    for status in Status:
        table.add_column(str(status), justify="right")
    # Checks with problems first, then by name.
    ordered = sorted(per_check.items(), key=lambda item: (-sum(item[1][s] for s in _PROBLEMS), item[0]))
    for check, counts in ordered:
        table.add_row(
            _text(check),
            *(
                f"[{_STYLE[status]}]{counts[status]}[/]"
                if counts[status] and status in _PROBLEMS
                else str(counts[status])
                for status in Status
            ),
        )
    return table


def _devices_line(verdict: Verdict) -> str:
    """The devices of the run (the manifest's hosts and switches), named while they are few."""
    devices = [*verdict.manifest.hosts, *verdict.manifest.switches]
    if len(devices) > MAX_NAMED_DEVICES:
        return f"{len(devices)} devices (--format json or html names each)"
    return f"{len(devices)} devices: " + ", ".join(devices)


def _text(text: str) -> Text:
    """Text from results as rich prints it literally: a str cell is read as markup (`[/bold]`
    raises, `:x:` becomes an emoji); control characters are written visibly."""
    return Text(visible(text))


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
