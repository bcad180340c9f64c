"""The switch platform registry: one entry per supported network OS.

Adding an OS means one entry here, one template folder, one commit strategy and one
simulator personality; nothing else in gpunet names platforms directly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Platform:
    """What gpunet needs to know about one switch OS."""

    name: str
    title: str
    netmiko_device_type: str
    template_folder: str
    commit_strategy: str


PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in (
        Platform("nxos", "Cisco NX-OS", "cisco_nxos", "nxos", "checkpoint_rollback"),
        Platform("eos", "Arista EOS", "arista_eos", "eos", "session_commit_timer"),
        Platform("cumulus", "NVIDIA Cumulus Linux (NVUE)", "cumulus_linux", "cumulus", "nvue_apply_confirm"),
        # netmiko has no community-SONiC type: its click CLI runs in a Linux shell.
        Platform("sonic", "SONiC (community)", "linux", "sonic", "config_checkpoint_rollback"),
        Platform("junos", "Juniper Junos", "juniper_junos", "junos", "commit_confirmed"),
    )
}


class UnknownPlatformError(ValueError):
    """Raised for a platform name that is not in the registry."""


def known_platforms() -> list[str]:
    return sorted(PLATFORMS)


def get_platform(name: str) -> Platform:
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatformError(
            f"unknown platform {name!r} (expected one of: {', '.join(known_platforms())})"
        ) from None
