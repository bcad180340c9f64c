"""Which RoCE GID index carries a NIC's inventory address, and whether perftest must be told.

perftest without `-x` picks a GID itself (linux-rdma/perftest `src/perftest_resources.c`
`get_best_gid_index`): walking the table from index 0, a later entry replaces the current pick
only when it is IPv4-mapped and the pick is not (for IPv4 runs), or, with the same IPv4-ness,
when its RoCE version ranks higher (v2 over v1). So it lands on the first IPv4-mapped RoCE v2
GID. `-x` is needed only where that is not the GID of the inventory address (several addresses on
the port, a VLAN or macvlan netdev sharing it, an IPv6 fabric address).
"""

from __future__ import annotations

import re
from functools import lru_cache
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_interface
from typing import Any

_VERSION_RANK = {"IB/RoCE v1": 1, "RoCE v1": 1, "RoCE v2": 2}


# Each GID is compared several times (perftest's pick, the inventory address); parsing one with
# ipaddress costs 15 us, 4 s over a 4,096-host table. One NIC's entries are read together, so a
# bounded cache keeps every repeat.
@lru_cache(maxsize=4096)
def gid_address(gid: str) -> IPv4Address | IPv6Address:
    """The address a GID encodes: IPv4-mapped (::ffff:a.b.c.d) or a plain IPv6 address."""
    # sysfs writes every GID in full, eight groups of four: an IPv4-mapped one's last two groups
    # are the address, read directly (each NIC's own GID is new to the cache).
    if len(gid) == 39 and gid.startswith(_MAPPED) and gid[34] == ":" and _HEX_GROUPS.fullmatch(gid, 30):
        return IPv4Address(int(gid[30:34] + gid[35:39], 16))
    address = IPv6Address(gid)
    return address.ipv4_mapped or address


_MAPPED = "0000:0000:0000:0000:0000:ffff:"
_HEX_GROUPS = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}")


def perftest_choice(gids: list[dict[str, Any]]) -> int | None:
    """The index perftest picks without -x, for an IPv4 run."""
    best: dict[str, Any] | None = None
    for entry in sorted(gids, key=lambda e: e["index"]):
        if best is None:
            best = entry
            continue
        v4, best_v4 = _is_v4(entry), _is_v4(best)
        if (v4 and not best_v4) or (
            v4 == best_v4 and _VERSION_RANK.get(entry["type"], 0) > _VERSION_RANK.get(best["type"], 0)
        ):
            best = entry
    return best["index"] if best else None


def inventory_gid(gids: list[dict[str, Any]], address: str) -> dict[str, Any] | None:
    """The RoCE v2 GID that carries `address` (an inventory `ip`, with or without prefix length)."""
    wanted = ip_interface(address).ip if "/" in address else ip_address(address)
    return next(
        (entry for entry in gids if entry["type"] == "RoCE v2" and gid_address(entry["gid"]) == wanted), None
    )


def required_index(gids: list[dict[str, Any]], address: str) -> int | None:
    """The `-x` perftest must be given for this NIC, or None where its own pick is right (or
    where no GID carries the address: the roce_gid_index check reports that)."""
    ours = inventory_gid(gids, address)
    if ours is None or perftest_choice(gids) == ours["index"]:
        return None
    return ours["index"]


def _is_v4(entry: dict[str, Any]) -> bool:
    return isinstance(gid_address(entry["gid"]), IPv4Address)
