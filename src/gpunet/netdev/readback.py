"""Read the switch back after a fault, so the push reports what it holds and not what it guessed.

After a lost reply gpunet cannot know whether the command landed; a new session reading the
running config can. It tells three things apart, within gpunet's owned scope: the config from
before the push (the same remediation is left to do), the intent (none is), or anything else (a
half-applied change).
"""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from enum import Enum

from gpunet.netdev.errors import PushError
from gpunet.netdev.remediation import remediate
from gpunet.netdev.strategies.base import CommitStrategy, SessionLost

UNKNOWN = "unknown: read the switch"


class Holds(Enum):
    PREVIOUS = "the config from before the push"
    INTENT = "the intended config"
    OTHER = "neither the previous nor the intended config"
    UNREADABLE = "nothing gpunet could read"


class ReadBack:
    """What one switch holds, read over a new session each time."""

    def __init__(self, strategy: CommitStrategy, platform: str, before: str, intended: str) -> None:
        self.strategy = strategy
        self.platform = platform
        self.before = before
        self.intended = intended
        self._from_before = self._to_intent(before)

    def holds(self) -> Holds:
        try:
            now = self.read()
        except (PushError, SessionLost):
            return Holds.UNREADABLE
        to_intent = self._to_intent(now)
        if to_intent == []:
            return Holds.INTENT
        # The same remediation as before the push: the owned scope is as it was (a change outside
        # it, by someone else, does not make it another config).
        if now == self.before or (to_intent is not None and to_intent == self._from_before):
            return Holds.PREVIOUS
        return Holds.OTHER

    def read(self) -> str:
        """The running config over a new session; the push's own session stays as it is."""
        strategy = self.strategy
        session = strategy.reconnect()
        own, strategy.conn = strategy.conn, session
        try:
            return strategy.read_running()
        finally:
            strategy.conn = own
            with contextlib.suppress(Exception):
                session.disconnect()

    def _to_intent(self, running: str) -> list[str] | None:
        """What the push would send to `running` to reach the intent; None when unreadable."""
        try:
            return remediate(self.platform, running, self.intended).commands
        except ValueError:  # an unreadable document (SONiC JSON)
            return None

    def after_timer(self, margin_s: float = 2.0, tries: int = 3) -> Holds:
        """What is left once the OS's commit timer has had its chance to fire: the commit is then
        either confirmed (INTENT) or taken back (PREVIOUS), whichever way the lost reply went."""
        deadline = self.strategy.rollback_deadline
        if deadline is not None:
            time.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()) + margin_s)
        holds = self.holds()
        for _ in range(tries - 1):  # a session refused or a rollback still being applied: look again
            if holds in (Holds.INTENT, Holds.PREVIOUS):
                break
            time.sleep(margin_s)
            holds = self.holds()
        return holds
