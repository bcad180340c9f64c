"""Switch logins with an SSH key and through a jump host (ProxyJump-style), over real SSH.

The jump host is an asyncssh server this test starts on 127.0.0.1; it forwards only to
127.0.0.1 and takes only the test's key.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from gpunet.netdev.errors import LoginError
from gpunet.netdev.jumphost import JumpHost
from gpunet.netdev.push import Connection, push_switch
from gpunet.netdev.strategies import PushOptions
from tests.integration.push.test_push import OPTIONS, missing_from


@dataclasses.dataclass
class Keys:
    switch_key: Path
    jump_key: Path
    switch_public: str
    jump_public: str


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Keys:
    folder = tmp_path_factory.mktemp("keys")
    found = {}
    for name in ("switch", "jump"):
        key = asyncssh.generate_private_key("ssh-ed25519")
        path = folder / f"{name}_ed25519"
        key.write_private_key(path)
        path.chmod(0o600)
        found[name] = (path, key.export_public_key().decode())
    return Keys(found["switch"][0], found["jump"][0], found["switch"][1], found["jump"][1])


class _Jump(asyncssh.SSHServer):
    def __init__(self, authorized: str, forwarded: list[tuple[str, int]]) -> None:
        self.authorized = authorized
        self.forwarded = forwarded

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn

    def begin_auth(self, username: str) -> bool:
        self.conn.set_authorized_keys(asyncssh.import_authorized_keys(self.authorized))
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        if dest_host != "127.0.0.1":  # never anywhere else
            return False
        self.forwarded.append((dest_host, dest_port))
        return True


@pytest.fixture
def jump_server(fleet, keys) -> Iterator[tuple[int, list[tuple[str, int]]]]:
    forwarded: list[tuple[str, int]] = []

    async def listen():  # type: ignore[no-untyped-def]
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_factory=lambda: _Jump(keys.jump_public, forwarded),
            server_host_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        )

    server = asyncio.run_coroutine_threadsafe(listen(), fleet.loop).result(10)
    yield server.sockets[0].getsockname()[1], forwarded
    fleet.loop.call_soon_threadsafe(server.close)


def key_connection(keys: Keys, **overrides) -> Connection:
    fields = {"password": "", "host_key_checking": False, "timeout_s": 5, "key_file": keys.switch_key}
    return Connection(**{**fields, **overrides})


@pytest.mark.parametrize("platform", ["nxos", "eos", "cumulus", "sonic", "junos"])
def test_key_login_without_password(start, keys, backups, platform):
    target = start(platform, authorized_keys=keys.switch_public)
    result = push_switch(
        target.switch, target.intended, key_connection(keys), check_mode=False, backup_root=backups,
        options=OPTIONS,
    )  # fmt: skip
    assert result.changed


def test_push_through_jump_host(start, keys, backups, jump_server):
    port, forwarded = jump_server
    target = start("eos", authorized_keys=keys.switch_public)
    jump = JumpHost.parse(f"bastion@127.0.0.1:{port}", key_file=keys.jump_key, use_agent=False)
    result = push_switch(
        target.switch, target.intended, key_connection(keys, jump=jump), check_mode=False,
        backup_root=backups, options=OPTIONS,
    )  # fmt: skip
    assert result.message == "committed, confirmed and saved"
    # The push and the confirm from a new session both went through the jump host.
    assert forwarded.count(("127.0.0.1", target.sim.port)) >= 2


def test_jump_host_refusing_the_key_touches_nothing(start, keys, backups, jump_server, fleet):
    port, _ = jump_server
    target = start("nxos", authorized_keys=keys.switch_public)
    before = fleet.call(lambda: list(target.sim.state.config))
    wrong = JumpHost.parse(f"bastion@127.0.0.1:{port}", key_file=keys.switch_key, use_agent=False)
    with pytest.raises(LoginError) as failure:
        push_switch(
            target.switch, target.intended, key_connection(keys, jump=wrong), check_mode=False,
            backup_root=backups, options=OPTIONS,
        )  # fmt: skip
    assert "jump host bastion@127.0.0.1" in str(failure.value)
    assert str(failure.value).count(target.switch.name) == 1
    assert fleet.call(lambda: list(target.sim.state.config)) == before


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("bastion.example.net", ("", "bastion.example.net", 22)),
        ("ops@10.0.0.1:2222", ("ops", "10.0.0.1", 2222)),
        ("ops@[2001:db8::1]:22", ("ops", "2001:db8::1", 22)),
    ],
)
def test_jump_spec_parses_like_proxyjump(spec, expected):
    jump = JumpHost.parse(spec)
    assert (jump.user, jump.host, jump.port) == expected


def test_bad_jump_spec_is_named():
    with pytest.raises(ValueError, match="'a b'"):
        JumpHost.parse("a b")


@pytest.fixture
def ssh_agent(keys, tmp_path, monkeypatch) -> Iterator[None]:
    """An ssh-agent of this test's own (socket in tmp_path) holding the switch key."""
    agent, add = shutil.which("ssh-agent"), shutil.which("ssh-add")
    if agent is None or add is None:
        pytest.skip("ssh-agent/ssh-add not installed (openssh-client)")
    socket_path = tmp_path / "agent.sock"
    process = subprocess.Popen([agent, "-D", "-a", str(socket_path)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if socket_path.exists():
                break
            time.sleep(0.02)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        subprocess.run([add, str(keys.switch_key)], check=True, capture_output=True)
        yield
    finally:
        process.terminate()
        process.wait(5)


def test_agent_login_without_key_file_or_password(start, keys, backups, ssh_agent):
    target = start("cumulus", authorized_keys=keys.switch_public)
    agent_only = key_connection(keys, key_file=None, use_agent=True)
    result = push_switch(
        target.switch, target.intended, agent_only, check_mode=False, backup_root=backups, options=OPTIONS
    )
    assert result.changed


def test_without_agent_or_key_the_key_only_switch_refuses(start, keys, backups, monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    target = start("cumulus", authorized_keys=keys.switch_public)
    with pytest.raises(LoginError):
        push_switch(
            target.switch, target.intended, key_connection(keys, key_file=None), check_mode=False,
            backup_root=backups, options=OPTIONS,
        )  # fmt: skip


def test_missing_key_file_is_a_clear_login_error(start, keys, backups, tmp_path):
    target = start("nxos", authorized_keys=keys.switch_public)
    missing = tmp_path / "no-such-key"
    for connection in (
        key_connection(keys, key_file=missing),
        key_connection(keys, jump=JumpHost("127.0.0.1", 22, "ops", missing, use_agent=False)),
    ):
        with pytest.raises(LoginError, match=f"{missing} .*does not exist"):
            push_switch(
                target.switch, target.intended, connection, check_mode=False, backup_root=backups,
                options=OPTIONS,
            )  # fmt: skip


PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def encrypted_key(tmp_path_factory) -> tuple[Path, str]:
    """An Ed25519 key written encrypted (OpenSSH format, bcrypt KDF) and its public half."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path_factory.mktemp("encrypted") / "switch_ed25519"
    key.write_private_key(path, passphrase=PASSPHRASE)
    path.chmod(0o600)
    return path, key.export_public_key().decode()


# Decrypting the key (bcrypt KDF) at each login, the confirm's included, is slow on a busy host:
# a commit timer of its own so that it never fires before the confirm.
SLOW_LOGIN = PushOptions(confirm_timeout_s=30, command_timeout_s=20)
# (gpunet_ssh_key_passphrase, what the push must end with: its message, or the LoginError's)
PASSPHRASES = [
    (PASSPHRASE, "committed, confirmed and saved"),
    # paramiko took the empty password as the passphrase and died in bcrypt's ValueError.
    (
        None,
        r"login as 'netops' refused by 127\.0\.0\.1:\d+; the key file \S+ is encrypted and "
        "gpunet_ssh_key_passphrase is not set",
    ),
    ("not the passphrase", r"login as 'netops' refused by 127\.0\.0\.1:\d+ \(wrong credentials\?\)$"),
]


@pytest.mark.parametrize(("passphrase", "expected"), PASSPHRASES, ids=["right", "none", "wrong"])
def test_an_encrypted_key_logs_in_with_its_passphrase_only(
    start, encrypted_key, backups, fleet, passphrase, expected
):
    path, public = encrypted_key
    target = start("eos", authorized_keys=public)
    before = fleet.call(lambda: list(target.sim.state.config))
    connection = Connection(
        password="", host_key_checking=False, timeout_s=5, key_file=path, key_passphrase=passphrase
    )
    try:
        result = push_switch(
            target.switch,
            target.intended,
            connection,
            check_mode=False,
            backup_root=backups,
            options=SLOW_LOGIN,
        )
        message = result.message
    except LoginError as refused:
        message = refused.reason
    assert re.fullmatch(expected, message), message
    assert PASSPHRASE not in message
    if expected.startswith("committed"):
        assert missing_from(fleet.call(lambda: list(target.sim.state.config)), target.intended, "eos") == []
        assert not fleet.call(lambda: target.sim.state.pending_confirm)
    else:  # refused at the login: nothing was typed, nothing changed
        assert fleet.call(lambda: [entry["event"] for entry in target.sim.state.history]) == []
        assert fleet.call(lambda: list(target.sim.state.config)) == before


def test_push_through_a_proxyjump_named_in_an_ssh_config(start, keys, backups, jump_server, tmp_path, fleet):
    """gpunet_ssh_config_file: the switch's address has a ProxyJump in the operator's OpenSSH
    config; netmiko runs `ssh -W` through it, for the push and for the confirm's new session."""
    if shutil.which("ssh") is None:
        pytest.skip("ssh not installed (openssh-client): netmiko runs it for a ProxyJump")
    port, forwarded = jump_server
    target = start("eos", authorized_keys=keys.switch_public)
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host bastion\n"
        f"  HostName 127.0.0.1\n  Port {port}\n  User bastion\n  IdentityFile {keys.jump_key}\n"
        "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  BatchMode yes\n"
        "Host 127.0.0.1\n  ProxyJump bastion\n"
    )
    result = push_switch(
        target.switch, target.intended, key_connection(keys, ssh_config_file=config), check_mode=False,
        backup_root=backups, options=SLOW_LOGIN,
    )  # fmt: skip
    assert result.message == "committed, confirmed and saved"
    assert forwarded.count(("127.0.0.1", target.sim.port)) >= 2  # the push, and the confirm's session
    assert missing_from(fleet.call(lambda: list(target.sim.state.config)), target.intended, "eos") == []
    assert not fleet.call(lambda: target.sim.state.pending_confirm)
