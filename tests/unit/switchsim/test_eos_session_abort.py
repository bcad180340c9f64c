"""The simulated EOS's `configure session <name> abort` from exec mode, as Arista's sources tell it:
a session whose `commit timer` still runs is taken back at once, to the config before its commit,
and removed ("Config Session Timers - Arista EOS", https://advertisingemergency.net/?p=112; NAPALM's
EOS rollback()); an uncommitted session is removed and the running config left as it is (Arista EOS
User Manual, Configure Session, https://www.arista.com/en/um-eos/eos-configure-session)."""

from __future__ import annotations

import asyncio

import pytest

from gpunet.lab.switchsim.personalities.eos import EosPersonality
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimOptions, SimulatedSwitch

BEFORE = ["interface Ethernet1", "   mtu 1500"]
CHANGE = ["interface Ethernet1", "mtu 9214", "end"]
AFTER = ["interface Ethernet1", "   mtu 9214"]

CASES = [
    # (how session s1 is left, whose abort, running config after it, timer pending after, sessions left)
    ("commit timer 00:05:00", "s1", BEFORE, False, []),  # taken back at once, not in 5 minutes
    ("commit timer 00:05:00", "other", AFTER, True, ["s1"]),  # another session's abort leaves it
    (None, "s1", BEFORE, False, []),  # never committed: discarded, nothing to take back
    ("commit", "s1", AFTER, False, []),  # committed for good: nothing pending to take back
]


@pytest.mark.parametrize(("commit", "aborted", "running", "pending", "sessions"), CASES)
def test_abort_from_exec_mode(commit, aborted, running, pending, sessions):
    async def run() -> tuple[list[str], bool, list[str], str]:
        switch = SimulatedSwitch(SwitchState("eos", "leaf", config=list(BEFORE)), SimOptions())
        shell = EosPersonality(switch, "admin")
        for line in ["configure session s1", *CHANGE]:
            assert shell.handle(line) == "", line
        if commit is not None:
            assert shell.handle("configure session s1") == ""
            assert shell.handle(commit) == ""
        answer = shell.handle(f"configure session {aborted} abort")
        left = sorted(switch.__dict__.get("eos_sessions", {}))
        state = (list(switch.state.config), switch.state.pending_confirm, left, answer)
        switch.cancel_confirm_timer()
        return state

    assert asyncio.run(run()) == (running, pending, sessions, "")
