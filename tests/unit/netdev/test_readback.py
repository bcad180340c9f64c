"""ReadBack: what a switch read over a new session holds, compared within gpunet's owned scope."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gpunet.netdev.errors import UnreachableError
from gpunet.netdev.readback import Holds, ReadBack
from tests.unit.netdev.test_remediation import JUNOS_INTENDED, JUNOS_RUNNING


class Session:
    def disconnect(self) -> None:
        pass


class Switch:
    """A strategy whose new sessions read `shown` in turn (an exception: the login fails)."""

    def __init__(self, *shown: str | Exception) -> None:
        self.shown = list(shown)
        self.conn = "the push's own session"
        self.rollback_deadline: datetime | None = None
        self.logins = 0

    def reconnect(self) -> Session:
        self.logins += 1
        if isinstance(self.shown[0], Exception):
            raise self.shown.pop(0)
        return Session()

    def read_running(self) -> str:
        assert self.conn != "the push's own session", "read over the new session"
        return str(self.shown.pop(0))


# The intent applied to the running config: the owned lines replaced, the rest kept.
INTENT_LIVE = "\n".join(
    [line for line in JUNOS_RUNNING.splitlines() if "class-of-service" not in line and "mtu" not in line]
    + JUNOS_INTENDED.splitlines()
)
HALF = JUNOS_RUNNING.replace("queue-num 3 no-loss pfc-priority 3", "queue-num 4 no-loss pfc-priority 4")


@pytest.mark.parametrize(
    ("shown", "holds"),
    [
        (JUNOS_RUNNING, Holds.PREVIOUS),
        # Only outside the owned scope differs (someone changed the host name): still the previous.
        (JUNOS_RUNNING.replace("host-name leaf08", "host-name other"), Holds.PREVIOUS),
        (INTENT_LIVE, Holds.INTENT),
        (HALF, Holds.OTHER),
        (UnreachableError("leaf08", "timed out"), Holds.UNREADABLE),
    ],
    ids=["previous", "previous-outside-scope", "intent", "half-applied", "unreachable"],
)
def test_what_the_switch_holds(shown, holds) -> None:
    switch = Switch(shown)
    found = ReadBack(switch, "junos", JUNOS_RUNNING, JUNOS_INTENDED).holds()  # type: ignore[arg-type]
    assert found is holds
    assert switch.conn == "the push's own session"  # put back after the read


def test_after_the_timer_it_reads_again_until_the_answer_is_previous_or_intent() -> None:
    switch = Switch(UnreachableError("leaf08", "refused"), HALF, INTENT_LIVE)
    switch.rollback_deadline = datetime.now(UTC) - timedelta(seconds=1)  # already passed: no wait
    check = ReadBack(switch, "junos", JUNOS_RUNNING, JUNOS_INTENDED)  # type: ignore[arg-type]
    assert check.after_timer(margin_s=0.01) is Holds.INTENT
    assert switch.logins == 3
