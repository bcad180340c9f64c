"""Per-queue counters (transmitted, dropped, ECN-marked) of EOS and Junos, printed from the
simulated state.

LAB EQUIPMENT. The formats are listed in docs/switch-show-commands.md with their sources; the
validation parsers (gpunet.validate.parsers.queue_counters) read exactly these. Counters come
from SwitchState.counters[port]: `tx_queue` (packets per queue), and where a test sets them,
`tx_drop` and `ecn_marked` (eight integers each; absent = zero). Bytes are packets x 1024.
The formatters take plain rows so fixture generators print the same text without a switch.
"""

from __future__ import annotations

import json

from gpunet.lab.switchsim.state import SwitchState

# (port, queue, transmitted packets, dropped packets, ECN-marked packets)
QueueRow = tuple[str, int, int, int, int]


def queue_rows(state: SwitchState) -> list[QueueRow]:
    rows = []
    for port in state.ports:
        counters = state.counters[port]
        drops = counters.get("tx_drop", [0] * 8)
        marks = counters.get("ecn_marked", [0] * 8)
        rows.extend((port, q, counters["tx_queue"][q], drops[q], marks[q]) for q in range(8))
    return rows


def eos_short_name(port: str) -> str:
    return port.replace("Ethernet", "Et")


def eos_counters_queue(rows: list[QueueRow]) -> str:
    """EOS `show interfaces counters queue`: one row per port and unicast queue."""
    lines = [
        f"{'Port':<10}{'TxQ':<6}{'Counter/pkts':>16}{'Counter/octets':>18}{'Drop/pkts':>14}{'Drop/octets':>16}",
        f"{'-' * 9:<10}{'-' * 5:<6}{'-' * 15:>16}{'-' * 17:>18}{'-' * 13:>14}{'-' * 15:>16}",
    ]
    for port, queue, packets, drops, _ in rows:
        lines.append(
            f"{eos_short_name(port):<10}{'UC' + str(queue):<6}{packets:>16}{packets * 1024:>18}"
            f"{drops:>14}{drops * 1024:>16}"
        )
    return "\n".join(lines)


def eos_counters_queue_detail(rows: list[QueueRow]) -> str:
    """EOS `show interfaces counters queue detail`, egress table, in the layout of a real capture
    (networktocode/ntc-templates tests/arista_eos/show_interfaces_counters_queue_detail_grep_egress/
    at 7ac19cf): unicast rows per traffic class, all drop precedences in one row, and, as there,
    no row for a queue that counted nothing."""
    lines = [
        "Egress Queue Counters",
        f"{'Port':<19}{'Traffic':>7}{'DropPrec':>11}{'DestType':>11}{'OutEnqPkts':>18}{'OutEnqOctets':>18}"
        f"{'OutDropPkts':>18}{'OutDropOctets':>18}",
        f"{'':<20}{'Class'}",
    ]
    for port, queue, packets, drops, _ in rows:
        if packets or drops:
            lines.append(
                f"{eos_short_name(port):<19}{'TC' + str(queue):>7}{'DP0-3':>11}{'UC':>11}{packets:>18}"
                f"{packets * 1024:>18}{drops:>18}{drops * 1024:>18}"
            )
    return "\n".join(lines)


def eos_counters_queue_json(rows: list[QueueRow]) -> str:
    """`show interfaces counters queue detail | json`, in the shape Arista's ANTA reads
    (egressQueueCounters.interfaces.<port>.ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP0)."""
    interfaces: dict[str, dict] = {}
    for port, queue, _, drops, _ in rows:
        classes = interfaces.setdefault(port, {"ucastQueues": {"trafficClasses": {}}})["ucastQueues"]
        classes["trafficClasses"][f"TC{queue}"] = {"dropPrecedences": {"DP0": {"droppedPackets": drops}}}
    return json.dumps({"egressQueueCounters": {"interfaces": interfaces}}, indent=2)


