"""`ibv_devinfo [-v]`: `hca_id:` blocks with `port:` sub-blocks; -v adds GID tables."""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, to_number

_HCA = re.compile(r"^hca_id:\s*(?P<name>\S+)")
_PORT = re.compile(r"^\s+port:\s*(?P<port>\d+)\s*$")
_FIELD = re.compile(r"^\s+(?P<key>[a-z_]+):\s*(?P<value>.*)$")
# -v: "GID[  3]:		::ffff:10.0.0.1, RoCE v2" (older releases print no type).
_GID = re.compile(r"^\s+GID\[\s*(?P<index>\d+)\]:\s*(?P<gid>[0-9a-fA-F:.]+)(?:,\s*(?P<type>.+))?$")
_NUMERIC_PREFIX = re.compile(r"^(?P<number>\d+)\s*\((?P<code>\d+)\)$")

_DEVICE_KEYS = (
    "transport",
    "fw_ver",
    "node_guid",
    "vendor_id",
    "vendor_part_id",
    "board_id",
    "phys_port_cnt",
)
_PORT_KEYS = (
    "state",
    "max_mtu",
    "active_mtu",
    "link_layer",
    "port_lid",
    "sm_lid",
    "active_width",
    "active_speed",
)


# The keys the parser keeps: `ibv_devinfo -v` prints about 130 lines per device, most of them
# capabilities no check reads, so a line is matched against the field pattern only when the word
# before its first colon is one of these.
_KEPT_KEYS = frozenset(_DEVICE_KEYS) | frozenset(_PORT_KEYS)


def parse_ibv_devinfo(text: str) -> dict[str, Any]:
    devices: list[dict[str, Any]] = []
    port: dict[str, Any] | None = None
    for raw in text.splitlines():
        # Every pattern below starts, after the indentation, with its word and a colon: the word
        # before a line's first colon picks the one pattern that may match (a line with no colon,
        # such as a capability flag, matches none), and the pattern decides.
        word, colon, _ = raw.strip().partition(":")
        if not colon:
            continue
        line = raw.rstrip()
        if word == "hca_id" and (match := _HCA.match(line.strip())):
            if any(device["name"] == match["name"] for device in devices):
                raise ParseError(f"hca_id {match['name']} is listed twice (a duplicated capture)")
            devices.append({"name": match["name"], "ports": []})
            port = None
        elif not devices:
            continue
        elif word == "port" and (match := _PORT.match(line)):
            port = {"port": int(match["port"]), "gids": []}
            devices[-1]["ports"].append(port)
        elif word.startswith("GID[") and (match := _GID.match(line)) and port is not None:
            gid_type = (match["type"] or "").strip() or None
            port["gids"].append({"index": int(match["index"]), "gid": match["gid"], "type": gid_type})
        elif word in _KEPT_KEYS and (match := _FIELD.match(line)):
            key, value = match["key"], match["value"].strip()
            if port is not None and key in _PORT_KEYS:
                port[key] = _port_value(key, value)
            elif port is None and key in _DEVICE_KEYS:
                devices[-1][key] = to_number(value) if key == "phys_port_cnt" else value
    if not devices:
        raise ParseError("no 'hca_id:' block found: not ibv_devinfo output, or no RDMA device present")
    for device in devices:
        _refuse_cut_device(device)
    return {"devices": devices}


def _refuse_cut_device(device: dict[str, Any]) -> None:
    """ibv_devinfo (rdma-core libibverbs/examples/devinfo.c print_hca_cap) prints a device's
    `phys_port_cnt` and then, without -i, each port's block, `state` its first line: fewer or more
    port blocks, or a port without its state, is a capture cut (or printed twice) inside it."""
    count = device.get("phys_port_cnt")
    ports = device["ports"]
    if isinstance(count, int) and len(ports) != count:
        raise ParseError(
            f"hca_id {device['name']}: phys_port_cnt {count} but {len(ports)} 'port:' block"
            f"{'' if len(ports) == 1 else 's'} (a cut capture, or ibv_devinfo -i selected a port)"
        )
    seen: set[int] = set()
    for port in ports:
        if port["port"] in seen:
            raise ParseError(
                f"hca_id {device['name']}: port {port['port']} listed twice (duplicated capture)"
            )
        seen.add(port["port"])
        if "state" not in port:
            raise ParseError(f"hca_id {device['name']} port {port['port']}: no 'state:' line (a cut capture)")


def _port_value(key: str, value: str) -> Any:
    """`state: PORT_ACTIVE (4)` -> "PORT_ACTIVE"; `active_mtu: 4096 (5)` -> 4096."""
    if key in ("max_mtu", "active_mtu", "port_lid", "sm_lid"):
        match = _NUMERIC_PREFIX.match(value)
        return int(match["number"]) if match else to_number(value)
    if key == "state":
        return value.split(" ")[0]
    return value
