"""The push's report under a session cut at each step, against the simulator (real SSH): the
command was carried out and its reply never came back (`--drop-at`). The reported state must be
what the switch holds, and nothing of the push may be left on it."""

from __future__ import annotations

import re
import time

import pytest

from gpunet.netdev.errors import PushError
from gpunet.netdev.push import push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.test_interrupts import CONFIRM_S, leftovers, wait_for
from tests.integration.push.test_push import connection, missing_from, running, startup

# netmiko notices a cut session only at its read timeout: keep it short here.
OPTIONS = PushOptions(confirm_timeout_s=CONFIRM_S, command_timeout_s=4)

# (platform, the command whose reply is lost, the state the push must report)
TIMER = r"rolling back by itself at \d\d:\d\d:\d\d UTC"
CUT_AT = [
    # The commit landed with its timer: it is live and unconfirmed, and the timer takes it back.
    ("eos", r"^commit timer ", TIMER),
    ("cumulus", r"^nv config apply --confirm \d+s", TIMER),
    ("junos", r"^commit confirmed ", TIMER),
    # The patch landed; no timer: the push rolls back to its checkpoint on a new session.
    ("sonic", r"config apply-patch ", "rolled back"),
    # The save may have landed or not: the intent is live and confirmed either way.
    ("nxos", r"^copy running-config startup-config$", "live unsaved"),
    ("eos", r"^write memory$", "live unsaved"),
    ("cumulus", r"^nv config save$", "live unsaved"),
    ("sonic", r"config save -y$", "live unsaved"),
]


@pytest.mark.parametrize(("platform", "command", "expected"), CUT_AT, ids=lambda v: re.sub(r"\W+", "-", v))
def test_a_cut_after_a_command_is_reported_as_what_the_switch_holds(
    fleet, start, backups, platform, command, expected
):
    target = start(platform, drop_at=command)
    before = running(fleet, target)
    saved = startup(fleet, target)
    with pytest.raises(PushError) as caught:
        push_switch(
            target.switch,
            target.intended,
            connection(),
            check_mode=False,
            backup_root=backups,
            options=OPTIONS,
        )
    state = caught.value.config_state
    assert re.fullmatch(expected, state), str(caught.value)
    assert fleet.call(lambda: [e for e in target.sim.state.history if e["event"] == "session-dropped"])
    if expected == "live unsaved":
        assert missing_from(running(fleet, target), target.intended, platform) == []
        time.sleep(CONFIRM_S + 1)  # it was confirmed: no timer takes it back
        assert missing_from(running(fleet, target), target.intended, platform) == []
    else:
        wait_for(lambda: running(fleet, target) == before, CONFIRM_S + 5)
        assert running(fleet, target) == before
        assert startup(fleet, target) == saved
    assert leftovers(fleet, target) == {}
