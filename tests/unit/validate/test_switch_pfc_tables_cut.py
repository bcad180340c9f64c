"""Issue 29's rule for the switch PFC/ECN text tables the earlier rounds left out: a capture is
read completely and right, or refused naming the line. Recorded output in the published layouts
(our own values): NX-OS `show interface priority-flow-control` and EOS `show priority-flow-control
counters` as docs/switch-show-commands.md models them, Cumulus `nv show interface <swp> counters
qos pfc-stats`, SONiC `show pfc priority` (sonic-utilities 691b1bb pfc/main.py showPfcPrio: a
tabulate table, `N/A` where a port has no `pfc_enable`) and `show ecn` (scripts/ecnconfig
`list()`: `Profile: <name>` and a headerless tabulate table between two dashed rules), Junos
`show interfaces queue` in the EX2200 layout of tests/unit/validate/outputs/ (no rates), and EOS
`show interfaces counters queue detail`'s egress table in the layout of the ntc-templates capture
recorded there (7800R-style ports; only queues that counted something)."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.validate.parsers import PARSERS
from gpunet.validate.parsers.base import ParseError

NXOS = """
slot  1
=======

============================================================
Port               Mode Oper(VL bmap)  RxPPP      TxPPP
============================================================

Ethernet1/1        On   On  (18)       2048       91
Ethernet1/2        Auto Off            0          0
Ethernet1/3        On   On  (8)        7          0
"""

EOS = """Port                 RxPfc       TxPfc
Et1/1                 3,210          12
Et2/1                    0           0
Et3/1                   44           5
"""

CUMULUS = """switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  tx-pause-duration
---------------  ---------------  -----------------  ---------------  -----------------
0                0                0                  0                0
3                911              40                 17               2
4                5                1                  0                0
"""

PFC_PRIORITY = """
Interface    Lossless priorities
-----------  ---------------------
Ethernet0    3,4
Ethernet4    N/A
Ethernet8
Ethernet12   3

"""

EOS_PFC = """Global PFC : Enabled

Port        Enabled  Priorities  Active  Note
----------  -------  ----------  ------  -------------
Et1/1       Yes      3,4         Yes     DCBX disabled
Et2/1       No                   No      DCBX disabled
"""

ECN = """Profile: AZURE_LOSSLESS
-----------------------  -------
red_max_threshold        3145728
ecn                      ecn_all
green_min_threshold      524288
wred_green_enable        true
-----------------------  -------

Profile: lossy_wred
-----------------  ------
green_max_threshold  65536
-----------------  ------

"""

JUNOS_QUEUE = """Physical interface: ge-0/0/7, Enabled, Physical link is Up
  Interface index: 136, SNMP ifIndex: 508
Forwarding classes: 16 supported, 2 in use
Egress queues: 8 supported, 2 in use
Queue: 0, Forwarding classes: best-effort
  Queued:
  Transmitted:
    Packets              :                 91337
    Bytes                :              41101650
    Tail-dropped packets :                    12
    RL-dropped packets   :                     0
    RL-dropped bytes     :                     0
Queue: 3, Forwarding classes: roce
  Queued:
  Transmitted:
    Packets              :               7740021
    Bytes                :            8235382344
    Tail-dropped packets :                     4
    RL-dropped packets   :                     0
    RL-dropped bytes     :                     0
