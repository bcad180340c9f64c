"""The push's report under a fault at each step, against the simulator (real SSH). Either the
session is cut once a command was carried out, its reply lost (`drop_at`), or a command is held
longer than the push waits (`slow_at`), so the push moves on while the switch still carries it
out. The reported state must be what the switch holds (read back), the switch must end as the
report says, and nothing of the push may be left on it."""

from __future__ import annotations

import re
import threading
import time
from types import SimpleNamespace

import pytest

from gpunet.netdev.errors import PushError
from gpunet.netdev.push import push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.test_interrupts import leftovers, wait_for
from tests.integration.push.test_push import connection, missing_from, running, startup

# netmiko notices a cut session only at its read timeout: keep it short here, and the commit timer
# long enough that the read-back after a cut at the commit finds it still running.
CONFIRM_S = 4  # Junos: its 1 minute, simulated as long
OPTIONS = PushOptions(confirm_timeout_s=CONFIRM_S, command_timeout_s=1.5)
# Longer than the push waits for one command; a slow commit lands this late and its timer then
# runs past the push's read-back at its own deadline plus ReadBack.after_timer's 2 s margin.
SLOW_S = 3.5

TIMER = r"rolling back by itself at \d\d:\d\d:\d\d UTC"
SAVED = "committed and saved"  # the push returned: confirmed and saved
# The commands each OS commits, confirms and saves with.
COMMIT = {
    "nxos": r"^end$",  # typed lines are live at once: the last command of the change
    "eos": r"^commit timer ",
    "cumulus": r"^nv config apply --confirm \d+s",
    "sonic": r"config apply-patch ",
    "junos": r"^commit confirmed ",
}
CONFIRM = {
    "eos": r"^configure session \S+ commit$",
    "cumulus": r"^nv config apply --confirm-yes",
    "junos": r"^commit$",
}
SAVE = {
    "nxos": r"^copy running-config startup-config$",
    "eos": r"^write memory$",
    "cumulus": r"^nv config save$",
    "sonic": r"config save -y$",
}

# (platform, fault, the state the push must report, what the switch must end with)
CASES = [
    # Cut at the commit: where it carries a timer, the commit is live and unconfirmed until then;
    # elsewhere the push restores its checkpoint on a new session.
    *[(p, {"drop_at": COMMIT[p]}, TIMER if p in CONFIRM else "rolled back", "previous") for p in COMMIT],
    # Cut at the confirm: it landed; the read-back (or a second confirm on Junos) says so, and the
    # push goes on to save.
    *[(p, {"drop_at": command}, SAVED, "intent saved") for p, command in CONFIRM.items()],
    # Cut at the save: saving again over a new session is harmless.
    *[(p, {"drop_at": command}, SAVED, "intent saved") for p, command in SAVE.items()],
    # A commit slower than the push waits: nothing is restored while it may still land. It lands,
    # with its timer; SONiC's patch has none, and its rollback waits for the patch to end.
    # A rejected line, and the undo's reply lost: the undo landed (read back); nothing left.
    ("eos", {"reject": r"^bandwidth percent 60$", "drop_at": r"^abort$"}, "rolled back", "previous"),
    (
        "nxos",
        {"reject": r"^policy-map type queuing GPUNET-QUEUING-OUT$", "drop_at": r"^rollback running-config "},
        "rolled back",
        "previous",
    ),
    ("eos", {"slow_at": COMMIT["eos"]}, TIMER, "previous"),
    # The confirm refused: EOS aborts the pending session, which takes the commit back at once
    # (read back), rather than leaving it live, and the session listed, until its timer fires.
    ("eos", {"refuse": CONFIRM["eos"]}, "rolled back", "previous at once"),
    ("cumulus", {"slow_at": COMMIT["cumulus"]}, TIMER, "previous"),
    ("sonic", {"slow_at": COMMIT["sonic"]}, "rolled back", "previous"),
    # The link goes while SONiC's patch still runs, and it lands after a rollback sent at once.
    ("sonic", {"slow_at": COMMIT["sonic"], "slow_s": 6.0, "cut_while_slow": True}, "rolled back", "previous"),
    # Junos: a `commit confirmed` slower than the push waits lands with its timer, as EOS's.
    ("junos", {"slow_at": COMMIT["junos"]}, TIMER, "previous"),
    # NX-OS: the lines are live as typed; an `end` slower than the push waits is a lost session,
    # and the checkpoint is restored on a new session.
    ("nxos", {"slow_at": COMMIT["nxos"]}, "rolled back", "previous"),
    # The confirm refused (`configuration database locked by ...`, NVUE `Config apply is in
    # progress`): the commit stays live and unconfirmed until the OS's timer takes it back.
    ("cumulus", {"refuse": CONFIRM["cumulus"]}, TIMER, "intent until the timer"),
    ("junos", {"refuse": CONFIRM["junos"]}, TIMER, "intent until the timer"),
    # The save refused (`% Permission denied (bootflash full)`): confirmed and live, not saved,
    # and no checkpoint, session or patch file left. Cumulus's rows, per release (auto save), are
    # in test_cumulus_autosave.py; a Junos commit is its save.
    *[(p, {"refuse": SAVE[p]}, "live unsaved", "intent unsaved") for p in ("nxos", "eos", "sonic")],
]


