"""SSH through a jump host (OpenSSH's ProxyJump): a `direct-tcpip` channel from the jump host to
the switch, handed to netmiko as its socket (netmiko's `sock` parameter).

Out-of-band management networks are often reachable only through a bastion. The jump host's own
key is checked against the same known_hosts file as the switches'; it logs in with a key file or
the SSH agent (no password: bastions take keys).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import paramiko

from gpunet.netdev.errors import LoginError, UnreachableError

JUMP_SPEC = re.compile(r"(?:(?P<user>[^@\s]+)@)?(?P<host>\[[^\]]+\]|[^:\s]+)(?::(?P<port>\d+))?")


@dataclass(frozen=True)
class JumpHost:
    host: str
    port: int = 22
    user: str = ""
    key_file: Path | None = None
    use_agent: bool = True

    @classmethod
    def parse(cls, spec: str, *, key_file: Path | None = None, use_agent: bool = True) -> JumpHost:
        """`[user@]host[:port]`, as ProxyJump writes it; raises ValueError naming the spec."""
        match = JUMP_SPEC.fullmatch(spec.strip())
        if not match:
            raise ValueError(f"jump host {spec!r}: expected [user@]host[:port]")
        return cls(
            host=match["host"].strip("[]"),
            port=int(match["port"] or 22),
            user=match["user"] or "",
            key_file=key_file,
            use_agent=use_agent,
        )

    def __str__(self) -> str:
        return f"{self.user + '@' if self.user else ''}{self.host}:{self.port}"


def open_channel(
    switch: str,
    jump: JumpHost,
    target: tuple[str, int],
    *,
    host_key_checking: bool,
    known_hosts: Path | None,
    timeout_s: float,
) -> tuple[paramiko.SSHClient, paramiko.Channel]:
    """A client logged in to the jump host and a channel from it to `target`."""
    if jump.key_file is not None and not jump.key_file.is_file():
        raise LoginError(switch, f"SSH key file {jump.key_file} of jump host {jump} does not exist")
    client = paramiko.SSHClient()
    if host_key_checking and known_hosts is not None:
        client.load_host_keys(str(known_hosts))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
    else:
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(
            jump.host,
            port=jump.port,
            username=jump.user or None,
            key_filename=str(jump.key_file) if jump.key_file else None,
            allow_agent=jump.use_agent,
            look_for_keys=False,
            timeout=timeout_s,
            auth_timeout=timeout_s,
            banner_timeout=timeout_s,
        )
        transport = client.get_transport()
        assert transport is not None
        channel = transport.open_channel("direct-tcpip", target, ("127.0.0.1", 0), timeout=timeout_s)
    except paramiko.AuthenticationException:
        client.close()
        raise LoginError(switch, f"jump host {jump} refused the login (key or agent)") from None
    except paramiko.BadHostKeyException:
        client.close()
        raise LoginError(switch, f"host key of jump host {jump} differs from {known_hosts}") from None
    except paramiko.SSHException as error:
        client.close()
        if "not found in known_hosts" in str(error):
            raise LoginError(switch, f"host key of jump host {jump} is not in {known_hosts}") from None
        raise UnreachableError(switch, f"through jump host {jump}: {error}") from None
    except (OSError, TimeoutError) as error:
        client.close()
        reason = getattr(error, "strerror", None) or error or "timed out"
        raise UnreachableError(switch, f"jump host {jump} not reachable: {reason}") from None
    return client, channel