"""

# The egress table is wider than a source line (EOS prints it so): each row is two string pieces.
EOS_DETAIL = (
    "\n".join(
        [
            "Egress Queue Counters",
            "Port               Traffic   DropPrec   DestType        OutEnqPkts      OutEnqOctets"
            "       OutDropPkts     OutDropOctets",
            "                    Class",
            "Et1/1/1                TC3      DP0-3         UC          40012210       40972503040"
            "                 7              7168",
            "Et1/1/1                TC7      DP0-3         UC            100211          11384004"
            "                 0                 0",
            "Et2/1/1                TC3      DP0-3         UC          39990001       40949761024"
            "                 0                 0",
        ]
    )
    + "\n"
)


def _lines(text: str, drop: int) -> str:
    """The capture without its last `drop` lines (cut at a line's end)."""
    return "\n".join(text.rstrip("\n").splitlines()[:-drop]) + "\n"


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, old  # a case that changed nothing would test nothing
    return text.replace(old, new, 1)


READS = [
    ("nxos", "nxos-show-interface-pfc", NXOS, ("interfaces", "Ethernet1/1", "priorities"), [3, 4]),
    ("nxos-off", "nxos-show-interface-pfc", NXOS, ("interfaces", "Ethernet1/2", "oper"), "Off"),
    ("nxos-count", "nxos-show-interface-pfc", NXOS, ("interfaces", "Ethernet1/3", "rx_pause"), 7),
    ("eos-commas", "eos-show-pfc-counters", EOS, ("interfaces", "Et1/1", "rx_pause"), 3210),
    ("eos-last", "eos-show-pfc-counters", EOS, ("interfaces", "Et3/1", "tx_pause"), 5),
    ("cumulus", "cumulus-nv-show-pfc-stats", CUMULUS, ("priorities", "3", "rx_pause"), 911),
    ("cumulus-duration", "cumulus-nv-show-pfc-stats", CUMULUS, ("priorities", "4", "rx_pause_duration"), 1),
    ("pfc-priority", "sonic-show-pfc-priority", PFC_PRIORITY, ("interfaces", "Ethernet0"), [3, 4]),
    ("pfc-priority-n/a", "sonic-show-pfc-priority", PFC_PRIORITY, ("interfaces", "Ethernet4"), []),
    ("pfc-priority-empty-cell", "sonic-show-pfc-priority", PFC_PRIORITY, ("interfaces", "Ethernet8"), []),
    ("pfc-priority-last", "sonic-show-pfc-priority", PFC_PRIORITY, ("interfaces", "Ethernet12"), [3]),
    ("ecn", "sonic-show-ecn", ECN, ("profiles", "AZURE_LOSSLESS", "red_max_threshold"), 3145728),
    ("eos-pfc", "eos-show-pfc", EOS_PFC, ("interfaces", "Et1/1", "priorities"), [3, 4]),
    (
        "junos-queue-drops",
        "junos-show-interfaces-queue",
        JUNOS_QUEUE,
        ("interfaces", "ge-0/0/7", "queues", "3", "tail_dropped_packets"),
        4,
    ),
    ("eos-detail-drops", "eos-show-interfaces-counters-queue", EOS_DETAIL, ("queues", 0, "drop_packets"), 7),
    ("eos-detail-last", "eos-show-interfaces-counters-queue", EOS_DETAIL, ("queues", 2, "port"), "Et2/1/1"),
    ("ecn-second", "sonic-show-ecn", ECN, ("profiles", "lossy_wred"), {"green_max_threshold": 65536}),
]


@pytest.mark.parametrize(("case", "tool", "text", "path", "expected"), READS, ids=[c[0] for c in READS])
def test_switch_pfc_tables_are_read(
    case: str, tool: str, text: str, path: tuple[str, ...], expected: Any
) -> None:
    value: Any = PARSERS[tool](text)
    for key in path:
        value = value[key]
    assert value == expected


REFUSALS = [
    # NX-OS: a row cut before its TxPPP, inside its Oper cell, a port twice, no rows under the header.
    (
        "nxos-cut-counter",
        "nxos-show-interface-pfc",
        _lines(NXOS, 1) + "Ethernet1/3        On   On  (8)        7\n",
        "line 11",
    ),
    (
        "nxos-cut-oper",
        "nxos-show-interface-pfc",
        _replace(NXOS, "Auto Off            0          0", "Auto O"),
        "line 10",
    ),
    (
        "nxos-twice",
        "nxos-show-interface-pfc",
        NXOS + "Ethernet1/1        On   On  (18)       2048       91\n",
        "twice",
    ),
    ("nxos-header-only", "nxos-show-interface-pfc", _lines(NXOS, 3), "line 6: the `Port Mode"),
    # EOS: a row cut before TxPfc, a damaged count, a port twice, no rows.
    ("eos-cut", "eos-show-pfc-counters", _lines(EOS, 1) + "Et3/1                   44\n", "line 4"),
    (
        "eos-damaged-count",
        "eos-show-pfc-counters",
        _replace(EOS, "   0           0", "   0           0x"),
        "line 3",
    ),
    ("eos-twice", "eos-show-pfc-counters", EOS + "Et1/1                 3,210          12\n", "twice"),
    (
        "eos-header-only",
        "eos-show-pfc-counters",
        _lines(EOS, 3),
        "line 1: the `Port RxPfc TxPfc` header has no rows",
    ),
    # Cumulus: a row cut inside, a non-count cell, a priority twice, no rows, a second header.
    (
        "cumulus-cut",
        "cumulus-nv-show-pfc-stats",
        _lines(CUMULUS, 1) + "4                5                1\n",
        "line 5",
    ),
    (
        "cumulus-word",
        "cumulus-nv-show-pfc-stats",
        _replace(CUMULUS, "17               2", "17               n/a"),
        "line 4",
    ),
    (
        "cumulus-twice",
        "cumulus-nv-show-pfc-stats",
        CUMULUS + "3                911              40                 17               2\n",
        "twice",
    ),
    (
        "cumulus-header-only",
        "cumulus-nv-show-pfc-stats",
        _lines(CUMULUS, 3),
        "line 1: the `switch-priority` header has no rows",
    ),
    ("cumulus-doubled", "cumulus-nv-show-pfc-stats", CUMULUS + CUMULUS, "second `switch-priority` header"),
    # EOS show priority-flow-control: the per-port table's header with no rows under it.
    (
        "eos-pfc-header-only",
        "eos-show-pfc",
        _lines(EOS_PFC, 2),
        "line 3: the per-port PFC table has a header but no port rows",
    ),
    # SONiC show pfc priority: a cell cut after a comma, a port name cut, a third cell, a port twice.
    (
        "pfc-priority-cut-cell",
        "sonic-show-pfc-priority",
        _replace(PFC_PRIORITY, "Ethernet0    3,4", "Ethernet0    3,"),
        "line 4",
    ),
    (
        "pfc-priority-cut-port",
        "sonic-show-pfc-priority",
        _replace(PFC_PRIORITY, "Ethernet12   3", "Etherne"),
        "line 7",
    ),
    (
        "pfc-priority-third-cell",
        "sonic-show-pfc-priority",
        _replace(PFC_PRIORITY, "Ethernet12   3", "Ethernet12   3 4"),
        "line 7",
    ),
    (
        "pfc-priority-no-priority",
        "sonic-show-pfc-priority",
        _replace(PFC_PRIORITY, "Ethernet12   3", "Ethernet12   9"),
        "line 7",
    ),
    (
        "pfc-priority-twice",
        "sonic-show-pfc-priority",
        _replace(PFC_PRIORITY, "Ethernet12   3", "Ethernet0    3"),
        "line 7: port Ethernet0 listed twice",
    ),
    # Junos show interfaces queue: the last queue cut after its Packets line (its drops would be
    # unknown), or a queue printed twice under one interface.
    (
        "junos-queue-cut",
        "junos-show-interfaces-queue",
        _lines(JUNOS_QUEUE, 4),
        "queue 3 has no 'Tail-dropped packets' line",
    ),
    (
        "junos-queue-twice",
        "junos-show-interfaces-queue",
        JUNOS_QUEUE + "\n".join(JUNOS_QUEUE.splitlines()[12:]) + "\n",
        "ge-0/0/7 queue 3 is listed twice",
    ),
    # EOS egress queue table: a row cut before its counters (its drops would be missing from the
    # queues, read as a queue that counted nothing).
    (
        "eos-detail-cut",
        "eos-show-interfaces-counters-queue",
        _lines(EOS_DETAIL, 1) + "Et2/1/1                TC3      DP0\n",
        "(a cut row)",
    ),
    (
        "eos-txq-cut",
        "eos-show-interfaces-counters-queue",
        "Port       TxQ  Counter/pkts  Counter/bytes  Drop/pkts  Drop/bytes\n"
        "Et1/1      UC3  100  6400  0  0\nEt2/1      UC\n",
        "got 'Et2/1      UC' (a cut row)",
    ),
    # SONiC show ecn: a field cut before its value, a profile cut before its closing rule (at
    # the capture's end, or with the next profile's title after it), a title with no table.
    (
        "ecn-cut-value",
        "sonic-show-ecn",
        _replace(ECN, "green_min_threshold      524288", "green_min_threshold"),
        "line 5",
    ),
    ("ecn-cut-end", "sonic-show-ecn", _lines(ECN, 1), "line 9: profile table not closed"),
    (
        "ecn-cut-before-next",
        "sonic-show-ecn",
        _replace(ECN, "-----------------------  -------\n\nProfile", "\nProfile"),
        "line 1: profile table not closed",
    ),
    (
        "ecn-no-table",
        "sonic-show-ecn",
        "Profile: AZURE_LOSSLESS\nred_max_threshold  3145728\n",
        "line 2: expected the dashed rule",
    ),
]


@pytest.mark.parametrize(("case", "tool", "text", "reason"), REFUSALS, ids=[c[0] for c in REFUSALS])
def test_switch_pfc_table_damage_is_refused(case: str, tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError) as refused:
        PARSERS[tool](text)
    assert reason in str(refused.value)
