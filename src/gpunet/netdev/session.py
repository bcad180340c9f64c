"""Netmiko sessions to switches: device type from the platform registry, host keys checked.

Credentials go to netmiko only; nothing here logs them (no session_log) or puts them in errors.
"""

from __future__ import annotations

from pathlib import Path

import paramiko
from netmiko import BaseConnection, ConnectHandler
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

from gpunet.model.fabric import Switch
from gpunet.netdev.errors import LoginError, UnreachableError
from gpunet.netdev.jumphost import JumpHost, open_channel
from gpunet.platforms import get_platform

DEFAULT_TIMEOUT_S = 15.0


def open_session(
    switch: Switch,
    password: str,
    *,
    host_key_checking: bool,
    known_hosts: Path | None,
    username: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    key_file: Path | None = None,
    use_agent: bool = False,
    jump: JumpHost | None = None,
    key_passphrase: str | None = None,
    ssh_config_file: Path | None = None,
) -> BaseConnection:
    """An open netmiko session to `switch`, paging off; raises LoginError or UnreachableError.

    Logs in with `key_file` and/or the SSH agent when given (the password, if any, is the
    fallback), directly or through `jump` (ProxyJump-style), or as an OpenSSH config file says
    (`ssh_config_file`: netmiko reads HostName, Port, User, ProxyCommand and a one-hop ProxyJump)."""
    user = username or switch.mgmt_user
    where = f"{switch.mgmt_address}:{switch.mgmt_port}"
    if not user:
        raise LoginError(switch.name, "no SSH user (set ansible_user for the switch)")
    if host_key_checking and (known_hosts is None or not known_hosts.is_file()):
        raise LoginError(
            switch.name,
            f"host key checking is on but the known_hosts file {known_hosts} does not exist "
            "(add the switch's key, or set gpunet_ssh_host_key_checking: false)",
        )
    if jump is not None and ssh_config_file is not None:
        raise LoginError(
            switch.name,
            "gpunet_ssh_jump_host and gpunet_ssh_config_file both set: choose one way to reach it",
        )
    if ssh_config_file is not None and not ssh_config_file.is_file():
        raise LoginError(
            switch.name, f"SSH config file {ssh_config_file} does not exist (gpunet_ssh_config_file)"
        )
    if key_file is not None and not key_file.is_file():
        raise LoginError(switch.name, f"SSH key file {key_file} does not exist (gpunet_ssh_key_file)")
    locked = key_file is not None and not key_passphrase and _encrypted(key_file)
    params = {
        "device_type": get_platform(switch.platform).netmiko_device_type,
        "host": switch.mgmt_address,
        "port": switch.mgmt_port,
        "username": user,
        # paramiko (SSHClient._auth, 5.1) takes the password as the key's passphrase when none is
        # given: "" makes an encrypted key die in bcrypt's ValueError (it catches SSHException
        # only) before the agent is tried. None lets it pass the key by and try the agent.
        "password": None if locked and not password else password,
        "ssh_strict": host_key_checking,
        "system_host_keys": False,
        "alt_host_keys": host_key_checking,
        "alt_key_file": str(known_hosts) if known_hosts else "",
        "allow_agent": use_agent,
        "use_keys": key_file is not None,  # the agent needs allow_agent only
        "key_file": str(key_file) if key_file else None,
        "passphrase": key_passphrase or None,  # an encrypted key_file
        "ssh_config_file": str(ssh_config_file) if ssh_config_file else None,
        "conn_timeout": timeout_s,
        "auth_timeout": timeout_s,
        "banner_timeout": timeout_s,
        "timeout": timeout_s * 2,
        "fast_cli": True,
    }
    jump_client = None
    if jump is not None:
        jump_client, params["sock"] = open_channel(
            switch.name,
            jump,
            (switch.mgmt_address, switch.mgmt_port),
            host_key_checking=host_key_checking,
            known_hosts=known_hosts,
            timeout_s=timeout_s,
        )
        where = f"{where} via {jump}"
    try:
        session = ConnectHandler(**params)
    except (NetmikoAuthenticationException, NetmikoTimeoutException, paramiko.SSHException, OSError) as error:
        if jump_client is not None:
            jump_client.close()
        failure = _login_error(switch.name, user, where, known_hosts, error)
        refused = isinstance(error, NetmikoAuthenticationException) or (
            isinstance(error, paramiko.SSHException) and isinstance(failure, UnreachableError)
        )  # paramiko: "No authentication methods available" once the locked key was passed by
        if locked and refused:
            hint = f"the key file {key_file} is encrypted and gpunet_ssh_key_passphrase is not set"
            failure = LoginError(switch.name, f"login as {user!r} refused by {where}; {hint}")
        raise failure from None
    if jump_client is not None:
        session._gpunet_jump_client = jump_client  # type: ignore[attr-defined] # lives with the session
    return session


def _encrypted(key_file: Path) -> bool:
    """Whether `key_file` is a private key that opens only with a passphrase (paramiko's reader:
    cryptography raises TypeError for an encrypted key read without one)."""
    try:
        paramiko.PKey.from_path(key_file)
    except TypeError:
        return True
    except (paramiko.SSHException, ValueError, OSError):
        return False
    return False


def _login_error(name: str, user: str, where: str, known_hosts: Path | None, error: Exception) -> Exception:
    """LoginError or UnreachableError for a failed login (never with credentials)."""
    if isinstance(error, NetmikoAuthenticationException):
        return LoginError(name, f"login as {user!r} refused by {where} (wrong credentials?)")
    if isinstance(error, paramiko.SSHException):
        # netmiko re-raises paramiko's host key errors as a plain SSHException with this text.
        if isinstance(error, paramiko.BadHostKeyException) or "does not match" in str(error):
            return LoginError(name, f"host key of {where} differs from {known_hosts}")
        if "not found in known_hosts" in str(error):
            return LoginError(name, f"host key of {where} is not in {known_hosts}")
        return UnreachableError(name, f"SSH to {where} failed: {error}")
    if isinstance(error, NetmikoTimeoutException | TimeoutError):
        return UnreachableError(name, f"SSH to {where} timed out")
    reason = getattr(error, "strerror", None) or error
    return UnreachableError(name, f"SSH to {where} failed: {reason}")
