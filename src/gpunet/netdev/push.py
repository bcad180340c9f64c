"""Push one switch's reviewed config (intended/<fabric>/<switch>.cfg) safely.

Order: read running -> remediation within gpunet's owned scope (gpunet.netdev.remediation:
additions and removals in the OS's form) -> stop here in check mode or when nothing differs ->
back up running -> stage and apply the remediation (with the OS's confirm timer) ->
confirm over a NEW SSH session -> save. Any failure leaves the previous config: undone at once,
rolled back from a checkpoint, or rolled back by the OS's own timer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from netmiko import BaseConnection

from gpunet.model.fabric import Switch
from gpunet.netdev.backup import write_backup
from gpunet.netdev.errors import DeviceRejectedError, PushError
from gpunet.netdev.interrupts import PushInterrupted, StopSignals, stop_signals
from gpunet.netdev.jumphost import JumpHost
from gpunet.netdev.nxos_checks import check_system_defined
from gpunet.netdev.pushlock import switch_lock
from gpunet.netdev.readback import UNKNOWN, Holds, ReadBack
from gpunet.netdev.remediation import Remediation, remediate
from gpunet.netdev.session import open_session
from gpunet.netdev.sonic_checks import check_buffer_model
from gpunet.netdev.strategies import STRATEGIES, CommitStrategy, PushOptions, SessionLost
from gpunet.netdev.strategies.base import new_tag
from gpunet.platforms import get_platform


@dataclass
class PushResult:
    switch: str
    platform: str
    changed: bool
    diff: str
    backup: Path | None = None
    message: str = ""


@dataclass(frozen=True)
class Connection:
    """How to log in; `repr` never shows the password."""

    password: str
    host_key_checking: bool = True
    known_hosts: Path | None = None
    username: str | None = None
    timeout_s: float = 15.0
    key_file: Path | None = None  # SSH private key for the switch login
    use_agent: bool = False  # offer the SSH agent's keys
    jump: JumpHost | None = None  # ProxyJump-style bastion
    key_passphrase: str | None = None  # for an encrypted key_file
    ssh_config_file: Path | None = None  # OpenSSH config netmiko honours (ProxyJump, HostName, ...)

    def __repr__(self) -> str:
        return f"Connection(username={self.username!r}, host_key_checking={self.host_key_checking})"


def push_switch(
    switch: Switch,
    intended: str,
    connection: Connection,
    *,
    check_mode: bool,
    backup_root: Path,
    options: PushOptions | None = None,
) -> PushResult:
    """Push `intended` to `switch`; raises PushError (LoginError, UnreachableError, ...) on failure."""
    options = options or PushOptions()
    if not options.tag:
        options = dataclasses.replace(options, tag=new_tag())
    with switch_lock(backup_root, switch.name), stop_signals() as signals:
        try:
            connect = connector(switch, connection)
            strategy_class = STRATEGIES[get_platform(switch.platform).commit_strategy]
            strategy = strategy_class(switch.name, connect, options)
        except PushInterrupted as stop:
            raise PushError(switch.name, f"stopped by {stop.signal_name} before any change") from None
        try:
            return _run(
                strategy, switch, intended, check_mode=check_mode, backup_root=backup_root, signals=signals
            )
        finally:
            strategy.close()


def connector(switch: Switch, connection: Connection) -> Callable[[], BaseConnection]:
    """Opens a new session to `switch` each time it is called (the confirm needs a fresh one)."""

    def connect() -> BaseConnection:
        return open_session(
            switch,
            connection.password,
            host_key_checking=connection.host_key_checking,
            known_hosts=connection.known_hosts,
            username=connection.username,
            timeout_s=connection.timeout_s,
            key_file=connection.key_file,
            use_agent=connection.use_agent,
            jump=connection.jump,
            key_passphrase=connection.key_passphrase,
            ssh_config_file=connection.ssh_config_file,
        )

    return connect


def _run(
    strategy: CommitStrategy,
    switch: Switch,
    intended: str,
    *,
    check_mode: bool,
    backup_root: Path,
    signals: StopSignals,
) -> PushResult:
    name = switch.name
    try:
        running = strategy.read_running()
        remediation = plan_remediation(switch, running, intended)
        diff = remediation.diff()
        if remediation.in_sync or check_mode:
            message = "no change" if remediation.in_sync else "check mode: diff only, nothing changed"
            return PushResult(name, switch.platform, not remediation.in_sync, diff, message=message)
        backup = write_backup(backup_root, name, running)
    except SessionLost as lost:
        raise PushError(name, f"{lost} before any change; running config untouched") from None
    except PushInterrupted as stop:
        raise PushError(name, f"stopped by {stop.signal_name} before any change") from None
    check = ReadBack(strategy, switch.platform, running, intended)
    try:
        try:
            strategy.apply(remediation)
        except DeviceRejectedError as error:
            with signals.finishing():
                _undo(strategy, check, name, error.reason)
        except SessionLost as lost:
            with signals.finishing():
                _recover(strategy, check, name, str(lost))
        except PushInterrupted as stop:
            with signals.finishing():
                _recover(strategy, check, name, f"stopped by {stop.signal_name} while applying")
        with signals.finishing():
            notes = _confirm_and_save(strategy, check, name)
    except PushError as error:
        with signals.finishing():
            raise _with_startup(strategy, error) from None
    if signals.pending:
        raise PushError(
            name,
            f"{signals.pending} arrived during the confirm and save; the push finished first",
            "committed",
        )
    message = "; ".join(["committed, confirmed and saved", *notes])
    return PushResult(name, switch.platform, True, diff, backup, message)


STARTUP_DIFFERS = "rolled back live; the startup config differs (saved by the OS): read the switch"
STARTUP_HOLDS_INTENT = "; the startup config already holds the intent (saved by the OS)"


def _with_startup(strategy: CommitStrategy, error: PushError) -> PushError:
    """A state that says the previous config is back, or comes back by the OS's timer, speaks of
    the startup config too: where the OS saved the commit by itself (NVUE's auto save), read the
    startup config back and say what it holds. Other states, and OSes that cannot be asked, stay."""
    state = error.config_state
    if state == "rolled back":  # running read back as the previous config
        if strategy.startup_saved() is False:  # startup is not what runs now
            return PushError(error.switch, f"{error.reason}; the startup config differs", STARTUP_DIFFERS)
    elif state.startswith("rolling back by itself") and strategy.startup_saved() is True:
        # The unconfirmed intent is running and already in the startup config: NVIDIA does not say
        # whether the timer's rollback puts the startup config back.
        message = f"{error.reason}; the startup config already holds it: after the timer, read the switch"
        return PushError(error.switch, message, state + STARTUP_HOLDS_INTENT)
    return error


def _undo(strategy: CommitStrategy, check: ReadBack, name: str, reason: str) -> NoReturn:
    """After a rejected line, on the open session: put the previous config back, and say so."""
    try:
        strategy.undo()
    except SessionLost as lost:  # the undo may have landed: as after any lost session
        _recover(strategy, check, name, f"{reason}; {lost} while undoing")
    except PushError as again:
        holds = check.holds()
        if holds is Holds.PREVIOUS:
            state = "rolled back"
        elif holds is Holds.INTENT and strategy.self_rollback and strategy.rollback_deadline is not None:
            state = strategy.rollback_state()
        else:
            state = "live unsaved" if holds is Holds.INTENT else UNKNOWN
        message = f"{reason}; the undo failed too ({_why(again)}); the read-back found {holds.value}"
        raise PushError(name, message, state) from None
    except PushInterrupted as again:  # a second signal: stop now, without reading back
        state = strategy.rollback_state() if strategy.self_rollback else UNKNOWN
        raise PushError(
            name, f"{reason}; the undo failed too ({_why(again)}): read the switch", state
        ) from None
    _report_restore(check, name, reason)


def _recover(strategy: CommitStrategy, check: ReadBack, name: str, reason: str) -> NoReturn:
    """After the session died or was abandoned: learn what landed, then restore on a new session.

    The old session is closed first and nothing else is sent on it. Where the commit (with its
    timer) was sent, nothing is restored until a read-back says whether it landed: a restore sent
    while a slow commit is still being carried out would race it."""
    strategy.close()
    if strategy.self_rollback and strategy.rollback_deadline is not None:
        holds = check.holds()
        if holds is Holds.PREVIOUS:  # not landed, or still landing: wait out its timer
            holds = check.after_timer()
            if holds is Holds.INTENT:  # it landed late, its timer started then
                strategy.start_rollback_clock(strategy.options.confirm_timeout_s)
        _quietly(strategy.recover)  # clean up the session/revision; the commit, if live, is left alone
        if holds is Holds.INTENT:
            message = f"{reason} after the commit was sent; it landed (read back), unconfirmed"
            raise PushError(name, message, strategy.rollback_state())
        if holds is Holds.PREVIOUS:
            raise PushError(
                name, f"{reason}; the commit did not stay (read back after its timer)", "rolled back"
            )
        message = f"{reason} after the commit was sent; the read-back found {holds.value}"
        raise PushError(name, message, UNKNOWN)
    try:
        strategy.recover()
    except (PushError, SessionLost, PushInterrupted) as again:
        state = "rolling back by itself" if strategy.self_rollback else UNKNOWN
        raise PushError(name, f"{reason}; recovery failed too ({_why(again)})", state) from None
    _report_restore(check, name, reason)


def _report_restore(check: ReadBack, name: str, reason: str) -> NoReturn:
    """A restore was sent: report what the read-back finds, not what the restore promised."""
    holds = check.holds()
    if holds is Holds.PREVIOUS:
        raise PushError(name, f"{reason}; previous config restored (read back)", "rolled back")
    if holds is Holds.INTENT:
        raise PushError(name, f"{reason}; the restore did not take: the intent is live", "live unsaved")
    raise PushError(name, f"{reason}; after the restore the read-back found {holds.value}", UNKNOWN)


def _why(error: BaseException) -> str:
    if isinstance(error, PushInterrupted):
        return f"stopped by a second {error.signal_name}"
    return str(getattr(error, "reason", error))


def _confirm_and_save(strategy: CommitStrategy, check: ReadBack, name: str) -> list[str]:
    """Confirm and save; a second stop signal during them says what may be left. Returns notes
    on lost replies the read-back settled."""
    try:
        notes = _confirm(strategy, check, name)
    except PushInterrupted as stop:
        unconfirmed = strategy.rollback_state() if strategy.self_rollback else "live and unsaved"
        message = f"stopped by a second {stop.signal_name} while confirming; unless it landed: {unconfirmed}"
        raise PushError(name, message, UNKNOWN) from None
    try:
        notes += _save(strategy, name)
    except PushInterrupted as stop:
        message = (
            f"stopped by a second {stop.signal_name} while saving; the intended config is live, confirmed"
        )
        raise PushError(name, message, "live unsaved") from None
    return notes


def _confirm(strategy: CommitStrategy, check: ReadBack, name: str) -> list[str]:
    """Confirm the live commit; a failure says what the switch holds now."""
    try:
        strategy.confirm()
    except DeviceRejectedError as refused:
        if not strategy.self_rollback:
            raise
        _take_back(strategy, check, name, refused.reason)
    except SessionLost as lost:
        if not strategy.self_rollback:
            raise PushError(name, f"{lost} after the commit: read the switch", UNKNOWN) from None
        return _settle_lost_confirm(strategy, check, name, str(lost))
    return []


def _take_back(strategy: CommitStrategy, check: ReadBack, name: str, reason: str) -> NoReturn:
    """The confirm was refused: the commit is live and unconfirmed. Where the OS can take it back
    at once (EOS: abort the pending session), do, and report what the read-back then finds; else,
    or where that does not take, the OS's own timer takes it back."""
    try:
        sent = strategy.take_back()
    except (PushError, SessionLost) as error:  # it may have landed: the read-back says
        why = f"aborting the pending commit failed too ({_why(error)})"
    else:
        if not sent:
            message = f"{reason}; the unconfirmed commit is live until then"
            raise PushError(name, message, strategy.rollback_state())
        why = "the pending commit aborted"
    holds = check.holds()
    if holds is Holds.PREVIOUS:
        raise PushError(name, f"{reason}; {why}: previous config restored (read back)", "rolled back")
    if holds is Holds.INTENT:
        message = f"{reason}; {why}, but the read-back found the intent: live, unconfirmed until then"
        raise PushError(name, message, strategy.rollback_state())
    if holds is Holds.UNREADABLE:  # aborted, or live until the timer: back by then either way
        message = f"{reason}; {why}, and the read-back found {holds.value}"
        raise PushError(name, message, strategy.rollback_state())
    raise PushError(name, f"{reason}; {why}, and the read-back found {holds.value}", UNKNOWN)


def _settle_lost_confirm(strategy: CommitStrategy, check: ReadBack, name: str, lost: str) -> list[str]:
    """The confirm's reply was lost: it landed or not. Confirm again where that is harmless (Junos),
    else wait out the timer; then the read-back says which. Confirmed: the push goes on to save."""
    if strategy.reconfirm_safe:
        with contextlib.suppress(PushError, SessionLost):
            strategy.confirm()
            if check.holds() is Holds.INTENT:
                return [f"{lost} while confirming; confirmed again over a new session"]
    else:
        settled = _ask_if_pending(strategy, check, name, lost)
        if settled is not None:
            return settled
    holds = check.after_timer()
    if holds is Holds.INTENT:
        return [f"{lost} while confirming; it had landed (read back after the timer)"]
    if holds is Holds.PREVIOUS:
        message = f"{lost} while confirming; it did not land and the switch took the commit back (read back)"
        raise PushError(name, message, "rolled back")
    raise PushError(
        name, f"{lost} while confirming; after the timer the read-back found {holds.value}", UNKNOWN
    )


def _ask_if_pending(strategy: CommitStrategy, check: ReadBack, name: str, lost: str) -> list[str] | None:
    """Settle a lost confirm from the switch, before its timer: where the OS still lists the commit
    as pending, confirm it again (a confirm that had landed leaves nothing pending, so a second one
    is sent only while the first has not); once none is pending, the running config says whether
    it was confirmed or taken back. None where the OS's answer cannot be read or does not settle
    it: the caller waits out the timer, as before."""
    pending = strategy.confirm_pending()
    if pending is None:
        return None
    note = "no commit timer pending"
    if pending:
        with contextlib.suppress(PushError, SessionLost):
            strategy.confirm()
        if strategy.confirm_pending() is not False:
            return None
        note = "it was still pending: confirmed again over a new session"
    holds = check.holds()
    if holds is Holds.INTENT:
        return [f"{lost} while confirming; {note}, the intent is live (read back)"]
    if holds is Holds.PREVIOUS:
        message = (
            f"{lost} while confirming; {note} and the previous config is back: the timer took the "
            "commit back (read back)"
        )
        raise PushError(name, message, "rolled back")
    return None


def _save(strategy: CommitStrategy, name: str) -> list[str]:
    """Save the confirmed config; a refused save leaves it live and unsaved, never 'rolling back'
    (the commit is confirmed). A lost save is sent again over a new session: saving is idempotent."""
    try:
        strategy.save()
    except DeviceRejectedError as refused:
        return _refused_save(strategy, name, refused)
    except SessionLost as lost:
        strategy.close()
        try:
            strategy.conn = strategy.reconnect()
            strategy.save()
        except DeviceRejectedError as refused:
            return _refused_save(strategy, name, refused)
        except (PushError, SessionLost) as again:
            if strategy.startup_saved() is True:  # saved by the OS itself (NVUE's auto save)
                return [f"{lost} while saving, saving again failed ({_why(again)}); {AUTO_SAVED}"]
            _quietly(strategy.discard_checkpoint)
            message = (
                f"{lost} while saving, and saving again failed ({_why(again)}); the intended config is "
                "live and confirmed, the first save may have landed"
            )
            raise PushError(name, message, "live unsaved") from None
        return [f"{lost} while saving; saved again over a new session"]
    return []


AUTO_SAVED = "the startup config already holds it (read back: saved by the OS)"


def _refused_save(strategy: CommitStrategy, name: str, refused: DeviceRejectedError) -> list[str]:
    """A refused save: where the OS saved the confirmed config by itself (NVUE's auto save, read
    back), the push is done and says so; else it is live and unsaved."""
    if refused.config_state != "unchanged":  # the strategy undid it and says so (SONiC)
        raise refused
    if strategy.startup_saved() is True:
        return [f"{refused.reason}; {AUTO_SAVED}"]
    _quietly(strategy.discard_checkpoint)
    message = f"{refused.reason}; the intended config is live and confirmed, not saved: save it or push again"
    raise PushError(name, message, "live unsaved") from None


def plan_remediation(switch: Switch, running: str, intended: str) -> Remediation:
    """The remediation for `switch`; a running config gpunet cannot parse is the switch's error."""
    try:
        remediation = remediate(switch.platform, running, intended)
    except ValueError as error:  # json.JSONDecodeError on SONiC
        raise DeviceRejectedError(switch.name, f"cannot read the running config: {error}") from None
    if switch.platform == "sonic" and not remediation.in_sync:
        check_buffer_model(switch, json.loads(running))
    if switch.platform == "nxos":
        check_system_defined(switch.name, remediation.commands)
    return remediation


def _quietly(step) -> None:  # type: ignore[no-untyped-def]
    """Run a clean-up step whose own failure must not hide the error being reported."""
    with contextlib.suppress(PushError, SessionLost):
        step()
