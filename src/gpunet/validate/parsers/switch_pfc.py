"""PFC show commands of NX-OS, EOS, Cumulus (per interface) and Junos, in the formats listed in
docs/switch-show-commands.md (the simulator's contract, modelled on each OS's real output).

Sources of the EOS and Junos formats (docs/validation.md tables them):
- Junos `show interfaces extensive`, block `MAC Priority Flow Control Statistics:` with one
  `Priority :  N  <received>  <sent>` row per priority: Juniper's `show interfaces extensive`
  reference (juniper.net/documentation/us/en/software/junos/interfaces-ethernet-switches/topics/ref/
  command/show-interfaces-extensive.html), checked against a public QFX capture (Junos 22.4,
  et-0/0/24, eight rows and no Receive/Transmit header under the block).
- EOS `show priority-flow-control`: the `Global PFC : Enabled|Disabled` line as intel/intelRSD
  reads it (PSME/agent/network/src/hal/eos_eapi/show_priority_flow_control_parser.cpp at 42a53b7);
  the per-port table `Port Enabled Priorities Active Note` (Yes/No cells) as a public EOS 4.36
  RoCEv2 configuration guide prints it (a GitHub blog post found with find_string "DCBX disabled",
  file id 58692545906; its author ran no real switch, so the layout is not a capture [U]).
- EOS `show priority-flow-control counters watchdog | json`: `interfaces.<port>.txQueues.<queue>`
  with `stuckCount`/`recoveryCount`, an interface absent until its first event, as the
  `PfcWdHealthCheck` of Meta's public TAAC test framework reads real EOS switches (a GitHub
  file found through the code index, `taac.health_checks`; its repository was not shown).
- EOS `show priority-flow-control counters detail | json`: `interfaces.<port>.priorities.<"N">`
  with `rxFrames`/`txFrames` (PFC frames received/sent on priority N), the field names Meta's
  DNE-TaaC reads from real EOS switches (facebook/DNE-TaaC, taac/health_checks/dsf_health_checks/
  dsf_pfc_health_check.py at 7261c09, `_get_eos_pfc_counters`, which runs the per-interface form
  `show interface <if> priority-flow-control counters detail | json`). The command itself is the
  one the Broadcom/Arista RoCE Deployment Guide (Jan 2024, "Configuration and Verification of
  PFC on Arista Switches") names; that the all-interface form returns the same object for every
  port is our reading, not a capture [U].
- Junos `show class-of-service interface`: per `Physical interface: <if>, Index: N` the line
  `Congestion-notification: Disabled` as real captures print it (Cisco pyATS genie's Junos
  `ShowClassOfServiceInterface` golden output; public MX960, EX2200 and QFX notes on GitHub), or
  `Congestion-notification: Enabled, Name: <profile>, Index: N` (Juniper's "Monitoring
  Interfaces That Have CoS Components" field table says enabled or disabled; the `Enabled, Name:`
  form is as a public third-party Junos CoS parser reads it, not a capture [U]).
- Junos `show class-of-service congestion-notification`: blocks `Type: Input, Name: <profile>,
  Index: N` with a `Priority  PFC` table of IEEE 802.1p code points in bits (`011  Enabled`), as
  Juniper's command reference prints it (juniper.net/documentation/en_US/junos12.2/topics/
  reference/command-summary/show-class-of-service-congestion-notification.html, sample output).
  How a DSCP-based input profile (what gpunet renders) is printed there is not documented [U]:
  a block without the table is kept with no priorities.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import is_rule, number

_NXOS_ROW = re.compile(
    r"^(?P<port>(Ethernet|Eth|port-channel)\S+)\s+(?P<mode>On|Off|Auto)\s+(?P<oper>On|Off)"
    r"(?:\s+\((?P<bitmap>[0-9a-fA-F]+)\))?\s+(?P<rx>\d+)\s+(?P<tx>\d+)\s*$"
)
_EOS_ROW = re.compile(r"^(?P<port>(Et|Ethernet|Po)\S+)\s+(?P<rx>[\d,]+)\s+(?P<tx>[\d,]+)\s*$")
_JUNOS_INTERFACE = re.compile(
    r"^Physical interface:\s*(?P<port>[^,\s]+),\s*(?P<admin>\w+),\s*Physical link is (?P<link>\w+)"
)
_JUNOS_PRIORITY = re.compile(r"^\s*Priority\s*:\s*(?P<prio>\d)\s+(?P<rx>\d+)\s+(?P<tx>\d+)\s*$")


# The first cell of a row of the NX-OS and EOS PFC tables: a row cut inside it still starts so.
_NXOS_PORT_START = re.compile(r"^(Ethernet|Eth|port-channel)\S*")
_EOS_PORT_START = re.compile(r"^(Et|Ethernet|Po)\S*")


def parse_nxos_show_interface_pfc(text: str) -> dict[str, Any]:
    """`show interface priority-flow-control`:
    {"interfaces": {port: {mode, oper, priorities, rx_pause, tx_pause}}}.

    A line that starts with a port name but is not a whole row (cut before its counters, an
    unreadable mode), a port twice, or the `Port Mode Oper(VL bmap) RxPPP TxPPP` header with no
    row under it: errors naming the line."""
    interfaces: dict[str, Any] = {}
    header_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        if stripped.startswith("Port") and "RxPPP" in stripped:
            header_line = header_line or number_
            continue
        if match := _NXOS_ROW.match(stripped):
            if match["port"] in interfaces:
                raise ParseError(f"line {number_}: port {match['port']} listed twice (duplicated capture)")
            bitmap = int(match["bitmap"], 16) if match["bitmap"] else 0
            interfaces[match["port"]] = {
                "mode": match["mode"],
                "oper": match["oper"],
                "priorities": [prio for prio in range(8) if bitmap >> prio & 1],
                "rx_pause": int(match["rx"]),
                "tx_pause": int(match["tx"]),
            }
        elif _NXOS_PORT_START.match(stripped):
            raise ParseError(
                f"line {number_}: expected '<port> <Mode> <Oper> [(<VL bmap>)] <RxPPP> <TxPPP>', "
                f"got {stripped!r} (a cut or damaged row)"
            )
    if not interfaces:
        if header_line:
            raise ParseError(
                f"line {header_line}: the `Port Mode Oper(VL bmap) RxPPP TxPPP` header has no rows"
            )
        raise ParseError(
            "no 'Port Mode Oper(VL bmap) RxPPP TxPPP' rows: not NX-OS `show interface priority-flow-control`"
        )
    return {"interfaces": interfaces}


def parse_eos_show_pfc_counters(text: str) -> dict[str, Any]:
    """`show priority-flow-control counters`: {"interfaces": {port: {rx_pause, tx_pause}}}.

    Under the `Port RxPfc TxPfc` header, a line that starts with a port name but is not a whole
    row (a row cut before its TxPfc), a port twice, or no row at all: errors naming the line."""
    interfaces: dict[str, Any] = {}
    header_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        if stripped.startswith("Port") and "RxPfc" in line:
            header_line = header_line or number_
        elif header_line and (match := _EOS_ROW.match(stripped)):
            if match["port"] in interfaces:
                raise ParseError(f"line {number_}: port {match['port']} listed twice (duplicated capture)")
            interfaces[match["port"]] = {"rx_pause": number(match["rx"]), "tx_pause": number(match["tx"])}
        elif header_line and _EOS_PORT_START.match(stripped):
            raise ParseError(
                f"line {number_}: expected '<port> <RxPfc> <TxPfc>', got {stripped!r} (a cut or damaged row)"
            )
    if not header_line:
        raise ParseError("no 'Port RxPfc TxPfc' header: not EOS `show priority-flow-control counters`")
    if not interfaces:
        raise ParseError(f"line {header_line}: the `Port RxPfc TxPfc` header has no rows")
    return {"interfaces": interfaces}


def parse_cumulus_pfc_stats(text: str) -> dict[str, Any]:
    """`nv show interface <swp> counters qos pfc-stats`: {"priorities": {prio: {rx_pause, tx_pause, ...}}}.

    Under the `switch-priority ...` header and its dashed rule, every line is a row of one count
    per column: a row with fewer or more cells (cut inside), a cell that is no count, a priority
    twice, or no row at all: errors naming the line."""
    priorities: dict[str, Any] = {}
    header: list[str] = []
    header_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        tokens = line.split()
        if tokens[:1] == ["switch-priority"]:
            if header:
                raise ParseError(f"line {number_}: a second `switch-priority` header (duplicated capture)")
            header = [t.replace("-", "_") for t in tokens]
            header_line = number_
            continue
        if not header or not tokens or is_rule(line):
            continue
        if len(tokens) != len(header) or not all(t.replace(",", "").isdigit() for t in tokens):
            raise ParseError(
                f"line {number_}: expected {len(header)} counts under the `switch-priority` header, "
                f"got {line.strip()!r} (a cut or damaged row)"
            )
        if tokens[0] in priorities:
            raise ParseError(f"line {number_}: switch priority {tokens[0]} listed twice (duplicated capture)")
        row = {key: number(value) for key, value in zip(header[1:], tokens[1:], strict=True)}
        priorities[tokens[0]] = {
            "rx_pause": row.get("rx_pause_frames"),
            "tx_pause": row.get("tx_pause_frames"),
            **row,
        }
    if not header:
        raise ParseError("no 'switch-priority rx-pause-frames ...' header: not `nv show ... pfc-stats`")
    if not priorities:
        raise ParseError(f"line {header_line}: the `switch-priority` header has no rows")
    return {"priorities": priorities}


def parse_junos_show_interfaces_extensive(text: str) -> dict[str, Any]:
    """`show interfaces [<if>] extensive`, PFC block of every physical interface:
    {"interfaces": {port: {link, pfc_block, priorities: {prio: {rx_pause, tx_pause}}}}}.
    An interface listed twice, or a PFC block with fewer than eight priority rows (a cut
    capture), is an error."""
    interfaces: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    for line in content_lines(text):
        if match := _JUNOS_INTERFACE.match(line.strip()):
            if match["port"] in interfaces:
                raise ParseError(f"{match['port']} is listed twice (a duplicated capture)")
            current = {"link": match["link"], "pfc_block": False, "priorities": {}}
            interfaces[match["port"]] = current
        elif current is not None and line.strip() == "MAC Priority Flow Control Statistics:":
            current["pfc_block"] = True
        elif current is not None and current["pfc_block"] and (match := _JUNOS_PRIORITY.match(line)):
            current["priorities"][match["prio"]] = {
                "rx_pause": int(match["rx"]),
                "tx_pause": int(match["tx"]),
            }
    if not interfaces:
        raise ParseError("no 'Physical interface:' line: not Junos `show interfaces ... extensive`")
    for port, interface in interfaces.items():
        if interface["pfc_block"] and len(interface["priorities"]) != 8:
            raise ParseError(
                f"incomplete capture: {port} has {len(interface['priorities'])} of 8 PFC priority rows"
            )
    return {"interfaces": interfaces}


_EOS_GLOBAL = re.compile(r"^Global PFC\s*:\s*(?P<state>Enabled|Disabled)\s*$")
_EOS_STATUS_FLAGS = {"E": "enabled", "D": "disabled", "A": "active", "W": "watchdog"}
_YES_NO = {"Yes": True, "No": False}


def parse_eos_show_pfc(text: str) -> dict[str, Any]:
    """EOS `show priority-flow-control`:
    {"global_enabled": bool | None, "interfaces": {port: {enabled, active, watchdog, priorities}}}.

    Rows are read under the table's header, in either layout: `Port Enabled Priorities Active
    Note` with Yes/No cells (as a public EOS 4.36 RoCE guide prints it), or `Port Status
    Priorities` with E/D/A/W letters; `watchdog` is None where the table does not say. A port
    listed twice is an error."""
    global_enabled: bool | None = None
    interfaces: dict[str, Any] = {}
    layout = ""
    header_line = 0
    for number_, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        if match := _EOS_GLOBAL.match(stripped):
            global_enabled = match["state"] == "Enabled"
        elif (
            stripped.startswith("Port")
            and "Priorities" in stripped
            and ("Enabled" in stripped or "Status" in stripped)
        ):
            layout = "yes-no" if "Enabled" in stripped else "letters"
            header_line = header_line or number_
        elif layout and (row := _eos_pfc_row(stripped, layout)):
            port, values = row
            if port in interfaces:
                raise ParseError(f"{port} is listed twice (a duplicated capture)")
            interfaces[port] = values
    if not layout:
        raise ParseError("no 'Port Enabled Priorities Active' header: not EOS `show priority-flow-control`")
    if not interfaces:
        raise ParseError(
            f"line {header_line}: the per-port PFC table has a header but no port rows (a cut capture)"
        )
    return {"global_enabled": global_enabled, "interfaces": interfaces}


def _eos_pfc_row(line: str, layout: str) -> tuple[str, dict[str, Any]] | None:
    """(port, state) of one table row; None for rules, legends and notes."""
    tokens = line.split()
    if not tokens or not re.match(r"^(Et|Ethernet|Po|Port-Channel)\d", tokens[0]):
        return None
    index = 1
    flags: set[str] = set()
    if layout == "yes-no":
        if len(tokens) < 2 or tokens[1] not in _YES_NO:
            raise ParseError(f"row for {tokens[0]} has no Yes/No in the Enabled column: {line[:60]!r}")
        flags |= {"E"} if _YES_NO[tokens[1]] else set()
        index = 2
    else:
        # Letters apart (`E A W`) or run together (`EAW`).
        while index < len(tokens) and set(tokens[index]) <= _EOS_STATUS_FLAGS.keys():
            flags |= set(tokens[index])
            index += 1
        if not flags:
            raise ParseError(f"row for {tokens[0]} has no status letters (E/D/A/W): {line[:60]!r}")
    priorities: list[int] = []
    while index < len(tokens) and re.fullmatch(r"[0-7](,[0-7])*|-", tokens[index]):
        priorities += [int(p) for p in tokens[index].split(",") if p != "-"]
        index += 1
    if layout == "yes-no":
        if index >= len(tokens) or tokens[index] not in _YES_NO:
            raise ParseError(f"row for {tokens[0]} has no Yes/No in the Active column: {line[:60]!r}")
        flags |= {"A"} if _YES_NO[tokens[index]] else set()
    state = {
        "enabled": "E" in flags,
        "active": "A" in flags,
        "watchdog": ("W" in flags) if layout == "letters" else None,
        "priorities": priorities,
    }
    return tokens[0], state


def parse_eos_pfc_watchdog_json(text: str) -> dict[str, Any]:
    """EOS `show priority-flow-control counters watchdog | json`:
    {"interfaces": {port: {queue: {"stuck": n, "recovered": n}}}} (a port without events is absent)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"not JSON (cut or damaged capture?): {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict) or not isinstance(document.get("interfaces"), dict):
        raise ParseError(
            "no 'interfaces' object: not EOS `show priority-flow-control counters watchdog | json`"
        )
    interfaces: dict[str, Any] = {}
    for port, body in document["interfaces"].items():
        queues = body.get("txQueues") if isinstance(body, dict) else None
        if not isinstance(queues, dict):
            raise ParseError(f"{port}: no 'txQueues' object")
        counters = {}
        for queue, values in queues.items():
            stuck, recovered = (
                values.get(k) if isinstance(values, dict) else None for k in ("stuckCount", "recoveryCount")
            )
            if not isinstance(stuck, int) or not isinstance(recovered, int):
                raise ParseError(f"{port} queue {queue}: stuckCount/recoveryCount are not integers")
            counters[int(queue)] = {"stuck": stuck, "recovered": recovered}
        interfaces[port] = counters
    return {"interfaces": interfaces}


def parse_eos_pfc_counters_detail_json(text: str) -> dict[str, Any]:
    """EOS `show priority-flow-control counters detail | json`:
    {"interfaces": {port: {priority: {"rx_pause": n, "tx_pause": n}}}}.

    A cut capture is not JSON; a port or priority given twice (a duplicated capture spliced into
    one object) is an error, as JSON parsers otherwise keep the last copy silently."""
    try:
        document = json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ParseError(f"not JSON (cut or damaged capture?): {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict) or not isinstance(document.get("interfaces"), dict):
        raise ParseError(
            "no 'interfaces' object: not EOS `show priority-flow-control counters detail | json`"
        )
    interfaces: dict[str, Any] = {}
    for port, body in document["interfaces"].items():
        priorities = body.get("priorities") if isinstance(body, dict) else None
        if not isinstance(priorities, dict):
            raise ParseError(f"{port}: no 'priorities' object")
        counters = {}
        for priority, values in priorities.items():
            if not re.fullmatch(r"[0-7]", str(priority)):
                raise ParseError(f"{port}: priority {priority!r} is not 0-7")
            rx, tx = (values.get(k) if isinstance(values, dict) else None for k in ("rxFrames", "txFrames"))
            if not isinstance(rx, int) or not isinstance(tx, int):
                raise ParseError(f"{port} priority {priority}: rxFrames/txFrames are not integers")
            counters[int(priority)] = {"rx_pause": rx, "tx_pause": tx}
        interfaces[port] = counters
    return {"interfaces": interfaces}


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if duplicated := sorted({key for key in keys if keys.count(key) > 1}):
        raise ParseError(f"{duplicated[0]} is listed twice (a duplicated capture)")
    return dict(pairs)


_JUNOS_COS_INTERFACE = re.compile(r"^Physical interface:\s*(?P<port>[^,\s]+),\s*Index:\s*\d+")
_JUNOS_CN_LINE = re.compile(
    r"^Congestion-notification:\s*(?:(?P<off>Disabled)|Enabled"
    r"(?:,\s*Name:\s*(?P<profile>[^,\s]+)(?:,\s*Index:\s*\d+)?)?)\s*$"
)  # `Enabled` alone is accepted too: the enabled form is not confirmed by a capture


def parse_junos_show_cos_interface(text: str) -> dict[str, Any]:
    """`show class-of-service interface` (whole, or reduced by `| match` to the physical-interface
    and congestion-notification lines): {"interfaces": {port: {"congestion_notification": bool |
    None, "profile": str | None}}}; None where the interface's block has no such line."""
    interfaces: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    for line in content_lines(text):
        stripped = line.strip()
        if match := _JUNOS_COS_INTERFACE.match(stripped):
            if match["port"] in interfaces:
                raise ParseError(f"{match['port']} is listed twice (a duplicated capture)")
            current = {"congestion_notification": None, "profile": None}
            interfaces[match["port"]] = current
        elif stripped.startswith("Congestion-notification:"):
            match = _JUNOS_CN_LINE.match(stripped)
            if current is None or match is None:
                raise ParseError(f"unreadable congestion-notification line: {stripped[:70]!r}")
            if current["congestion_notification"] is not None:
                raise ParseError("two congestion-notification lines under one interface (a damaged capture)")
            current["congestion_notification"] = match["off"] is None
            current["profile"] = match["profile"]
    if not interfaces:
        raise ParseError(
            "no 'Physical interface: <if>, Index: N' line: not Junos `show class-of-service interface`"
        )
    return {"interfaces": interfaces}


_JUNOS_CN_PROFILE = re.compile(
    r"^Type:\s*(?P<type>Input|Output),\s*Name:\s*(?P<name>[^,\s]+),\s*Index:\s*(?P<index>\d+)\s*$"
)
_JUNOS_CN_ROW = re.compile(r"^(?P<bits>[01]{3})\s+(?P<pfc>Enabled|Disabled)\s*$")


def parse_junos_show_cos_congestion_notification(text: str) -> dict[str, Any]:
    """`show class-of-service congestion-notification`:
    {"profiles": {name: {"input" | "output": {"index": n, "priorities": {prio: pfc_enabled}}}}}.

    A `Priority PFC` table must list all eight code points once (fewer is a cut capture); a
    profile block given twice is an error; other lines in a block are left alone."""
    profiles: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    where = ""
    for line in content_lines(text):
        stripped = line.strip()
        if match := _JUNOS_CN_PROFILE.match(stripped):
            _check_cn_table(current, where)
            direction = match["type"].lower()
            if direction in profiles.get(match["name"], {}):
                raise ParseError(
                    f"profile {match['name']} ({direction}) is listed twice (a duplicated capture)"
                )
            current = {"index": int(match["index"]), "priorities": {}, "table": False}
            profiles.setdefault(match["name"], {})[direction] = current
            where = f"profile {match['name']} ({direction})"
        elif current is not None and re.fullmatch(r"Priority\s+PFC", stripped):
            current["table"] = True
        elif current is not None and current["table"] and (match := _JUNOS_CN_ROW.match(stripped)):
            priority = int(match["bits"], 2)
            if priority in current["priorities"]:
                raise ParseError(f"{where}: code point {match['bits']} is listed twice")
            current["priorities"][priority] = match["pfc"] == "Enabled"
    if not profiles:
        raise ParseError(
            "no 'Type: Input, Name: <profile>, Index: N' line: not Junos "
            "`show class-of-service congestion-notification`"
        )
    _check_cn_table(current, where)
    for blocks in profiles.values():
        for block in blocks.values():
            del block["table"]
    return {"profiles": profiles}


def _check_cn_table(block: dict[str, Any] | None, where: str) -> None:
    if block is not None and block["table"] and len(block["priorities"]) != 8:
        raise ParseError(f"incomplete capture: {where} has {len(block['priorities'])} of 8 code points")
