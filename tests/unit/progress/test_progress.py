"""Progress shows on a terminal only, never changes what is iterated, and clears its line."""

from __future__ import annotations

import io
import sys

import pytest

from gpunet import progress as progress_module
from gpunet.progress import progress


class Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("stdout_tty", "stream_tty", "shown"),
    [(True, True, True), (False, True, False), (True, False, False), (False, False, False)],
)
def test_progress_shows_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, stdout_tty: bool, stream_tty: bool, shown: bool
) -> None:
    monkeypatch.setattr(sys, "stdout", Terminal(stdout_tty))
    monkeypatch.setattr(progress_module, "REDRAW_SECONDS", 0.0)
    stream = Terminal(stream_tty)
    assert list(progress(["a", "b", "c"], "reading", stream=stream)) == ["a", "b", "c"]
    text = stream.getvalue()
    if shown:
        assert "\rreading 1/3" in text and "\rreading 3/3" in text
        assert text.endswith("\r\033[K")
    else:
        assert text == ""


def test_progress_without_a_length_counts_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", Terminal(True))
    monkeypatch.setattr(progress_module, "REDRAW_SECONDS", 0.0)
    stream = Terminal(True)
    assert list(progress(iter(range(2)), "rounds", stream=stream)) == [0, 1]
    assert "\rrounds 2" in stream.getvalue() and "/" not in stream.getvalue()