def _id(value: object) -> str:
    if isinstance(value, dict):
        return "-".join(f"{k}:{v}" for k, v in value.items())
    return re.sub(r"\W+", "-", str(value)).strip("-")


@pytest.mark.parametrize(("platform", "fault", "expected", "end"), CASES, ids=_id)
def test_a_fault_is_reported_as_what_the_switch_holds(fleet, start, backups, platform, fault, expected, end):
    target = start(platform, **{"slow_s": SLOW_S, **fault}, minute_seconds=CONFIRM_S)  # Junos: one minute
    before = running(fleet, target)
    saved = startup(fleet, target)
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
    fired = "slow" if "slow_at" in fault else "refused" if "refuse" in fault else "session-dropped"
    assert fired in fleet.call(lambda: [e["event"] for e in target.sim.state.history])
    slow_s = fault.get("slow_s", SLOW_S)
    if end == "intent until the timer":  # live and unconfirmed as reported, then taken back
        assert missing_from(running(fleet, target), target.intended, platform) == []
        assert fleet.call(lambda: target.sim.state.pending_confirm)
        wait_for(lambda: running(fleet, target) == before, CONFIRM_S + 5)
        assert running(fleet, target) == before
        assert startup(fleet, target) == saved
    elif end == "intent unsaved":  # confirmed, so no timer takes it back; the startup config is the old one
        assert not fleet.call(lambda: target.sim.state.pending_confirm)
        assert missing_from(running(fleet, target), target.intended, platform) == []
        assert startup(fleet, target) == saved
    elif end == "previous at once":  # taken back before the push returned, not by the OS's timer
        assert running(fleet, target) == before
        assert not fleet.call(lambda: target.sim.state.pending_confirm)
        assert startup(fleet, target) == saved
    elif end == "previous":
        wait_for(lambda: not fleet.call(lambda: list(target.sim.in_flight)), slow_s + 5)  # it has landed
        wait_for(lambda: running(fleet, target) == before, CONFIRM_S + slow_s + 3)
        assert running(fleet, target) == before
        assert startup(fleet, target) == saved
    else:
        assert not fleet.call(lambda: target.sim.state.pending_confirm)  # confirmed: no timer runs
        assert missing_from(running(fleet, target), target.intended, platform) == []
        if platform != "junos":  # a Junos commit is its saved config
            assert missing_from(startup(fleet, target), target.intended, platform) == []
    assert leftovers(fleet, target) == {}


def test_a_junos_configuration_locked_by_another_session_is_left_unchanged(fleet, start, backups):
    """`configure exclusive` held by someone else: the push changes nothing and says who holds it."""
    target = start("junos")
    holder = SimpleNamespace(username="operator")  # a session the simulator sees in exclusive mode
    fleet.call(lambda: target.sim.__dict__.__setitem__("junos_exclusive", holder))
    before = running(fleet, target)
    with pytest.raises(PushError) as caught:
        push_switch(target.switch, target.intended, connection(), check_mode=False, backup_root=backups)
    assert caught.value.config_state == "unchanged"
    assert "locked by" in str(caught.value) and "operator" in str(caught.value)
    assert running(fleet, target) == before
    assert fleet.call(lambda: target.sim.__dict__.get("junos_exclusive")) is holder  # not taken from them


# The command each OS's push reads its running config with.
READ = {
    "nxos": r"^show running-config$",
    "eos": r"^show running-config$",
    "cumulus": r"^nv config show -o commands$",
    "sonic": r"^show runningconfiguration all$",
    "junos": r"^show configuration \| display set$",
}


@pytest.mark.parametrize("platform", list(READ))
def test_output_cut_half_way_is_never_taken_as_the_running_config(fleet, start, backups, platform):
    """Half a running config read as the whole would make a remediation that re-adds the other
    half: the cut (no prompt came back) is a lost session before any change."""
    target = start(platform, cut_output_at=READ[platform])
    before = running(fleet, target)
    with pytest.raises(PushError) as caught:
        push_switch(
            target.switch,
            target.intended,
            connection(),
            check_mode=False,
            backup_root=backups,
            options=OPTIONS,
        )
    assert caught.value.config_state == "unchanged", str(caught.value)
    assert "session lost" in str(caught.value)
    assert "mid_output" in fleet.call(lambda: target.sim.state.history[-1])
    assert running(fleet, target) == before
    assert not list(backups.rglob("*.cfg"))  # nothing was read as the running config


