"""SIGINT and SIGTERM during a push: stop at a point where the switch's state is known.

A signal before anything changed stops the push at once (`unchanged`). A signal while the
remediation is being typed or committed stops it too, and the push then restores the previous
config the way it does after a lost session. Undoing, confirming and saving are finished first
(they take seconds, and stopping halfway through them is what leaves a switch in a state nobody
knows); a second signal during them stops the push at once, and the report says what may be left.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class PushInterrupted(BaseException):
    """A stop signal arrived. A BaseException, like KeyboardInterrupt, so that no `except Exception`
    in netmiko or paramiko swallows it."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


class StopSignals:
    """What the handlers do: raise PushInterrupted, or, inside `finishing()`, remember the signal."""

    def __init__(self) -> None:
        self.finishing_depth = 0
        self.pending: str | None = None  # a signal that arrived while finishing

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if self.finishing_depth and self.pending is None:
            self.pending = name
            return
        raise PushInterrupted(name)

    @contextmanager
    def finishing(self) -> Iterator[None]:
        """Run a step that must not stop halfway; a signal during it is kept in `pending`."""
        self.finishing_depth += 1
        try:
            yield
        finally:
            self.finishing_depth -= 1


@contextmanager
def stop_signals() -> Iterator[StopSignals]:
    """Handle SIGINT/SIGTERM for the push, then put the previous handlers back. Python delivers
    signals to the main thread only, so elsewhere (a test's thread pool) this changes nothing."""
    guard = StopSignals()
    if threading.current_thread() is not threading.main_thread():
        yield guard
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    for number in STOP_SIGNALS:
        signal.signal(number, guard.handle)
    try:
        yield guard
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
