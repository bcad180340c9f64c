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
) -> BaseConnection:
    """An open netmiko session to `switch`, paging off; raises LoginError or UnreachableError."""
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
    params = {
        "device_type": get_platform(switch.platform).netmiko_device_type,
        "host": switch.mgmt_address,
        "port": switch.mgmt_port,
        "username": user,
        "password": password,
        "ssh_strict": host_key_checking,
        "system_host_keys": False,
        "alt_host_keys": host_key_checking,
        "alt_key_file": str(known_hosts) if known_hosts else "",
        "allow_agent": False,
        "use_keys": False,
        "ssh_config_file": None,
        "conn_timeout": timeout_s,
        "auth_timeout": timeout_s,
        "banner_timeout": timeout_s,
        "timeout": timeout_s * 2,
        "fast_cli": True,
    }
    try:
        return ConnectHandler(**params)
    except NetmikoAuthenticationException:
        raise LoginError(switch.name, f"login as {user!r} refused by {where} (wrong credentials?)") from None
    except paramiko.SSHException as error:
        # netmiko re-raises paramiko's host key errors as a plain SSHException with this text.
        if isinstance(error, paramiko.BadHostKeyException) or "does not match" in str(error):
            raise LoginError(switch.name, f"host key of {where} differs from {known_hosts}") from None
        if "not found in known_hosts" in str(error):
            raise LoginError(switch.name, f"host key of {where} is not in {known_hosts}") from None
        raise UnreachableError(switch.name, f"SSH to {where} failed: {error}") from None
    except (NetmikoTimeoutException, TimeoutError):
        raise UnreachableError(switch.name, f"SSH to {where} timed out") from None
    except OSError as error:
        raise UnreachableError(switch.name, f"SSH to {where} failed: {error.strerror or error}") from None
