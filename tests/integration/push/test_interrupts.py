"""SIGTERM and SIGINT in the middle of a push, over real SSH to the simulator: the push reports
what the switch holds and leaves nothing behind (no EOS session, no staged NVUE revision, no
checkpoint, no patch file).

The push runs in a forked child (signals reach a process's main thread only); the simulators run
in this process. Every reply is slowed down so the signal lands inside the step under test.
"""

from __future__ import annotations

import copy
import dataclasses
import multiprocessing
import os
import re
import signal
import time
from pathlib import Path

import pytest

from gpunet.netdev.errors import PushError
from gpunet.netdev.push import Connection, push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.conftest import PASSWORD, SWITCH_OF_PLATFORM
from tests.integration.push.test_push import events, missing_from, running

PLATFORMS = ["nxos", "eos", "cumulus", "sonic", "junos"]
CONFIRM_S = 2  # commit-confirm window (Junos: 1 minute = 2 s in the simulator)
LATENCY_MS = 60  # before every reply: a push takes seconds, so a signal can land inside one step
# The event the simulator records when the OS's commit (with its timer) lands.
COMMIT_EVENT = {"eos": "commit", "cumulus": "apply", "junos": "commit-confirmed"}


def _push_child(target, backups: Path, results) -> None:  # type: ignore[no-untyped-def]
    connection = Connection(password=PASSWORD, host_key_checking=False, timeout_s=5)
    options = PushOptions(confirm_timeout_s=CONFIRM_S, command_timeout_s=20)
    try:
        result = push_switch(
            target.switch, target.intended, connection, check_mode=False, backup_root=backups, options=options
        )
        results.put(("ok", "committed", result.message))
    except PushError as error:
        results.put(("error", error.config_state, str(error)))
    except BaseException as error:  # the test reports whatever escaped
        results.put(("escaped", type(error).__name__, str(error)))


def push_and_signal(target, backups: Path, when, signal_number: int, landed=None) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """Start the push in a child, send `signal_number` once `when()` is true (then call `landed()`
    if given), return its outcome."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_push_child, args=(target, backups, results))
    child.start()
    deadline = time.monotonic() + 60
    while not when() and child.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert child.is_alive(), "the push ended before the signal could be sent"
    os.kill(child.pid, signal_number)
    if landed is not None:
        landed()
    outcome = results.get(timeout=90)
    child.join(30)
    return outcome


def leftovers(fleet, target) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What a push may leave on the switch, as the simulator keeps it."""

    def read() -> dict[str, object]:
        sim = target.sim
        found = {
            "checkpoints": dict(sim.state.checkpoints),
            "eos sessions": dict(sim.__dict__.get("eos_sessions", {})),
            "staged NVUE revision": sim.__dict__.get("nvue_pending"),
            "files": {path for path in sim.__dict__.get("sonic_files", {}) if "gpunet" in path},
            "Junos exclusive lock": sim.__dict__.get("junos_exclusive"),
        }
        return {what: value for what, value in found.items() if value}

    return fleet.call(read)


def wait_for(condition, seconds: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)


