# ruff: noqa: E501 (recorded layouts are as wide as the tools print them)
"""Switch outputs in the wild (issue 29, third round), table-driven: the layouts of each release a
parser reads, and the damage it refuses naming the line. Values are our own; layouts are the
vendors' published ones, each table naming its source (sonic-utilities at the commit given, the
Cumulus Linux 5.5 user guide's `nv show qos roce`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse
from tests.conftest import sample_files
from tests.unit.validate.test_parsers import dig

# ---- SONiC `show queue counters`: sonic-utilities scripts/queuestat, the headers of each release
# (std_header; all_header and trim_header with `Trim/pkts` alone from PR #3830 at 60c724c8d;
# voq_header without `Credit-WD-Del/pkts` from PR #1827 at 6dbb4bdaa until PR #3322), laid out as
# that release's tests/queue_counter_test.py, tests/multi_asic_queue_counter_test.py and
# tests/queuestat_input/assert_show_output.py print them. ----
_STD = (
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "---------  -----  --------------  ---------------  -----------  ------------\n"
)
_ALL_ONE_TRIM = (  # PR #3830 (60c724c8d, 2025-05) until PR #3993 (c63e9ea79) added two columns
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes    Trim/pkts\n"
    "---------  -----  --------------  ---------------  -----------  ------------  -----------\n"
)
_TRIM_ONE = "     Port    TxQ    Trim/pkts\n---------  -----  -----------\n"
_VOQ_OLD = (  # PR #1827 (6dbb4bdaa, 2022-06) until PR #3322 (4133ef540, 2024-06)
    "     Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "---------  -----  --------------  ---------------  -----------  ------------\n"
)
_VOQ_OLD_SYSTEM = (
    "                      Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "--------------------------  -----  --------------  ---------------  -----------  ------------\n"
)
ALL_ONE_TRIM = (
    "For namespace :\n"
    + _ALL_ONE_TRIM
    + "Ethernet0    UC3          518400        530841600           23         23552           61\n"
    + "Ethernet0   MC10              12              768          N/A           N/A          N/A\n"
    + "\n"
)
TRIM_ONE = (
    "For namespace :\n" + _TRIM_ONE + "Ethernet0    UC3           61\nEthernet0    UC4          N/A\n\n"
)
VOQ_OLD = (  # a 202305-era chassis linecard: no namespace line yet
    _VOQ_OLD
    + "Ethernet0   VOQ0               9              576            0             0\n"
    + "Ethernet0   VOQ3           70044         71725056          130        133120\n"
    + "\n"
)
VOQ_OLD_SYSTEM_PORTS = (
    "For namespace asic0:\n"
    + _VOQ_OLD_SYSTEM
    + "sonic-lc2|asic0|Ethernet16   VOQ3            4410          4515840            7          7168\n"
    + "\n"
)
MULTI_ASIC_ALL = (  # `show queue counters -d all` on a multi-ASIC switch: backplane ports too
    "For namespace asic0:\n"
    + _STD
    + "Ethernet0    UC3             301           308224            0             0\n"
    + "\n"
    + "For namespace asic0:\n"
    + _STD.replace("     Port", "        Port").replace("---------  -----", "------------  -----")
    + "Ethernet-BP0    UC3            1207          1235968            4          4096\n"
    + "\n"
)
AFTER_CLEAR = (  # cnstat_diff_print: `<port> Last cached time was <datetime>` before each table
    "Ethernet0 Last cached time was 2026-12-04 09:15:02.417266\n"
    + _STD
    + "Ethernet0    UC3              88            90112            2          2048\n"
    + "\n"
)

QUEUE_READS: list[tuple[str, str, str | None, str, Any]] = [
    ("--all, Trim/pkts alone (PR #3830)", ALL_ONE_TRIM, None, "queues.0", {
        "port": "Ethernet0", "queue": "UC3", "counter_pkts": 518400, "counter_bytes": 530841600,
        "drop_pkts": 23, "drop_bytes": 23552, "trim_pkts": 61,
    }),
    ("--all, Trim/pkts alone: layout", ALL_ONE_TRIM, None, "layout", "all"),
    ("--all, Trim/pkts alone: N/A row", ALL_ONE_TRIM, None, "queues.1.drop_pkts", None),
    ("--all, Trim/pkts alone: drop-check subset", ALL_ONE_TRIM, "UC3", "queues", [{
        "port": "Ethernet0", "queue": "UC3", "counter_pkts": 518400, "counter_bytes": 530841600,
        "drop_pkts": 23, "drop_bytes": 23552, "trim_pkts": 61,
    }]),
    ("--trim, Trim/pkts alone", TRIM_ONE, None, "queues", [
        {"port": "Ethernet0", "queue": "UC3", "trim_pkts": 61},
        {"port": "Ethernet0", "queue": "UC4", "trim_pkts": None},
    ]),
    ("--voq before Credit-WD-Del (PR #1827)", VOQ_OLD, None, "queues.1", {
        "port": "Ethernet0", "queue": "VOQ3", "counter_pkts": 70044, "counter_bytes": 71725056,
        "drop_pkts": 130, "drop_bytes": 133120,
    }),
    ("--voq before Credit-WD-Del: layout", VOQ_OLD, None, "layout", "voq"),
    ("--voq before Credit-WD-Del, system ports, namespace line", VOQ_OLD_SYSTEM_PORTS, None, "queues.0", {
        "port": "sonic-lc2|asic0|Ethernet16", "queue": "VOQ3", "counter_pkts": 4410,
        "counter_bytes": 4515840, "drop_pkts": 7, "drop_bytes": 7168,
    }),
    ("-d all: backplane port", MULTI_ASIC_ALL, None, "queues.1.port", "Ethernet-BP0"),
    ("-d all: backplane drops", MULTI_ASIC_ALL, None, "queues.1.drop_pkts", 4),
    ("-d all: drop-check subset keeps both ports", MULTI_ASIC_ALL, "UC3", "queues.0.port", "Ethernet0"),
    ("after sonic-clear: Last cached time line", AFTER_CLEAR, None, "queues", [{
        "port": "Ethernet0", "queue": "UC3", "counter_pkts": 88, "counter_bytes": 90112,
        "drop_pkts": 2, "drop_bytes": 2048,
    }]),
    # queuestat -j of the same releases (build_json's branches at 60c724c8d and 6dbb4bdaa)
    ("--all --json, trimpacket alone", '{"Ethernet0": {"UC3": {"totalpacket": "518400", "totalbytes": '
     '"530841600", "droppacket": "23", "dropbytes": "23552", "trimpacket": "61"}, "time": "2026-12-04T09:15:02"}}',
     None, "queues.0.trim_pkts", 61),
    ("--all --json, trimpacket alone: layout", '{"Ethernet0": {"UC3": {"totalpacket": "1", "totalbytes": '
     '"64", "droppacket": "0", "dropbytes": "0", "trimpacket": "N/A"}}}', None, "layout", "all"),
    ("--trim --json, trimpacket alone", '{"Ethernet0": {"UC3": {"trimpacket": "61"}}}', None, "layout", "trim"),
    ("--voq --json before creditWDPkts", '{"Ethernet0": {"VOQ3": {"totalpacket": "70044", "totalbytes": '
     '"71725056", "droppacket": "130", "dropbytes": "133120"}}}', None, "layout", "voq"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "text", "subset", "path", "expected"), QUEUE_READS, ids=[c[0] for c in QUEUE_READS]
)
def test_sonic_queue_counter_releases_are_read(
    case: str, text: str, subset: str | None, path: str, expected: Any
) -> None:
    assert dig(parse("sonic-show-queue-counters", text, subset), path) == expected


QUEUE_REFUSALS: list[tuple[str, str, str | None, str]] = [
    ("--all, Trim/pkts alone: row cut", ALL_ONE_TRIM.replace("         23552           61\n", "\n"),
     None, r"line 4: expected a row of 7 fields .* found 5"),
    ("--all, Trim/pkts alone: every row unreadable", "For namespace :\n" + _ALL_ONE_TRIM + "Ethernet0 UC3 x\n",
     None, r"line 4: expected a row of 7 fields"),
    ("--trim, Trim/pkts alone: no drops for the drop check", TRIM_ONE, "UC3", r"--trim.*no Drop/pkts"),
    ("--voq before Credit-WD-Del: not the drop check's queue", VOQ_OLD, "UC3",
     r"--voq.*virtual output queues.*not the egress queue UC3"),
    ("--voq --json before creditWDPkts: not the drop check's queue", '{"Ethernet0": {"VOQ3": {"totalpacket": '
     '"1", "totalbytes": "64", "droppacket": "0", "dropbytes": "0"}}}', "UC3", r"--voq --json.*no egress drop counts for UC3"),
    ("--voq before Credit-WD-Del: row cut", VOQ_OLD.replace("          130        133120\n", "\n"), None,
     r"line 4: expected a row of 6 fields .* found 4"),
    ("a row whose port is damaged", _STD + "Etherne0    UC3    12    768    0    0\n", None,
     r"line 3: 'Etherne0' is not a port"),
    ("a row whose queue is damaged", _STD + "Ethernet0    U3    12    768    0    0\n", None,
     r"line 3: Ethernet0: 'U3' is not a queue"),
    ("a header of an unknown release", _STD.replace("Drop/bytes", "Drop/bytes    Mark/pkts") + "Ethernet0 UC3 1 2 3 4 5\n",
     None, r"line 1: unknown `show queue counters` columns"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "text", "subset", "reason"), QUEUE_REFUSALS, ids=[c[0] for c in QUEUE_REFUSALS]
)
def test_sonic_queue_counter_release_damage_is_refused(
    case: str, text: str, subset: str | None, reason: str
) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("sonic-show-queue-counters", text, subset)


# ---- SONiC `show pfc counters`: sonic-utilities scripts/pfcstat at 691b1bb (a `Port Rx` table, a
# blank line, a `Port Tx` table over the same ports; `Last cached time was ...` before each after
# `sonic-clear pfccounters`), laid out as its tests/pfcstat_test.py prints them. ----
_RX = (
    "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "---------  ------  ------  ------  ------  ------  ------  ------  ------\n"
)
_TX = _RX.replace("Port Rx", "Port Tx")
PFC = (
    _RX
    + "Ethernet0       0       0       0  18,022       0       0       0       0\n"
    + "Ethernet4       0       0       0     311       0       0       0       0\n"
    + "\n"
    + _TX
    + "Ethernet0       0       0       0   2,047       0       0       0       0\n"
    + "Ethernet4       0       0       0      56       0       0       0       0\n"
)
_RX_ALL = (
    "       Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "--------------  ------  ------  ------  ------  ------  ------  ------  ------\n"
)
PFC_MULTI_ASIC_ALL = (  # `show pfc counters -d all`: front-panel and backplane ports
    _RX_ALL
    + "     Ethernet0       0       0       0     740       0       0       0       0\n"
    + "  Ethernet-BP0       0       0       0   1,093       0       0       0       0\n"
    + "Ethernet-BP256     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
    + "\n"
    + _RX_ALL.replace("Port Rx", "Port Tx")
    + "     Ethernet0       0       0       0      12       0       0       0       0\n"
    + "  Ethernet-BP0       0       0       0     905       0       0       0       0\n"
    + "Ethernet-BP256     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
)
PFC_AFTER_CLEAR = "Last cached time was 2026-12-04 09:15:02.417266\n" + PFC.replace(
    "\n\n", "\n\nLast cached time was 2026-12-04 09:15:02.417266\n"
)

PFC_READS: list[tuple[str, str, str, Any]] = [
    ("two tables", PFC, "tx.Ethernet4", [0, 0, 0, 56, 0, 0, 0, 0]),
    ("thousands separators", PFC, "rx.Ethernet0.3", 18022),
    ("-d all: backplane port", PFC_MULTI_ASIC_ALL, "rx.Ethernet-BP0.3", 1093),
    ("-d all: N/A backplane port", PFC_MULTI_ASIC_ALL, "tx.Ethernet-BP256", [None] * 8),
    ("-d all: every port", PFC_MULTI_ASIC_ALL, "tx", {
        "Ethernet0": [0, 0, 0, 12, 0, 0, 0, 0], "Ethernet-BP0": [0, 0, 0, 905, 0, 0, 0, 0],
        "Ethernet-BP256": [None] * 8,
    }),
    ("after sonic-clear: Last cached time lines", PFC_AFTER_CLEAR, "tx.Ethernet0.3", 2047),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "path", "expected"), PFC_READS, ids=[c[0] for c in PFC_READS])
def test_sonic_pfc_counter_layouts_are_read(case: str, text: str, path: str, expected: Any) -> None:
    assert dig(parse("sonic-show-pfc-counters", text), path) == expected


PFC_REFUSALS: list[tuple[str, str, str]] = [
    ("cut after the Rx table", PFC.split("\n\n")[0] + "\n", r"line 4: the capture ends after the 'Port Rx' table"),
    ("cut at the end of an Rx row", PFC.split("Ethernet4")[0], r"line 3: the capture ends after the 'Port Rx' table"),
    ("Tx table ends early", PFC[: PFC.rindex("Ethernet4")],
     r"line 8: the 'Port Tx' table ends after 1 of the 2 ports of the 'Port Rx' table \(Ethernet4 missing"),
    ("Tx table cut inside a row", PFC[: PFC.rindex("  56")], r"line 9: expected a row of the 'Port Tx' table"),
    ("Tx table cut after its rule", PFC[: PFC.rindex("Ethernet0")], r"line 6: .* header but no port rows"),
    ("a port twice in a table", PFC.replace("Ethernet4       0       0       0     311",
     "Ethernet0       0       0       0     311"), r"line 4: Ethernet0 is listed twice in the 'Port Rx' table"),
    ("a Tx port the Rx table lacks", PFC.replace("Ethernet4       0       0       0      56",
     "Ethernet8       0       0       0      56"), r"line 9: the 'Port Tx' table lists Ethernet8"),
    ("a Tx table first", PFC.split("\n\n")[1] + "\n\n" + PFC.split("\n\n")[0] + "\n",
     r"line 1: a 'Port Tx' table without the 'Port Rx' table"),
    ("-d all: backplane row cut", PFC_MULTI_ASIC_ALL.replace("   1,093       0       0       0       0\n", "\n"),
     r"line 4: expected a row of the 'Port Rx' table"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), PFC_REFUSALS, ids=[c[0] for c in PFC_REFUSALS])
def test_sonic_pfc_counter_damage_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("sonic-show-pfc-counters", text)


@pytest.mark.parametrize(
    "sample", sample_files("switch_sonic_show-pfc-counters_*.txt"), ids=lambda path: path.name
)
def test_sonic_pfc_counter_sample_cut_at_any_line_is_refused(sample: Path) -> None:
    """A real capture, cut at the end of any line after its first row: never read as a whole one."""
    text = sample.read_text()
    parsed = parse("sonic-show-pfc-counters", text)
    ports = len(parsed["rx"])
    assert ports > 0 and parsed["rx"].keys() == parsed["tx"].keys()
    lines = text.splitlines(keepends=True)
    first_row = next(i for i, line in enumerate(lines) if line.split()[:1] == [next(iter(parsed["rx"]))])
    last_row = max(i for i, line in enumerate(lines) if line.strip())
    for end in range(first_row + 1, last_row + 1):
        with pytest.raises(ParseError, match=r"^line \d+: "):
            parse("sonic-show-pfc-counters", "".join(lines[:end]))


# ---- Cumulus Linux 5.5 `nv show qos roce`: the user guide's layout (NVIDIA Cumulus Linux 5.5,
# "RDMA over Converged Ethernet - RoCE", Verify RoCE Configuration; content/cumulus-linux-55/
# Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md as mirrored in
# plumbis/cl-docs at c418d9a): `operational applied description` over a dashed rule each, nested
# keys indented two blanks, sections apart by lines of one blank, an Exception List with a
# header and no rows. ----
NV_ROCE_55 = (
    "                    operational  applied   description\n"
    "------------------  -----------  --------  ------------------------------------------------------\n"
    "enable                           on        Turn the feature 'on' or 'off'.  The default is 'off'.\n"
    "mode                lossless     lossless  Roce Mode\n"
    "cable-length        50           50        Cable Length(in meters) for Roce Lossless Config\n"
    "congestion-control\n"
    "  congestion-mode   ECN                    Congestion config mode\n"
    "  enabled-tc        0,4                    Congestion config enabled Traffic Class\n"
    "  max-threshold     2.50 MB                Congestion config max-threshold\n"
    "  min-threshold     200.00 KB              Congestion config min-threshold\n"
    "pfc\n"
    "  pfc-priority      4                      switch-prio on which PFC is enabled\n"
    "  rx-enabled        enabled                PFC Rx Enabled status\n"
    "  tx-enabled        enabled                PFC Tx Enabled status\n"
    "trust\n"
    "  trust-mode        pcp,dscp               Trust Setting on the port for packet classification\n"
    " \n"
    " \n"
    "RoCE PCP/DSCP->SP mapping configurations\n"
    "===========================================\n"
    "        pcp  dscp                     switch-prio\n"
    "    --  ---  -----------------------  -----------\n"
    "    0   0    0,1,2,3,4,5,6,7          0\n"
    "    4   4    32,33,34,35,36,37,38,39  4\n"
    " \n"
    " \n"
    "RoCE SP->TC mapping and ETS configurations\n"
    "=============================================\n"
    "        switch-prio  traffic-class  scheduler-weight\n"
    "    --  -----------  -------------  ----------------\n"
    "    0   0            0              DWRR-50%\n"
    "    4   4            4              DWRR-50%\n"
    "    6   6            6              strict-priority\n"
    " \n"
    " \n"
    "RoCE pool config\n"
    "===================\n"
    "        name                   mode     size   switch-priorities  traffic-class\n"
    "    --  ---------------------  -------  -----  -----------------  -------------\n"
    "    0   lossy-default-ingress  Dynamic  60.0%  0,1,2,3,5,6,7      -\n"
    "    1   roce-reserved-ingress  Dynamic  40.0%  4                  -\n"
    " \n"
    " \n"
    "Exception List\n"
    "=================\n"
    "        description\n"
    "    --  -----------\n"
)

NV_ROCE_READS: list[tuple[str, str, Any]] = [
    ("applied.enable", NV_ROCE_55, "on"),
    ("operational.enable", NV_ROCE_55, None),
    ("applied.mode", NV_ROCE_55, "lossless"),
    ("applied.cable-length", NV_ROCE_55, "50"),
    ("description.cable-length", NV_ROCE_55, "Cable Length(in meters) for Roce Lossless Config"),
    ("description.enable", NV_ROCE_55, "Turn the feature 'on' or 'off'.  The default is 'off'."),
    ("applied.pfc.pfc-priority", NV_ROCE_55, None),
    ("settings.pfc.pfc-priority", NV_ROCE_55, "4"),
    ("settings.congestion-control.max-threshold", NV_ROCE_55, "2.50 MB"),
    ("settings.congestion-control.enabled-tc", NV_ROCE_55, "0,4"),
    ("settings.trust.trust-mode", NV_ROCE_55, "pcp,dscp"),
    ("dscp_to_switch_priority.1", NV_ROCE_55, {"pcp": "4", "dscp": "32,33,34,35,36,37,38,39", "switch_prio": "4"}),
    ("switch_priority_to_tc.2", NV_ROCE_55, {"switch_prio": "6", "traffic_class": "6", "scheduler_weight": "strict-priority"}),
    ("pools.1", NV_ROCE_55, {"name": "roce-reserved-ingress", "mode": "Dynamic", "size": "40.0%",
                             "switch_priorities": "4", "traffic_class": "-"}),
    ("exceptions", NV_ROCE_55, []),
    ("unknown_tables", NV_ROCE_55, []),
    # The 5.9+ layout without the description column reads the same settings.
    ("settings.pfc.pfc-priority", NV_ROCE_55.replace("   description", "").replace(
        "  ------------------------------------------------------", ""), "4"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "text", "expected"), NV_ROCE_READS, ids=[f"{c[0]}-{i}" for i, c in enumerate(NV_ROCE_READS)]
)
def test_nv_show_qos_roce_55_layout_is_read(path: str, text: str, expected: Any) -> None:
    assert dig(parse("cumulus-nv-show-qos-roce", text), path) == expected


def test_nv_show_qos_roce_55_settings_hold_no_description() -> None:
    """No setting carries description text (the 5.5 column glued onto applied values before)."""
    parsed = parse("cumulus-nv-show-qos-roce", NV_ROCE_55)
    assert parsed["settings"] == {
        "enable": "on",
        "mode": "lossless",
        "cable-length": "50",
        "congestion-control.congestion-mode": "ECN",
        "congestion-control.enabled-tc": "0,4",
        "congestion-control.max-threshold": "2.50 MB",
        "congestion-control.min-threshold": "200.00 KB",
        "pfc.pfc-priority": "4",
        "pfc.rx-enabled": "enabled",
        "pfc.tx-enabled": "enabled",
        "trust.trust-mode": "pcp,dscp",
    }


NV_ROCE_REFUSALS: list[tuple[str, str, str]] = [
    ("a mapping row cut before its switch-prio", NV_ROCE_55.replace("32,33,34,35,36,37,38,39  4\n", "32,33,34,35,36,37,38,39\n"),
     r"line 24: a row of 'RoCE PCP/DSCP->SP mapping configurations' ends before its 'switch-prio' column"),
    ("a pool row cut before its traffic-class", NV_ROCE_55.replace("40.0%  4                  -\n", "40.0%  4\n"),
     r"line 41: a row of 'RoCE pool config' ends before its 'traffic-class' column"),
    ("cut after a section's rule", NV_ROCE_55[: NV_ROCE_55.index("    0   lossy-default-ingress")],
     r"line 36: section 'RoCE pool config' has no rows"),
    ("cut after a section's title", NV_ROCE_55[: NV_ROCE_55.index("        switch-prio  traffic-class")],
     r"line 27: section 'RoCE SP->TC mapping and ETS configurations' has no rows"),
    ("cut after the first table's rule", "".join(NV_ROCE_55.splitlines(keepends=True)[:2]),
     r"line 1: the `nv show qos roce` table has a header but no rows"),
    ("a section right under the first table's rule", "".join(NV_ROCE_55.splitlines(keepends=True)[:2])
     + "RoCE pool config\n===================\n", r"line 1: the `nv show qos roce` table has a header but no rows"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), NV_ROCE_REFUSALS, ids=[c[0] for c in NV_ROCE_REFUSALS])
def test_nv_show_qos_roce_cut_capture_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("cumulus-nv-show-qos-roce", text)
