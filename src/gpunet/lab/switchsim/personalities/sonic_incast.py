"""`show queue wredcounters` and `show pfcwd stats` of the simulated SONiC (LAB EQUIPMENT), the two
commands the incast stage adds to a SONiC switch's collection, printed from SwitchState.counters.

Formats from sonic-utilities at 691b1bb:
- scripts/wredstat (`show queue wredcounters`): per port, `tabulate(table, header,
  tablefmt='simple', stralign='right')` and a blank line, header Port, TxQ, WredDrp/pkts,
  WredDrp/bytes, EcnMarked/pkts, EcnMarked/bytes; one row per queue as `<type><index>` (UC0..);
  a port with no queue rows prints nothing.
- pfcwd/main.py `show_stats` (`show pfcwd stats`): one tabulate table (simple, right-aligned) of
  QUEUE (`<port>:<index>`), STATUS (PFC_WD_STATUS) and five OK/DROP-style pairs (STORM
  DETECTED/RESTORED, TX OK/DROP, RX OK/DROP, TX LAST OK/DROP, RX LAST OK/DROP); a queue whose
  pairs are all 0/0 is left out, and with no row the header and its rule are still printed.

Counters (eight integers per port; absent = zero): `ecn_marked` and `wred_drop` packets per queue
(bytes are packets x 1024, as the other simulated queue counters); `tx_queue`, `pfc_wd_stuck`,
`pfc_wd_recovered` and `pfc_wd_tx_drop` for the watchdog rows. The watchdog watches the
PFC-enabled priorities (PORT_QOS_MAP pfc_enable) of the ports `pfcwd start` wrote into PFC_WD.
"""

from __future__ import annotations

from typing import Any

from gpunet.lab.switchsim.state import SwitchState

WRED_HEADER = ("Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes")
PFCWD_HEADER = (
    "QUEUE",
    "STATUS",
    "STORM DETECTED/RESTORED",
    "TX OK/DROP",
    "RX OK/DROP",
    "TX LAST OK/DROP",
    "RX LAST OK/DROP",
)
BYTES_PER_PACKET = 1024
# tabulate's MIN_PADDING: a header is at least two characters narrower than its column.
_MIN_PADDING = 2


def simple_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """tabulate(rows, header, tablefmt='simple', stralign='right') for string cells."""
    widths = [
        max([len(name) + _MIN_PADDING, *(len(row[i]) for row in rows)]) for i, name in enumerate(header)
    ]
    lines = ["  ".join(name.rjust(width) for name, width in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * width for width in widths))
    lines += ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def _eight(counters: dict[str, list[int]], key: str) -> list[int]:
    return counters.get(key, [0] * 8)


def sonic_wredcounters(state: SwitchState) -> str:
    tables = []
    for port in state.ports:
        counters = state.counters[port]
        drops, marks = _eight(counters, "wred_drop"), _eight(counters, "ecn_marked")
        rows = [
            (
                port,
                f"UC{q}",
                str(drops[q]),
                str(drops[q] * BYTES_PER_PACKET),
                str(marks[q]),
                str(marks[q] * BYTES_PER_PACKET),
            )
            for q in range(8)
        ]
        tables.append(simple_table(WRED_HEADER, rows) + "\n")
    return "\n".join(tables)


def watched_queues(state: SwitchState) -> list[tuple[str, int]]:
    """(port, queue) the PFC watchdog watches: each PFC-enabled priority of each PFC_WD port."""
    config: Any = state.config
    watched = config.get("PFC_WD", {})
    qos_map = config.get("PORT_QOS_MAP", {})
    queues = []
    for port in state.ports:
        if port not in watched:
            continue
        enabled = str(qos_map.get(port, {}).get("pfc_enable", ""))
        queues += [(port, int(p)) for p in enabled.split(",") if p.strip().isdigit()]
    return queues


def sonic_pfcwd_stats(state: SwitchState) -> str:
    rows = []
    for port, queue in watched_queues(state):
        counters = state.counters[port]
        stuck = _eight(counters, "pfc_wd_stuck")[queue]
        recovered = _eight(counters, "pfc_wd_recovered")[queue]
        sent, dropped = _eight(counters, "tx_queue")[queue], _eight(counters, "pfc_wd_tx_drop")[queue]
        pairs = (f"{stuck}/{recovered}", f"{sent}/{dropped}", "0/0", "0/0", "0/0")
        if pairs == ("0/0",) * 5:
            continue
        status = "stormed" if stuck > recovered else "operational"
        rows.append((f"{port}:{queue}", status, *pairs))
    return simple_table(PFCWD_HEADER, rows)
