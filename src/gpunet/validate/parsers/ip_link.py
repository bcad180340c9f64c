"""iproute2's `ip -j link show [dev NETDEV]`: each link's name, MTU and state, as JSON.

The layout comes from iproute2's own source, checked at iproute2/iproute2 ee2a4a8 (2026-06-28):
- `lib/json_print.c` new_json_obj: with `-j` the whole answer is one JSON array, one object a link
  (`-p` only indents it).
- `ip/ipaddress.c` print_linkinfo: per link `ifindex`, `ifname` (lib/utils.c print_name_and_link;
  `link` or `link_index` beside it for a link on another), `flags` (print_link_flags: an array of
  strings such as "UP", "LOWER_UP", "NO-CARRIER"), `mtu` where the kernel sent IFLA_MTU (a
  number), `qdisc`, `master`, `operstate` (a string, or `operstate_index` for an unknown state),
  `linkmode`, `group`, `txqlen`, `link_type`, `address`, ... `-br` (print_linkinfo_brief) prints
  no `mtu`, and `ip -j addr show` adds `addr_info` to the same objects: both are read alike.

Read completely or refused: text that is no JSON array (ip's error text alone, a cut capture), a
second document or text after it, a key twice in one object, a link that is no object or has no
`ifname`, and an `mtu` that is no whole number are each an error saying so.
"""

from __future__ import annotations

from typing import Any

from gpunet.validate.parsers.base import ParseError, one_json_document

_WHAT = "ip -j link show"


def parse_ip_link_json(text: str) -> dict[str, Any]:
    """{"links": [{"ifname", "ifindex", "mtu", "operstate", "flags", "link_type", "address"}, ...]} in
    ip's order; a value ip did not print is None (`flags` []): `mtu` None where the capture has none."""
    document = one_json_document(text, _WHAT, "[")
    return {"links": [_link(entry, index) for index, entry in enumerate(document)]}


def _link(entry: Any, index: int) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ParseError(f"{_WHAT}: link {index + 1} is not an object")
    name = entry.get("ifname")
    if not isinstance(name, str) or not name:
        raise ParseError(f"{_WHAT}: link {index + 1} has no ifname")
    mtu = entry.get("mtu")
    if mtu is not None and (type(mtu) is not int or mtu < 0):
        raise ParseError(f"{_WHAT}: {name}: mtu {mtu!r} is not a whole number")
    flags = entry.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(flag, str) for flag in flags):
        raise ParseError(f"{_WHAT}: {name}: flags is not a list of names")
    return {
        "ifname": name,
        "ifindex": _optional(entry, "ifindex", int, name),
        "mtu": mtu,
        "operstate": _optional(entry, "operstate", str, name),
        "flags": flags,
        "link_type": _optional(entry, "link_type", str, name),
        "address": _optional(entry, "address", str, name),
    }


def _optional(entry: dict[str, Any], key: str, kind: type, name: str) -> Any:
    value = entry.get(key)
    if value is not None and type(value) is not kind:
        raise ParseError(f"{_WHAT}: {name}: {key} {value!r} is not a {kind.__name__}")
    return value
