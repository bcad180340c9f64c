"""Cumulus NVUE auto save under the push's faults, against the simulator (real SSH).

From Cumulus Linux 5.9 `nv config apply` also writes the startup configuration by default (auto
save); in 5.8 and earlier only `nv config save` does (NVIDIA: NVUE command reference `nv show system
config auto-save` and `nv config save`, Cumulus Linux 5.9 What's New). NVIDIA does not say whether an
apply with `--confirm` is saved at once or once confirmed, nor whether the confirm timer's rollback
puts the startup configuration back: the simulator takes either (`nvue_autosave_at`, "apply" with
the saved intent left in place by the rollback being the worst case), and the push must report
what the switch then holds, running and startup, under both, reading the startup config back
rather than assuming it from the release. Nothing of the push may be left on the switch."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpunet.lab.switchsim import SimOptions
from gpunet.netdev.errors import PushError
from gpunet.netdev.push import push_switch
from tests.integration.push.conftest import PASSWORD, SWITCH_OF_PLATFORM, Target
from tests.integration.push.test_faults import (
    COMMIT,
    CONFIRM,
    CONFIRM_S,
    OPTIONS,
    SAVE,
    SAVED,
    SLOW_S,
    TIMER,
    _id,
)
from tests.integration.push.test_interrupts import leftovers, wait_for
from tests.integration.push.test_push import connection, missing_from, running, startup

AUTO = "5.10.1"  # auto save on by default (5.9 and later)
OLD = "5.8.0"  # auto save off by default (5.8 and earlier)
HOLDS = re.escape("; the startup config already holds the intent (saved by the OS)")
DIFFERS = re.escape("rolled back live; the startup config differs (saved by the OS): read the switch")
# A confirm held past the commit timer, its session cut: the timer takes the commit back first.
LATE_CONFIRM = {"slow_at": CONFIRM["cumulus"], "slow_s": CONFIRM_S + 4.0, "cut_while_slow": True}

# (release, when auto save saves a --confirm apply, fault, the state the push must report,
# what running and startup must end with)
CASES = [
    # No fault: saved either way.
    (AUTO, "confirm", {}, SAVED, "intent", "intent"),
    (AUTO, "apply", {}, SAVED, "intent", "intent"),
    (OLD, None, {}, SAVED, "intent", "intent"),
    # `nv config save` refused: where auto save had saved the confirmed intent, the push is done.
    (AUTO, "confirm", {"refuse": SAVE["cumulus"]}, SAVED, "intent", "intent"),
    (AUTO, "apply", {"refuse": SAVE["cumulus"]}, SAVED, "intent", "intent"),
    (OLD, None, {"refuse": SAVE["cumulus"]}, "live unsaved", "intent", "previous"),
    # Cut at the apply: live, unconfirmed, until the timer. Saved at the apply, the startup config
    # holds the intent, and keeps it after the rollback.
    (AUTO, "apply", {"drop_at": COMMIT["cumulus"]}, TIMER + HOLDS, "previous", "intent"),
    (AUTO, "confirm", {"drop_at": COMMIT["cumulus"]}, TIMER, "previous", "previous"),
    (OLD, None, {"drop_at": COMMIT["cumulus"]}, TIMER, "previous", "previous"),
    # The confirm refused: as the cut apply.
    (AUTO, "apply", {"refuse": CONFIRM["cumulus"]}, TIMER + HOLDS, "previous", "intent"),
    (OLD, None, {"refuse": CONFIRM["cumulus"]}, TIMER, "previous", "previous"),
    # The confirm lost and landing after the timer: running is back, startup may not be.
    (AUTO, "apply", LATE_CONFIRM, DIFFERS, "previous", "intent"),
    (AUTO, "confirm", LATE_CONFIRM, "rolled back", "previous", "previous"),
    (OLD, None, LATE_CONFIRM, "rolled back", "previous", "previous"),
]


@pytest.fixture
def start_release(fleet, prod_fabric, rendered):
    """start_release(release, autosave_at, **faults) -> Target: the prod inventory's Cumulus switch
    on a simulator running that release."""

    def starter(release: str, autosave_at: str | None, **faults) -> Target:
        name = SWITCH_OF_PLATFORM["cumulus"]
        model = dataclasses.replace(prod_fabric.switches[name], os_version=release)
        options = SimOptions(
            **{"username": "netops", "password": PASSWORD, "minute_seconds": 2, "slow_s": SLOW_S, **faults}
        )
        ports = [p.name for p in model.ports]
        sim = fleet.start(
            "cumulus", name, options=options, ports=ports, model=model.model, os_version=release
        )
        if autosave_at is not None:
            fleet.call(lambda: sim.__dict__.__setitem__("nvue_autosave_at", autosave_at))
        switch = dataclasses.replace(model, mgmt_address="127.0.0.1", mgmt_port=sim.port, mgmt_user="netops")
        return Target(sim, switch, rendered[name])

    return starter


def _holds(config: object, target: Target, previous: object) -> str:
    if config == previous:
        return "previous"
    return "intent" if missing_from(config, target.intended, "cumulus") == [] else "other"


@pytest.mark.parametrize(
    ("release", "autosave_at", "fault", "expected", "end_running", "end_startup"), CASES, ids=_id
)
def test_the_report_says_what_running_and_startup_hold(
    fleet, start_release, backups, release, autosave_at, fault, expected, end_running, end_startup
):
    target = start_release(release, autosave_at, **fault)
    before = running(fleet, target)
    saved = startup(fleet, target)
    assert saved == before  # a fresh switch: both hold the factory config
    try:
        push_switch(
            target.switch,
            target.intended,
            connection(),
            check_mode=False,
            backup_root=backups,
            options=OPTIONS,
        )
        state, message = SAVED, "returned"
    except PushError as error:
        state, message = error.config_state, str(error)
    assert re.fullmatch(expected, state), message
    slow_s = fault.get("slow_s", SLOW_S)
    wait_for(lambda: not fleet.call(lambda: list(target.sim.in_flight)), slow_s + 5)  # all landed
    if end_running == "previous":  # back by the OS's timer
        wait_for(lambda: running(fleet, target) == before, CONFIRM_S + slow_s + 3)
    assert not fleet.call(lambda: target.sim.state.pending_confirm)
    assert _holds(running(fleet, target), target, before) == end_running
    assert _holds(startup(fleet, target), target, saved) == end_startup
    assert leftovers(fleet, target) == {}