def _a_line_of_the_change(intended: str) -> str:
    """A regex for one typed line in the middle of the change the push sends to a fresh switch."""
    lines = [line.strip() for line in intended.splitlines() if line.strip()]
    return "^" + re.escape(lines[len(lines) // 2]) + "$"


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_signal_while_applying_restores_the_previous_config_and_leaves_nothing(
    fleet, start, rendered, backups, platform, signal_number
):
    if platform == "sonic":  # one apply-patch: signalled 0.25 s after the backup, as the push types
        target = start(platform, latency_ms=LATENCY_MS)
        seen_backup: list[float] = []

        def applying() -> bool:  # the backup is written right before the remediation is sent
            if not seen_backup and any(backups.rglob("*.cfg")):
                seen_backup.append(time.monotonic())
            return bool(seen_backup) and time.monotonic() - seen_backup[0] > 0.25
    else:  # a line half-way through is held while the signal is sent: a busy host let a short
        # NX-OS push outrun the 0.25 s wait after the backup
        target = start(
            platform,
            latency_ms=LATENCY_MS,
            slow_at=_a_line_of_the_change(rendered[SWITCH_OF_PLATFORM[platform]]),
            slow_s=2.0,
        )

        def applying() -> bool:
            return "slow" in events(fleet, target)

    before = running(fleet, target)
    saved = fleet.call(lambda: copy.deepcopy(target.sim.state.startup))

    def without_latency() -> None:
        """The signal is sent: the slowed replies were there to land it inside the step, and the
        rollback that follows need not wait 60 ms for every reply (about half the case's time)."""
        sim = target.sim
        fleet.call(lambda: setattr(sim, "options", dataclasses.replace(sim.options, latency_ms=0)))

    kind, state, message = push_and_signal(target, backups, applying, signal_number, without_latency)
    wait_for(lambda: not fleet.call(lambda: list(target.sim.in_flight)), 5)  # the held command landed
    assert kind == "error", message
    assert signal.Signals(signal_number).name in message
    if state.startswith("rolling back by itself at"):  # the commit was already sent: its timer
        wait_for(lambda: running(fleet, target) == before, CONFIRM_S + 5)
    else:
        assert state == "rolled back", message
    assert running(fleet, target) == before
    assert fleet.call(lambda: copy.deepcopy(target.sim.state.startup)) == saved
    assert leftovers(fleet, target) == {}


@pytest.mark.parametrize("platform", list(COMMIT_EVENT))
def test_a_signal_during_the_confirm_lets_the_push_finish_and_says_so(fleet, start, backups, platform):
    target = start(platform, latency_ms=LATENCY_MS)

    seen_commit: list[float] = []

    def confirming() -> bool:
        """The commit landed and the push has had time to finish the apply step and to log in
        again for the confirm (netmiko's session setup takes several slowed-down replies)."""
        if not seen_commit and COMMIT_EVENT[platform] in events(fleet, target):
            seen_commit.append(time.monotonic())
        return bool(seen_commit) and time.monotonic() - seen_commit[0] > 8 * LATENCY_MS / 1000

    kind, state, message = push_and_signal(target, backups, confirming, signal.SIGTERM)
    assert (kind, state) == ("error", "committed"), message
    assert "SIGTERM arrived during the confirm" in message
    time.sleep(CONFIRM_S + 1)  # confirmed: no timer takes it back
    assert missing_from(running(fleet, target), target.intended, platform) == []
    if platform != "junos":  # a Junos commit is its save
        assert fleet.call(lambda: copy.deepcopy(target.sim.state.startup)) == running(fleet, target)
    assert leftovers(fleet, target) == {}


# The command each OS saves with; held (slow_at) so that the signal lands while it runs.
SAVE_COMMAND = {
    "nxos": r"^copy running-config startup-config$",
    "eos": r"^write memory$",
    "cumulus": r"^nv config save$",
    "sonic": r"config save -y$",
}


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("platform", list(SAVE_COMMAND))
def test_a_signal_during_the_save_lets_the_save_finish_and_says_so(
    fleet, start, backups, platform, signal_number
):
    """Stopping inside the save would leave the intent live and unsaved (and, on NX-OS and SONiC,
    the checkpoint): the push finishes the save, removes its checkpoint, and reports it."""
    target = start(platform, slow_at=SAVE_COMMAND[platform], slow_s=2.0)
    saving = lambda: "slow" in events(fleet, target)  # noqa: E731 - the save is being carried out
    kind, state, message = push_and_signal(target, backups, saving, signal_number)
    assert (kind, state) == ("error", "committed"), message
    assert f"{signal.Signals(signal_number).name} arrived during the confirm and save" in message
    wait_for(lambda: not fleet.call(lambda: list(target.sim.in_flight)), 5)
    assert not fleet.call(lambda: target.sim.state.pending_confirm)
    assert missing_from(running(fleet, target), target.intended, platform) == []
    assert (
        missing_from(fleet.call(lambda: copy.deepcopy(target.sim.state.startup)), target.intended, platform)
        == []
    )
    assert leftovers(fleet, target) == {}