# The confirm's reply lost under a commit timer far longer than the push needs: the push asks the
# switch over a new session whether its commit still waits for a confirm, instead of waiting the
# timer out. Only where that answer cannot be read does it wait (the last row: its timer is short).
LONG_S = 40
# (platform, fault, commit timer, the state the push must report, how it settled (its message),
# returns within (min_s, max_s))
LOST_CONFIRM = [
    # The confirm landed, its reply lost: no timer pending, the intent live.
    ("eos", {"drop_at": CONFIRM["eos"]}, LONG_S, SAVED, "no commit timer pending", (0, LONG_S / 4)),
    # The link goes as the confirm starts; it is still being carried out when the push asks: the
    # session is listed pending, the push confirms it again; the late first confirm finds none.
    (
        "eos",
        {"slow_at": CONFIRM["eos"], "slow_s": 6.0, "cut_while_slow": True},
        LONG_S,
        SAVED,
        "still pending: confirmed again",
        (0, LONG_S / 4),
    ),
    # Junos: a second `commit` confirms a pending `commit confirmed` and commits nothing once it
    # is confirmed (the strategy's reconfirm_safe): sent at once, no waiting. Its one minute is
    # simulated as LONG_S.
    (
        "junos",
        {"drop_at": CONFIRM["junos"], "minute_seconds": LONG_S},
        LONG_S,
        SAVED,
        "confirmed again over a new session",
        (0, LONG_S / 4),
    ),
    # The session list cannot be read (refused): as before, the push waits out the timer.
    (
        "eos",
        {"drop_at": CONFIRM["eos"], "refuse": r"^show configuration sessions"},
        CONFIRM_S,
        SAVED,
        "read back after the timer",
        (CONFIRM_S, 30),
    ),
]


@pytest.mark.parametrize(("platform", "fault", "timer_s", "expected", "how", "within"), LOST_CONFIRM, ids=_id)
def test_a_lost_confirm_is_settled_from_the_switch_before_its_timer(
    fleet, start, backups, platform, fault, timer_s, expected, how, within
):
    target = start(platform, **fault)
    saved = startup(fleet, target)
    options = PushOptions(confirm_timeout_s=timer_s, command_timeout_s=1.5)
    began = time.monotonic()
    try:
        result = push_switch(
            target.switch,
            target.intended,
            connection(),
            check_mode=False,
            backup_root=backups,
            options=options,
        )
        state, message = SAVED, result.message
    except PushError as error:
        state, message = error.config_state, str(error)
    took = time.monotonic() - began
    assert re.fullmatch(expected, state), message
    assert how in message, message
    assert within[0] <= took <= within[1], f"returned after {took:.1f} s, commit timer {timer_s} s"
    wait_for(lambda: not fleet.call(lambda: list(target.sim.in_flight)), fault.get("slow_s", 0) + 5)
    assert not fleet.call(lambda: target.sim.state.pending_confirm)  # confirmed: no timer runs
    assert missing_from(running(fleet, target), target.intended, platform) == []
    if platform != "junos":  # a Junos commit is its saved config
        assert missing_from(startup(fleet, target), target.intended, platform) == []
        assert startup(fleet, target) != saved
    assert leftovers(fleet, target) == {}


@pytest.mark.parametrize("platform", list(READ))
def test_two_pushes_at_once_to_one_switch_one_is_refused_before_any_change(fleet, start, backups, platform):
    """Two pushes started in the same instant (two playbook runs on one controller): they used to
    share the second-resolution tag, session, checkpoint and patch file, and EOS and Cumulus ended
    with neither config. The per-switch lock lets one through; the other is refused before it logs
    in, says so, and changes nothing; the switch ends with the intent, saved, and nothing left."""
    target = start(platform)
    ready = threading.Barrier(2)
    outcomes: list[tuple[str, str]] = []

    def one_push() -> None:
        ready.wait()
        try:
            push_switch(
                target.switch, target.intended, connection(), check_mode=False, backup_root=backups,
                options=OPTIONS,
            )  # fmt: skip
            outcomes.append((SAVED, "returned"))
        except PushError as error:
            outcomes.append((error.config_state, str(error)))

    pushes = [threading.Thread(target=one_push) for _ in range(2)]
    for push in pushes:
        push.start()
    for push in pushes:
        push.join(120)
    assert sorted(state for state, _ in outcomes) == sorted([SAVED, "unchanged"]), outcomes
    refused = next(message for state, message in outcomes if state == "unchanged")
    assert "another push to this switch is running" in refused
    assert len(list((backups / target.switch.name).glob("*.cfg"))) == 1  # only one read the switch
    assert not fleet.call(lambda: target.sim.state.pending_confirm)
    assert missing_from(running(fleet, target), target.intended, platform) == []
    if platform != "junos":  # a Junos commit is its saved config
        assert missing_from(startup(fleet, target), target.intended, platform) == []
    assert leftovers(fleet, target) == {}
