"""The push's stop-signal handling: what a signal does outside and inside a step that must finish."""

from __future__ import annotations

import os
import signal

import pytest

from gpunet.netdev.interrupts import PushInterrupted, stop_signals


@pytest.mark.parametrize(
    ("finishing", "signals", "raised", "pending"),
    [
        (False, [signal.SIGTERM], "SIGTERM", None),
        (False, [signal.SIGINT], "SIGINT", None),
        (True, [signal.SIGTERM], None, "SIGTERM"),  # kept until the step is done
        (True, [signal.SIGTERM, signal.SIGINT], "SIGINT", "SIGTERM"),  # a second one stops it at once
    ],
)
def test_a_signal_raises_or_waits_for_the_step(finishing, signals, raised, pending) -> None:
    caught = None
    with stop_signals() as guard:
        try:
            if finishing:
                with guard.finishing():
                    for number in signals:
                        os.kill(os.getpid(), number)
            else:
                os.kill(os.getpid(), signals[0])
        except PushInterrupted as stop:
            caught = stop.signal_name
    assert caught == raised
    assert guard.pending == pending


def test_the_previous_handlers_come_back() -> None:
    def mine(_number, _frame) -> None:
        pass

    # SIGINT's handler is whatever the test run installed (pytest plugins and earlier tests set their
    # own), so it is compared with itself, not with Python's default.
    previous_int = signal.getsignal(signal.SIGINT)
    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with stop_signals():
            assert signal.getsignal(signal.SIGTERM) is not mine
            assert signal.getsignal(signal.SIGINT) is not previous_int
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGINT) is previous_int
    finally:
        signal.signal(signal.SIGTERM, previous)
