"""PFC show commands of NX-OS, EOS, Cumulus (per interface) and Junos, in the formats listed in
docs/switch-show-commands.md (the simulator's contract, modelled on each OS's real output)."""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import number

_NXOS_ROW = re.compile(
    r"^(?P<port>(Ethernet|Eth|port-channel)\S+)\s+(?P<mode>On|Off|Auto)\s+(?P<oper>On|Off)"
    r"(?:\s+\((?P<bitmap>[0-9a-fA-F]+)\))?\s+(?P<rx>\d+)\s+(?P<tx>\d+)\s*$"
)
_EOS_ROW = re.compile(r"^(?P<port>(Et|Ethernet|Po)\S+)\s+(?P<rx>[\d,]+)\s+(?P<tx>[\d,]+)\s*$")
_JUNOS_INTERFACE = re.compile(
    r"^Physical interface:\s*(?P<port>[^,\s]+),\s*(?P<admin>\w+),\s*Physical link is (?P<link>\w+)"
)
_JUNOS_PRIORITY = re.compile(r"^\s*Priority\s*:\s*(?P<prio>\d)\s+(?P<rx>\d+)\s+(?P<tx>\d+)\s*$")


def parse_nxos_show_interface_pfc(text: str) -> dict[str, Any]:
    """`show interface priority-flow-control`:
    {"interfaces": {port: {mode, oper, priorities, rx_pause, tx_pause}}}."""
    interfaces: dict[str, Any] = {}
    for line in content_lines(text):
        if match := _NXOS_ROW.match(line.strip()):
            bitmap = int(match["bitmap"], 16) if match["bitmap"] else 0
            interfaces[match["port"]] = {
                "mode": match["mode"],
                "oper": match["oper"],
                "priorities": [prio for prio in range(8) if bitmap >> prio & 1],
                "rx_pause": int(match["rx"]),
                "tx_pause": int(match["tx"]),
            }
    if not interfaces:
        raise ParseError(
            "no 'Port Mode Oper(VL bmap) RxPPP TxPPP' rows: not NX-OS `show interface priority-flow-control`"
        )
    return {"interfaces": interfaces}


def parse_eos_show_pfc_counters(text: str) -> dict[str, Any]:
    """`show priority-flow-control counters`: {"interfaces": {port: {rx_pause, tx_pause}}}."""
    interfaces: dict[str, Any] = {}
    seen_header = False
    for line in content_lines(text):
        if line.strip().startswith("Port") and "RxPfc" in line:
            seen_header = True
        elif seen_header and (match := _EOS_ROW.match(line.strip())):
            interfaces[match["port"]] = {"rx_pause": number(match["rx"]), "tx_pause": number(match["tx"])}
    if not seen_header:
        raise ParseError("no 'Port RxPfc TxPfc' header: not EOS `show priority-flow-control counters`")
    return {"interfaces": interfaces}


def parse_cumulus_pfc_stats(text: str) -> dict[str, Any]:
    """`nv show interface <swp> counters qos pfc-stats`: {"priorities": {prio: {rx_pause, tx_pause, ...}}}."""
    priorities: dict[str, Any] = {}
    header: list[str] = []
    for line in content_lines(text):
        tokens = line.split()
        if tokens[:1] == ["switch-priority"]:
            header = [t.replace("-", "_") for t in tokens]
        elif header and len(tokens) == len(header) and tokens[0].isdigit():
            row = {key: number(value) for key, value in zip(header[1:], tokens[1:], strict=True)}
            priorities[tokens[0]] = {
                "rx_pause": row.get("rx_pause_frames"),
                "tx_pause": row.get("tx_pause_frames"),
                **row,
            }
    if not header:
        raise ParseError("no 'switch-priority rx-pause-frames ...' header: not `nv show ... pfc-stats`")
    return {"priorities": priorities}


def parse_junos_show_interfaces_extensive(text: str) -> dict[str, Any]:
    """`show interfaces <if> extensive`, PFC block:
    {"interfaces": {port: {link, priorities: {prio: {rx_pause, tx_pause}}}}}."""
    interfaces: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    for line in content_lines(text):
        if match := _JUNOS_INTERFACE.match(line.strip()):
            current = interfaces.setdefault(match["port"], {"link": match["link"], "priorities": {}})
        elif current is not None and (match := _JUNOS_PRIORITY.match(line)):
            current["priorities"][match["prio"]] = {
                "rx_pause": int(match["rx"]),
                "tx_pause": int(match["tx"]),
            }
    if not interfaces:
        raise ParseError("no 'Physical interface:' line: not Junos `show interfaces ... extensive`")
    return {"interfaces": interfaces}
