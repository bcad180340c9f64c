"""The switch platform registry: one entry per supported network OS.

Adding an OS means one entry here, one template folder, one commit strategy and one
simulator personality; nothing else in gpunet names platforms directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Platform:
    """What gpunet needs to know about one switch OS."""

    name: str
    title: str
    netmiko_device_type: str
    template_folder: str
    commit_strategy: str
    # Front-panel interface names the OS has (ASCII only). A `panel` group, where present, is the
    # front-panel port number, counted from `first_panel_port`, checked against the hardware model.
    port_name_pattern: str
    port_name_form: str
    first_panel_port: int = 1
    # A current AI-fabric hardware model running this OS: what the planner writes into a skeleton
    # for the operator to replace (gpunet.hardware has the full table).
    example_model: str = ""

    def port_name_regex(self) -> re.Pattern[str]:
        return re.compile(self.port_name_pattern, re.ASCII)


PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in (
        # Port names: NX-OS Ethernet<slot>/<port>[/<breakout>]; EOS Ethernet<port>[/<lane>] on fixed
        # and Ethernet<slot>/<port>/<lane> on modular systems; Cumulus swp<port>[s<breakout>];
        # SONiC Ethernet<first lane>; Junos <type>-<fpc>/<pic>/<port>[:<channel>].
        Platform(
            "nxos",
            "Cisco NX-OS",
            "cisco_nxos",
            "nxos",
            "checkpoint_rollback",
            r"Ethernet[0-9]+/(?P<panel>[0-9]+)(/[0-9]+)?",
            "Ethernet<slot>/<port>[/<breakout>], e.g. Ethernet1/1",
            example_model="N9K-C9364D-GX2A",
        ),
        Platform(
            "eos",
            "Arista EOS",
            "arista_eos",
            "eos",
            "session_commit_timer",
            r"Ethernet[0-9]+(/[0-9]+){0,2}",
            "Ethernet<port>[/<lane>] or Ethernet<slot>/<port>/<lane>, e.g. Ethernet1/1",
            example_model="7060X6-64PE",
        ),
        Platform(
            "cumulus",
            "NVIDIA Cumulus Linux (NVUE)",
            "cumulus_linux",
            "cumulus",
            "nvue_apply_confirm",
            r"swp(?P<panel>[0-9]+)(s[0-9]+)?",
            "swp<port>[s<breakout>], e.g. swp1 or swp1s0",
            example_model="SN5600",
        ),
        # netmiko has no community-SONiC type: its click CLI runs in a Linux shell.
        Platform(
            "sonic",
            "SONiC (community)",
            "linux",
            "sonic",
            "config_checkpoint_rollback",
            r"Ethernet[0-9]+",
            "Ethernet<first lane>, e.g. Ethernet0",
            example_model="Z9864F",
        ),
        Platform(
            "junos",
            "Juniper Junos",
            "juniper_junos",
            "junos",
            "commit_confirmed",
            r"(et|xe|ge)-[0-9]+/[0-9]+/(?P<panel>[0-9]+)(:[0-9]+)?",
            "et-<fpc>/<pic>/<port>[:<channel>], e.g. et-0/0/0, or et-0/0/3:1 on a channelized port",
            first_panel_port=0,
            example_model="QFX5240-64OD",
        ),
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