def eos_ecn_counters_queue_json(rows: list[QueueRow]) -> str:
    """`show qos interfaces ecn counters queue | json`, in the shape Arista's ANTA reads
    (intfQueueCounters.<port>.queueCounters.<queue> = "<count>")."""
    interfaces: dict[str, dict] = {}
    for port, queue, _, _, marks in rows:
        interfaces.setdefault(port, {"queueCounters": {}})["queueCounters"][str(queue)] = str(marks)
    return json.dumps({"intfQueueCounters": interfaces}, indent=2)


def eos_ecn_counters_queue(rows: list[QueueRow]) -> str:
    """EOS `show qos interfaces ecn counters queue`: ECN-marked packets per port and queue."""
    lines = [f"{'Port':<10}{'TxQ':<6}{'ECN Marked/pkts':>18}", f"{'-' * 9:<10}{'-' * 5:<6}{'-' * 17:>18}"]
    lines += [f"{eos_short_name(port):<10}{'UC' + str(q):<6}{marks:>18}" for port, q, _, _, marks in rows]
    return "\n".join(lines)


def junos_interfaces_queue(rows: list[QueueRow], lossless_queue: int | None = None) -> str:
    """Junos `show interfaces queue`: per physical interface, per egress queue, queued and
    transmitted packets/bytes, tail- and RED-dropped packets, ECN-CE packets."""
    out: list[str] = []
    for index, (port, queue, packets, drops, marks) in enumerate(rows):
        if queue == 0:
            out += [
                f"Physical interface: {port}, Enabled, Physical link is Up",
                f"  Interface index: {650 + index // 8}, SNMP ifIndex: {515 + index // 8}",
                "Forwarding classes: 16 supported, 8 in use",
                "Egress queues: 12 supported, 8 in use",
            ]
        forwarding_class = "no-loss" if queue == lossless_queue else f"fc{queue}"
        queued = packets + drops
        out += [
            f"Queue: {queue}, Forwarding classes: {forwarding_class}",
            "  Queued:",
            f"    Packets              : {queued:>21} {0:>21} pps",
            f"    Bytes                : {queued * 1024:>21} {0:>21} bps",
            "  Transmitted:",
            f"    Packets              : {packets:>21} {0:>21} pps",
            f"    Bytes                : {packets * 1024:>21} {0:>21} bps",
            f"    Tail-dropped packets : {drops:>21} {0:>21} pps",
            f"    RED-dropped packets  : {0:>21} {0:>21} pps",
            f"    RED-dropped bytes    : {0:>21} {0:>21} bps",
            f"    ECN-CE packets       : {marks:>21} {0:>21} pps",
            f"    ECN-CE bytes         : {marks * 1024:>21} {0:>21} bps",
        ]
    return "\n".join(out)


def junos_interfaces_queue_json(rows: list[QueueRow], lossless_queue: int | None = None) -> str:
    """`show interfaces queue | display json` from the same rows: the reply's element names
    (docs/switch-show-commands.md gives the sources), every value as [{"data": "..."}], queued =
    transmitted + tail-dropped, no ECN-CE element (its name is not in the sources) [U]."""

    def data(value: object) -> list[dict[str, str]]:
        return [{"data": str(value)}]

    interfaces: dict[str, dict[str, object]] = {}
    for port, queue, packets, drops, _marks in rows:
        interface = interfaces.setdefault(port, {"name": data(port), "queue-counters": [{"queue": []}]})
        forwarding_class = "no-loss" if queue == lossless_queue else f"fc{queue}"
        interface["queue-counters"][0]["queue"].append(  # type: ignore[index]
            {
                "queue-number": data(queue),
                "forwarding-class-name": data(forwarding_class),
                "queue-counters-queued-packets": data(packets + drops),
                "queue-counters-trans-packets": data(packets),
                "queue-counters-tail-drop-packets": data(drops),
                "queue-counters-red-packets": data(0),
                "queue-counters-total-drop-packets": data(drops),
            }
        )
    document = {"interface-information": [{"physical-interface": list(interfaces.values())}]}
    return json.dumps(document, indent=4)
