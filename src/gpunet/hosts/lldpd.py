"""lldpd on the GPU hosts: the interfaces it listens and sends on, from the host's fabric NICs.

lldpd reads `configure system interface pattern` as comma-separated patterns, each matched with
fnmatch(3) and negated by a leading `!` (`match_pattern` in src/daemon/pattern.c and lldpcli(8),
src/client/lldpcli.8.in, at lldpd/lldpd da2ab0b). A netdev name is written into the pattern as it
is, so a name holding one of those characters would match other interfaces or none: it is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# fnmatch's wildcards and bracket expression, lldpd's separator and its negation prefix.
PATTERN_CHARACTERS = frozenset(",*?[]!")
# IFNAMSIZ less its NUL: the kernel's longest interface name (dev_valid_name in net/core/dev.c,
# which also refuses whitespace, '/' and ':'), so a longer name is a typing mistake in the inventory.
LINUX_IFNAME_MAX = 15


def netdev_problem(netdev: str) -> str:
    """Why a netdev name cannot go into lldpd's interface pattern; '' when it can."""
    if not netdev:
        return "no netdev"
    if len(netdev) > LINUX_IFNAME_MAX:
        return f"longer than the kernel's {LINUX_IFNAME_MAX} characters"
    if any(char.isspace() or char in "/:" for char in netdev):
        return "holds whitespace, '/' or ':', which no Linux interface name does"
    special = sorted(PATTERN_CHARACTERS & set(netdev))
    if special:
        return f"holds {' '.join(special)}, which lldpd's interface pattern reads as pattern syntax"
    return ""


def interface_pattern(nics: Sequence[Mapping[str, Any]]) -> str:
    """The NICs' netdevs, comma-separated in inventory order, each once; '' for no NIC."""
    names: list[str] = []
    for index, nic in enumerate(nics):
        netdev = str(nic.get("netdev") or "")
        problem = netdev_problem(netdev)
        if problem:
            raise ValueError(
                f"gpunet_nics[{index}].netdev {netdev!r} (NIC {nic.get('name', '?')}): {problem}; "
                "give the interface name as the kernel shows it (ip -br link)"
            )
        if netdev not in names:
            names.append(netdev)
    return ",".join(names)
