"""The host firewall's openings: named services, their ports and the networks they are opened from.

The firewall role builds one list of openings and every backend (nftables, firewalld, ufw) prints
the same list, so the three cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpunet.hosts.settings import cidrs_by_family

PROTOCOLS = ("tcp", "udp")


class OpeningError(ValueError):
    """An opening the role was given cannot be expressed as a firewall rule."""


def port_text(ports: Any) -> str:
    """One port (5201, [5201]) or a range [first, last] as the text nft, firewalld and ufw share ("a-b")."""
    if isinstance(ports, int) or (isinstance(ports, str) and ports.isdigit()):
        first = last = int(ports)
    elif isinstance(ports, Sequence) and not isinstance(ports, str) and len(ports) in (1, 2):
        first, last = int(ports[0]), int(ports[-1])
    else:
        raise OpeningError(f"ports must be a port or [first, last], got {ports!r}")
    if not 1 <= first <= last <= 65535:
        raise OpeningError(f"ports must lie in 1..65535 with first <= last, got {ports!r}")
    return str(first) if first == last else f"{first}-{last}"


def openings_by_family(openings: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One rule per opening and address family, with duplicate sources dropped.

    Input entries: {name, comment, protocol, ports, sources, enabled (default true)}. An opening with
    no sources in a family yields no rule for it: nothing is opened to "anywhere" by omission.
    """
    rules = []
    for opening in openings:
        if not opening.get("enabled", True):
            continue
        name = str(opening["name"])
        protocol = str(opening["protocol"])
        if protocol not in PROTOCOLS:
            raise OpeningError(f"opening {name}: protocol must be tcp or udp, got {protocol!r}")
        port = port_text(opening["ports"])
        for family, nets in cidrs_by_family(list(dict.fromkeys(opening["sources"]))).items():
            if nets:
                rules.append(
                    {
                        "name": name,
                        "comment": str(opening.get("comment") or name),
                        "family": family,
                        "protocol": protocol,
                        "port": port,
                        "sources": nets,
                    }
                )
    return rules
