"""SONiC `show queue wredcounters` (sonic-utilities scripts/wredstat at 691b1bb): one tabulate
"simple" table per port (right-aligned, each column as wide as its header plus tabulate's two
characters of padding or its widest value), read strictly: a cut or garbled line is refused by its
line number."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpunet.validate.parsers import ParseError, parse

HEADER = ("Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes")


def wredstat(tables: dict[str, list[tuple[str, str, str, str, str]]], cached: bool = False) -> str:
    """What wredstat prints: per port, `tabulate(table, header, tablefmt='simple',
    stralign='right')` and a blank line; after a clear, `<port> Last cached time was <time>` first."""
    out = []
    for port, rows in tables.items():
        table = [(port, *row) for row in rows]
        widths = [max(len(h) + 2, *(len(r[i]) for r in table)) for i, h in enumerate(HEADER)]
        if cached:
            out.append(f"{port} Last cached time was 2026-12-04T21:01:17.362554")
        out.append("  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True)))
        out.append("  ".join("-" * w for w in widths))
        out += ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in table]
        out.append("")
    return "\n".join(out) + "\n"


def _rows(marks: int) -> list[tuple[str, str, str, str, str]]:
    rows = [
        (f"UC{q}", "0", "0", str(marks if q == 3 else 0), str(marks * 1078 if q == 3 else 0))
        for q in range(8)
    ]
    return (
        rows
        + [(f"MC{q}", "0", "0", "0", "0") for q in range(8, 10)]
        + [("ALL10", "N/A", "N/A", "N/A", "N/A")]
    )


CAPTURE = wredstat({"Ethernet0": _rows(52113), "Ethernet8": _rows(0)})


def test_marks_are_read_per_port_and_queue() -> None:
    for text in (CAPTURE, wredstat({"Ethernet0": _rows(52113), "Ethernet8": _rows(0)}, cached=True)):
        queues = {(q["port"], q["queue"]): q for q in parse("sonic-show-queue-wredcounters", text)["queues"]}
        assert queues[("Ethernet0", "UC3")]["ecn_marked_pkts"] == 52113
        assert queues[("Ethernet0", "UC3")]["ecn_marked_bytes"] == 52113 * 1078
        assert queues[("Ethernet8", "UC3")]["ecn_marked_pkts"] == 0
        assert queues[("Ethernet8", "ALL10")]["wred_drop_pkts"] is None  # N/A
        assert len(queues) == 22


def _line(number: int) -> Callable[[str], str]:
    return lambda text: text.splitlines()[number - 1]


@pytest.mark.parametrize(
    ("case", "change", "reason"),
    [
        ("cut mid-row", lambda t: t[: t.index("UC5") + 10], "line 8: not a row"),
        (
            "garbled count",
            lambda t: t.replace("52113  ", "52x13  ", 1),
            "line 6: a count that is not a number",
        ),
        ("a port twice", lambda t: t + t.split("\n\n")[0] + "\n", "line 31: Ethernet0 UC0 listed twice"),
        (
            "header only",
            lambda t: t.split("Ethernet0 ")[0] + "\n",
            "line 1: a wredcounters header with no rows",
        ),
        ("cut at its top", lambda t: "\n".join(t.splitlines()[2:]), "line 1: outside a wredcounters table"),
        ("another table", lambda t: t.replace("EcnMarked/bytes", "Trim/pkts"), "line 1: outside"),
        ("not the command", lambda t: 'Error: No such command "wredcounters".\n', "no `Port TxQ"),
        # wredstat's exits (scripts/wredstat at 691b1bb), e.g. a multi-ASIC namespace with no port
        # map after the first namespace's tables: what came before is not the whole switch.
        (
            "a namespace's empty port map",
            lambda t: t + "COUNTERS_PORT_NAME_MAP is empty!\n",
            "line 29: wredstat stopped with 'COUNTERS_PORT_NAME_MAP is empty!'",
        ),
        (
            "an empty queue map",
            lambda t: "COUNTERS_QUEUE_NAME_MAP is empty!\n",
            "line 1: wredstat stopped with 'COUNTERS_QUEUE_NAME_MAP is empty!'",
        ),
        (
            "a queue of no known type",
            lambda t: t + "Queue Type is invalid: oid:0x15000000000617 SAI_QUEUE_TYPE_FOO\n",
            "line 29: wredstat stopped with 'Queue Type is invalid:",
        ),
        ("-p naming no port", lambda t: "Port does not exist! Ethernet999\n", "line 1: wredstat stopped"),
    ],
)
def test_a_damaged_capture_is_refused_naming_the_line(case: str, change, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("sonic-show-queue-wredcounters", change(CAPTURE))
    assert reason in str(caught.value), case
