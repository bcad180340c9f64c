"""Per-queue counters of EOS and Junos: transmitted, dropped and ECN-marked packets per port and
egress queue, in the formats of docs/switch-show-commands.md.

Junos `show interfaces queue` follows Juniper's documented layout (a `Physical interface:` block,
`Queue: N, Forwarding classes: X` sub-blocks with `Queued:`/`Transmitted:` counters, `Tail-dropped
packets`, `RED-dropped packets`, `ECN-CE packets`); counters a platform does not keep print `Not
Available` and are returned as None. EOS tables are read by their header names. A port listed
twice is a duplicated capture.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import is_rule, number

_EOS_ROW = re.compile(
    r"^(?P<port>(Et|Ethernet)\S+)\s+(?P<queue>UC\d+|MC\d+|TC\d+|\d+)\s+(?P<values>[\d,\s]+)$"
)
_JUNOS_INTERFACE = re.compile(r"^Physical interface:\s*(?P<port>[^,\s]+)")
# One or more forwarding classes per queue (`Forwarding classes: BestEffort, Redirect, ...`).
_JUNOS_QUEUE = re.compile(r"^Queue:\s*(?P<queue>\d+),\s*Forwarding classes:\s*(?P<fc>.+?)\s*$")
_JUNOS_COUNTER = re.compile(r"^(?P<name>[A-Za-z][A-Za-z -]*?)\s*:\s*(?P<value>[\d,]+|Not Available)")
_JUNOS_KEYS = {
    ("queued", "Packets"): "queued_packets",
    ("transmitted", "Packets"): "transmitted_packets",
    ("transmitted", "Tail-dropped packets"): "tail_dropped_packets",
    ("transmitted", "RED-dropped packets"): "red_dropped_packets",
    ("transmitted", "Total-dropped packets"): "total_dropped_packets",
    ("transmitted", "ECN-CE packets"): "ecn_ce_packets",
}


def _queue_number(token: str) -> int:
    return int(re.sub(r"\D", "", token))


def _eos_table(text: str, required: str, what: str) -> list[tuple[str, str, list[int | None]]]:
    rows: list[tuple[str, str, list[int | None]]] = []
    header_seen = False
    seen: set[tuple[str, str]] = set()
    for line in content_lines(text):
        stripped = line.strip()
        if stripped.startswith("Port") and required in stripped:
            header_seen = True
        elif header_seen and not is_rule(line) and (match := _EOS_ROW.match(stripped)):
            key = (match["port"], match["queue"])
            if key in seen:
                raise ParseError(f"{match['port']} {match['queue']} is listed twice (a duplicated capture)")
            seen.add(key)
            rows.append((match["port"], match["queue"], [number(t) for t in match["values"].split()]))
        elif header_seen and _EOS_PORT_START.match(stripped):
            raise ParseError(
                f"expected '<port> <queue> <counters>' under the {required} header, got {stripped!r} "
                "(a cut row)"
            )
    if not header_seen:
        raise ParseError(f"no 'Port TxQ ... {required}' header: not EOS `{what}` output")
    return rows


# EOS `show interfaces counters queue detail`, egress table, as captured on a 7800R-style chassis
# (networktocode/ntc-templates tests/arista_eos/show_interfaces_counters_queue_detail_grep_egress/
# at 7ac19cf): `Port  Traffic  DropPrec  DestType  OutEnqPkts  OutEnqOctets  OutDropPkts
# OutDropOctets`, `Class` on a second header line, rows `Et3/1/1  TC1  DP0-3  UC  <4 counters>`,
# and only the queues that counted something are listed.
_EOS_DETAIL_ROW = re.compile(
    r"^(?P<port>(Et|Ethernet)\S+)\s+TC(?P<tc>\d+)\s+(?P<dp>DP\S+)\s+(?P<dest>UC|MC)\s+(?P<values>[\d,\s]+)$"
)
_EOS_DETAIL_COLUMNS = ("OutEnqPkts", "OutEnqOctets", "OutDropPkts", "OutDropOctets")


def _json_document(text: str, what: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(
            f"{what} | json: not JSON (cut or damaged capture?): {error.msg} at line {error.lineno}"
        ) from None
    if not isinstance(document, dict):
        raise ParseError(f"{what} | json: not a JSON object")
    return document


def _eos_count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ParseError(f"{where}: {value!r} is not a packet count")
    return int(value)


def _eos_queue_drops_json(text: str) -> dict[str, Any]:
    """`show interfaces counters queue detail | json`, as Arista's ANTA reads it
    (aristanetworks/anta `VerifyInterfacesEgressQueueDrops`, command revision 1):
    egressQueueCounters.interfaces.<port>.ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP<m>.droppedPackets."""
    document = _json_document(text, "show interfaces counters queue detail")
    interfaces = (
        document.get("egressQueueCounters", {}).get("interfaces")
        if isinstance(document.get("egressQueueCounters"), dict)
        else None
    )
    if not isinstance(interfaces, dict):
        raise ParseError(
            "no egressQueueCounters.interfaces: not EOS `show interfaces counters queue detail | json`"
        )
    queues = []
    for port, body in interfaces.items():
        classes = body.get("ucastQueues", {}).get("trafficClasses") if isinstance(body, dict) else None
        if not isinstance(classes, dict):
            raise ParseError(f"{port}: no ucastQueues.trafficClasses")
        for name, tc in classes.items():
            precedences = tc.get("dropPrecedences") if isinstance(tc, dict) else None
            if not re.fullmatch(r"TC\d+", name) or not isinstance(precedences, dict) or not precedences:
                raise ParseError(f"{port} {name}: no dropPrecedences")
            drops = sum(
                _eos_count(dp.get("droppedPackets") if isinstance(dp, dict) else None, f"{port} {name} {key}")
                for key, dp in precedences.items()
            )
            queues.append({"port": port, "queue": int(name[2:]), "tx_packets": None, "drop_packets": drops})
    return {"queues": queues, "zero_rows_omitted": False}


def parse_eos_counters_queue(text: str) -> dict[str, Any]:
    """EOS `show interfaces counters queue [detail] [| json]`:
    {"queues": [{port, queue, tx_packets, drop_packets}], "zero_rows_omitted": bool}.

    Two layouts, told apart by the header: the `detail` egress table (a real capture's layout,
    unicast rows; EOS leaves out queues that counted nothing, so `zero_rows_omitted` is true) and
    the `Port TxQ Counter/pkts ... Drop/pkts` table the simulator printed before [U]; or the
    `| json` form gpunet collects (field names as Arista's ANTA reads them)."""
    if text.lstrip().startswith("{"):
        return _eos_queue_drops_json(text)
    if any(line.strip().startswith("Port") and "OutDropPkts" in line for line in content_lines(text)):
        return {"queues": _eos_detail_rows(text), "zero_rows_omitted": True}
    queues = []
    for port, queue, values in _eos_table(text, "Drop/pkts", "show interfaces counters queue"):
        if len(values) < 4:
            raise ParseError(f"incomplete row for {port} {queue}: {len(values)} of 4 counters")
        queues.append(
            {"port": port, "queue": _queue_number(queue), "tx_packets": values[0], "drop_packets": values[2]}
        )
    return {"queues": queues, "zero_rows_omitted": False}


def _eos_detail_rows(text: str) -> list[dict[str, Any]]:
    columns: list[str] = []
    queues: list[dict[str, Any]] = []
    seen: set[tuple[str, int, str, str]] = set()
    for line in content_lines(text):
        stripped = line.strip()
        if stripped.startswith("Port") and "OutDropPkts" in stripped:
            columns = stripped.split()[4:]  # after Port, Traffic (Class), DropPrec, DestType
            missing = [name for name in _EOS_DETAIL_COLUMNS if name not in columns]
            if missing:
                raise ParseError(f"egress queue header lacks {', '.join(missing)}")
        elif columns and (match := _EOS_DETAIL_ROW.match(stripped)):
            values = [number(token) for token in match["values"].split()]
            if len(values) != len(columns):
                where = f"{match['port']} TC{match['tc']}"
                raise ParseError(f"incomplete row for {where}: {len(values)} of {len(columns)} counters")
            key = (match["port"], int(match["tc"]), match["dp"], match["dest"])
            if key in seen:
                raise ParseError(
                    f"{match['port']} TC{match['tc']} {match['dest']} is listed twice (a duplicated capture)"
                )
            seen.add(key)
            if match["dest"] != "UC":
                continue  # the lossless queue is a unicast queue
            counters = dict(zip(columns, values, strict=True))
            queues.append(
                {
                    "port": match["port"],
                    "queue": int(match["tc"]),
                    "tx_packets": counters["OutEnqPkts"],
                    "drop_packets": counters["OutDropPkts"],
                }
            )
        elif columns and _EOS_PORT_START.match(stripped):
            raise ParseError(
                f"expected '<port> TC<n> DP<m> UC|MC <counters>' under the egress queue header, "
                f"got {stripped!r} (a cut row)"
            )
    return _merge_drop_precedences(queues)


# The first cell of an EOS counters row (`Et3/1/1`, `Ethernet1`): a row cut before its counters
# still starts so, and is refused rather than skipped.
_EOS_PORT_START = re.compile(r"^(Et|Ethernet)\d\S*")


def _merge_drop_precedences(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per port and queue: rows of several drop precedences (DP0, DP1, ...) add up."""
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        key = (row["port"], row["queue"])
        if key not in merged:
            merged[key] = dict(row)
            continue
        for counter in ("tx_packets", "drop_packets"):
            values = [merged[key][counter], row[counter]]
            merged[key][counter] = None if None in values else sum(values)
    return list(merged.values())


def _eos_ecn_json(text: str) -> dict[str, Any]:
    """`show qos interfaces ecn counters queue | json`, as Arista's ANTA reads it
    (aristanetworks/anta `VerifyInterfacesECNCounters`, command revision 1, and its unit-test
    data): intfQueueCounters.<port>.queueCounters.<queue> = "<count>", or "-" where the queue
    counts no ECN marks (no `random-detect ecn count`)."""
    document = _json_document(text, "show qos interfaces ecn counters queue")
    interfaces = document.get("intfQueueCounters")
    if not isinstance(interfaces, dict):
        raise ParseError("no intfQueueCounters: not EOS `show qos interfaces ecn counters queue | json`")
    queues = []
    for port, body in interfaces.items():
        counters = body.get("queueCounters") if isinstance(body, dict) else None
        if not isinstance(counters, dict):
            raise ParseError(f"{port}: no queueCounters")
        for queue, value in counters.items():
            if not str(queue).isdigit():
                raise ParseError(f"{port}: queue {queue!r} is not a number")
            marks = None if value == "-" else _eos_count(value, f"{port} queue {queue}")
            queues.append({"port": port, "queue": int(queue), "ecn_marked_packets": marks})
    return {"queues": queues}


def parse_eos_ecn_counters_queue(text: str) -> dict[str, Any]:
    """EOS `show qos interfaces ecn counters queue [| json]`: {"queues": [{port, queue, ecn_marked_packets}]}.
    The `| json` form (what gpunet collects) follows ANTA's field names; the text table is [U]."""
    if text.lstrip().startswith("{"):
        return _eos_ecn_json(text)
    rows = _eos_table(text, "ECN", "show qos interfaces ecn counters queue")
    return {
        "queues": [
            {"port": port, "queue": _queue_number(queue), "ecn_marked_packets": values[0] if values else None}
            for port, queue, values in rows
        ]
    }


# Junos `show interfaces queue | display json` (the XML reply as JSON: every value a list of
# {"data": ...}): the element names of the `get-interface-queue-information` reply as
# czerwonk/junos_exporter reads them (pkg/features/interfacequeue/rpc.go) and the shape of a Junos
# 17.2R1 reply (opendaylight/nic InterfaceInformationTest: empty {} interfaces in the list, and a
# counter the platform does not keep as `<name>-na` holding "Not Available"). The ECN-CE counter's
# element name is in neither source, so this form carries no ecn_ce_packets [U].
_JUNOS_JSON_COUNTERS = {
    "queue-counters-queued-packets": "queued_packets",
    "queue-counters-trans-packets": "transmitted_packets",
    "queue-counters-tail-drop-packets": "tail_dropped_packets",
    "queue-counters-red-packets": "red_dropped_packets",
    "queue-counters-total-drop-packets": "total_dropped_packets",
}


def _junos_data(element: Any, where: str) -> str:
    if isinstance(element, list) and element and isinstance(element[0], dict) and "data" in element[0]:
        return str(element[0]["data"])
    raise ParseError(f'show interfaces queue | display json: {where} has no [{{"data": ...}}] value')


def _junos_queues_json(text: str) -> dict[str, Any]:
    document = _json_document(text, "show interfaces queue | display json")
    information = document.get("interface-information")
    if not isinstance(information, list) or not information or not isinstance(information[0], dict):
        raise ParseError("no interface-information: not Junos `show interfaces queue | display json`")
    interfaces: dict[str, Any] = {}
    for physical in information[0].get("physical-interface", []):
        if not isinstance(physical, dict) or not physical:
            continue  # Junos lists interfaces without queues as {}
        port = _junos_data(physical.get("name"), "a physical-interface")
        if port in interfaces:
            raise ParseError(f"{port} is listed twice (a duplicated capture)")
        counters_block = physical.get("queue-counters")
        if (
            not isinstance(counters_block, list)
            or not counters_block
            or not isinstance(counters_block[0], dict)
        ):
            raise ParseError(f"{port}: no queue-counters")
        queues: dict[str, Any] = {}
        for entry in counters_block[0].get("queue", []):
            number_ = _junos_data(
                entry.get("queue-number") if isinstance(entry, dict) else None, f"{port} queue"
            )
            name = _junos_data(entry.get("forwarding-class-name"), f"{port} queue {number_}")
            queue: dict[str, Any] = {"forwarding_class": name, "forwarding_classes": [name]}
            for element, key in _JUNOS_JSON_COUNTERS.items():
                if element in entry:
                    value = _junos_data(entry[element], f"{port} queue {number_} {element}")
                    if not value.isdigit():
                        raise ParseError(f"{port} queue {number_} {element}: {value!r} is not a count")
                    queue[key] = int(value)
                elif f"{element}-na" in entry:
                    queue[key] = None
            if "transmitted_packets" not in queue:
                raise ParseError(
                    f"incomplete capture: {port} queue {number_} has no queue-counters-trans-packets"
                )
            queues[number_] = queue
        interfaces[port] = {"queues": queues}
    if not interfaces:
        raise ParseError("show interfaces queue | display json: no physical-interface with queues")
    return {"interfaces": interfaces}


def parse_junos_interfaces_queue(text: str) -> dict[str, Any]:
    """Junos `show interfaces queue [| display json]`:
    {"interfaces": {port: {"queues": {n: {forwarding_class, ...}}}}}."""
    if text.lstrip().startswith("{"):
        return _junos_queues_json(text)
    interfaces: dict[str, Any] = {}
    queue: dict[str, Any] | None = None
    section = ""
    for line in content_lines(text):
        stripped = line.strip()
        if match := _JUNOS_INTERFACE.match(stripped):
            if match["port"] in interfaces:
                raise ParseError(f"{match['port']} is listed twice (a duplicated capture)")
            interfaces[match["port"]] = {"queues": {}}
            queue = None
        elif (match := _JUNOS_QUEUE.match(stripped)) and interfaces:
            classes = [name.strip() for name in match["fc"].split(",")]
            queue = {"forwarding_class": classes[0], "forwarding_classes": classes}
            port = next(reversed(interfaces))
            queues = interfaces[port]["queues"]
            if match["queue"] in queues:
                raise ParseError(f"{port} queue {match['queue']} is listed twice (a duplicated capture)")
            queues[match["queue"]] = queue
            section = ""
        elif stripped in ("Queued:", "Transmitted:"):
            section = stripped[:-1].lower()
        elif queue is not None and (match := _JUNOS_COUNTER.match(stripped)):
            key = _JUNOS_KEYS.get((section, match["name"].strip()))
            if key:
                queue[key] = None if match["value"] == "Not Available" else number(match["value"])
    if not interfaces:
        raise ParseError("no 'Physical interface:' block: not Junos `show interfaces queue` output")
    for port, interface in interfaces.items():
        for number_, counters in interface["queues"].items():
            if "transmitted_packets" not in counters:
                raise ParseError(f"incomplete capture: {port} queue {number_} has no Transmitted counters")
            # Every layout prints `Tail-dropped packets` under Transmitted (EX2200, MX960, Evolved
            # captures in tests/unit/validate/outputs/): without it the queue was cut inside its
            # counters, and its drops would read as unknown.
            if "tail_dropped_packets" not in counters:
                raise ParseError(
                    f"incomplete capture: {port} queue {number_} has no 'Tail-dropped packets' line"
                )
    return {"interfaces": interfaces}
