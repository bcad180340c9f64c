"""Push over real SSH with real netmiko to the simulator, for every platform."""

from __future__ import annotations

import copy
import json
import re
import time

import pytest

from gpunet.netdev.errors import DeviceRejectedError, LoginError, PushError, UnreachableError
from gpunet.netdev.push import Connection, push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.conftest import PASSWORD

PLATFORMS = ["nxos", "eos", "cumulus", "sonic", "junos"]
CONFIRM_S = 2  # commit-confirm window in these tests (Junos: 1 minute = 2 s in the simulator)
OPTIONS = PushOptions(confirm_timeout_s=CONFIRM_S, command_timeout_s=20)


def connection(**overrides) -> Connection:
    return Connection(**{"password": PASSWORD, "host_key_checking": False, "timeout_s": 5, **overrides})


def push(target, backups, *, check_mode: bool = False, **login):
    return push_switch(
        target.switch, target.intended, connection(**login), check_mode=check_mode, backup_root=backups,
        options=OPTIONS,
    )  # fmt: skip


def running(fleet, target):
    return fleet.call(lambda: copy.deepcopy(target.sim.state.config))


def events(fleet, target) -> list[str]:
    return fleet.call(lambda: [entry["event"] for entry in target.sim.state.history])


def missing_from(config, intended: str, platform: str) -> list[str]:
    """Intended lines (or SONiC table fields) the running config does not hold."""
    if platform == "sonic":
        return [
            f"{table}|{key}.{field}"
            for table, entries in json.loads(intended).items()
            for key, fields in entries.items()
            for field, value in fields.items()
            if config.get(table, {}).get(key, {}).get(field) != value
        ]
    have = {line.strip() for line in config}
    wanted = [line.strip() for line in intended.splitlines() if line.strip()]
    # A `no ...` line removes something; the running config does not show it.
    return [line for line in wanted if not line.startswith("no ") and line not in have]


def a_line_to_reject(target) -> str:
    """A regex matching one line in the middle of the push (one patch operation on SONiC)."""
    if target.switch.platform == "sonic":
        return r"WRED_PROFILE"
    lines = [line.strip() for line in target.intended.splitlines() if line.strip()]
    return "^" + re.escape(lines[len(lines) // 2]) + "$"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_check_mode_changes_nothing_then_push_then_second_push_has_no_diff(fleet, start, backups, platform):
    target = start(platform)
    before = running(fleet, target)
    assert missing_from(before, target.intended, platform), "the fresh simulator must lack the config"

    checked = push(target, backups, check_mode=True)
    assert checked.changed and checked.diff
    assert running(fleet, target) == before
    assert not list(backups.rglob("*.cfg")), "check mode writes no backup"

    pushed = push(target, backups)
    assert pushed.changed
    assert missing_from(running(fleet, target), target.intended, platform) == []
    assert pushed.backup is not None and pushed.backup.parent == backups / target.switch.name
    assert re.fullmatch(r"\d{8}T\d{6}\.\d{6}Z\.cfg", pushed.backup.name)
    assert PASSWORD not in pushed.backup.read_text()
    time.sleep(CONFIRM_S + 1)  # past the confirm window: the change must have been confirmed
    assert missing_from(running(fleet, target), target.intended, platform) == []
    assert not fleet.call(lambda: target.sim.state.pending_confirm)

    again = push(target, backups)
    assert (again.changed, again.diff) == (False, "")
    assert len(list((backups / target.switch.name).iterdir())) == 1, "no backup for a run without change"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_rejected_line_leaves_running_config_exactly_as_before(fleet, start, backups, platform):
    target = start(platform)
    target.sim.reject = re.compile(a_line_to_reject(target), re.M)
    before = running(fleet, target)
    with pytest.raises(PushError) as caught:
        push(target, backups)
    assert "rejected" in str(caught.value) or isinstance(caught.value, DeviceRejectedError)
    assert running(fleet, target) == before


@pytest.mark.parametrize("platform", PLATFORMS)
def test_dropped_session_mid_push_ends_with_previous_config(fleet, start, backups, platform):
    target = start(platform, drop_after=20)
    before = running(fleet, target)
    with pytest.raises(PushError, match="session lost") as caught:
        push(target, backups)
    assert "session-dropped" in events(fleet, target), "the fault must have fired"
    assert caught.value.config_state == "rolled back", str(caught.value)  # read back, every OS
    time.sleep(0.5)
    assert running(fleet, target) == before
    assert leftovers(fleet, target) == {}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_switch_unreachable_after_commit_rolls_back_by_itself(fleet, start, backups, platform):
    target = start(platform, no_reconnect=True)
    before = running(fleet, target)
    with pytest.raises(UnreachableError) as caught:
        push(target, backups, timeout_s=2)
    # NX-OS and SONiC have no commit timer: the push rolls back through the session still open.
    expected = "rolled back" if platform in ("nxos", "sonic") else "rolling back by itself"
    assert caught.value.config_state.startswith(expected)
    deadline = time.monotonic() + CONFIRM_S + 5
    while running(fleet, target) != before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert running(fleet, target) == before
    assert missing_from(before, target.intended, platform) != []
    left = leftovers(fleet, target)
    if platform == "eos":  # the simulator keeps a session whose timer fired (a gap stop 42 left open)
        assert not fleet.call(lambda: target.sim.state.pending_confirm)
        left.pop("eos sessions", None)
    assert left == {}


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("fault", ["wrong password", "login refused"])
def test_wrong_credentials_give_a_clear_error_and_touch_nothing(fleet, start, backups, platform, fault):
    target = start(platform, fail_login=fault == "login refused")
    password = "not-the-password" if fault == "wrong password" else PASSWORD
    with pytest.raises(LoginError) as caught:
        push(target, backups, password=password)
    message = str(caught.value)
    assert message.startswith(f"{target.switch.name}: login as 'netops' refused")
    assert password not in message
    assert events(fleet, target) == []
    assert not list(backups.rglob("*.cfg"))  # no backup (the push lock's file is all there is)


@pytest.mark.parametrize("platform", ["nxos", "junos"])
def test_host_key_is_checked_against_known_hosts(fleet, start, backups, tmp_path, platform):
    target = start(platform)
    known_hosts = tmp_path / "known_hosts"
    other_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOSUsTTvW5E0cH7vO0cWpQhSmyoSOQzWKkR9t4lTRKfS"
    known_hosts.write_text(f"[127.0.0.1]:{target.sim.port} {other_key}\n")
    with pytest.raises(LoginError, match="host key"):
        push(target, backups, check_mode=True, host_key_checking=True, known_hosts=known_hosts)
    known_hosts.write_text(fleet.known_hosts_line(target.sim) + "\n")
    result = push(target, backups, check_mode=True, host_key_checking=True, known_hosts=known_hosts)
    assert result.changed


def startup(fleet, target):
    return fleet.call(lambda: copy.deepcopy(target.sim.state.startup))


def leftovers(fleet, target):  # type: ignore[no-untyped-def]
    from tests.integration.push.test_interrupts import leftovers as found  # it imports this module

    return found(fleet, target)
