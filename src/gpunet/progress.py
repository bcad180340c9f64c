"""A one-line progress counter for long steps, shown only when stdout is a terminal.

Written to stderr (so `gpunet ... > file` and `--format json` stay clean), redrawn in place at most
ten times a second, and cleared when the step ends. Silent when stdout is not a TTY: CI logs and
pipes get no control characters.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")
REDRAW_SECONDS = 0.1


def progress(
    items: Iterable[T], label: str, total: int | None = None, *, stream: TextIO | None = None
) -> Iterator[T]:
    """Yield `items`, showing `label n/total` on the terminal while they are consumed."""
    out = stream or sys.stderr
    if not _interactive(out):
        yield from items
        return
    total = total if total is not None else _length(items)
    last = 0.0
    count = 0
    try:
        for count, item in enumerate(items, start=1):
            now = time.monotonic()
            if now - last >= REDRAW_SECONDS:
                last = now
                out.write(f"\r{label} {count}/{total}" if total else f"\r{label} {count}")
                out.flush()
            yield item
    finally:
        if count:
            out.write("\r\033[K")
            out.flush()


def shown_on_terminal(stream: TextIO | None = None) -> bool:
    """Whether progress written to `stream` (default stderr) would be shown: stdout and it are TTYs."""
    return _interactive(stream or sys.stderr)


def _interactive(stream: TextIO) -> bool:
    return sys.stdout.isatty() and stream.isatty()


def _length(items: Iterable[object]) -> int | None:
    try:
        return len(items)  # type: ignore[arg-type]
    except TypeError:
        return None
