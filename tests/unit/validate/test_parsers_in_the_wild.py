# ruff: noqa: E501 (recorded layouts are as wide as the tools print them)
"""Third round of outputs in the wild (issue 29), table-driven: each class either read completely
and right, or refused with an error naming the line and what was expected. Values are our own;
layouts are the tools' published ones (sources per table: the tool's print code or its own test
data, at the commit named)."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse
from tests.unit.validate.test_parsers import dig

# ---- SONiC `show queue counters` (sonic-utilities scripts/queuestat and
# tests/queuestat_input/assert_show_output.py, tests/queue_counter_test.py at 691b1bb) ----
_FOR_NS = "For namespace :\n"
_STD_HEADER = (
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "---------  -----  --------------  ---------------  -----------  ------------\n"
)
_ALL_HEADER = (
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes    Trim/pkts    "
    "TrimSent/pkts    TrimDrop/pkts\n"
    "---------  -----  --------------  ---------------  -----------  ------------  -----------  "
    "---------------  ---------------\n"
)
_TRIM_HEADER = (
    "     Port    TxQ    Trim/pkts    TrimSent/pkts    TrimDrop/pkts\n"
    "---------  -----  -----------  ---------------  ---------------\n"
)
_VOQ_HEADER = (
    "            Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes    Credit-WD-Del/pkts\n"
    "----------------  -----  --------------  ---------------  -----------  ------------  --------------------\n"
)
ALL_TABLE = (
    _FOR_NS
    + _ALL_HEADER
    + "Ethernet0    UC0              12             3072            0             0            0                0                0\n"
    + "Ethernet0    UC3           91822         93225472           17         17408           40               38                2\n"
    + "Ethernet0   MC10               4              256          N/A           N/A          N/A              N/A              N/A\n"
    + "\n"
    + _FOR_NS
    + _ALL_HEADER
    + "Ethernet4    UC3           51200         52428800            0             0          N/A              N/A              N/A\n"
    + "\n"
)
TRIM_TABLE = _FOR_NS + _TRIM_HEADER + "Ethernet0    UC3           40               38                2\n\n"
VOQ_TABLE = (
    _FOR_NS
    + _VOQ_HEADER
    + "testsw|Ethernet0   VOQ0              10               20            0             0                     0\n"
    + "testsw|Ethernet0   VOQ3            7100           901200           12          1536                     3\n"
    + "\n"
)
VOQ_SUPERVISOR = (  # a supervisor prints no namespace line; system ports name linecard and ASIC
    _VOQ_HEADER + "sonic-lc1|asic0|Ethernet8   VOQ3     220     28160      0      0      0\n" + "\n"
)

QUEUE_READS: list[tuple[str, str, str | None, str, Any]] = [
    ("--all with trim columns", ALL_TABLE, None, "layout", "all"),
    ("--all UC3 drops kept", ALL_TABLE, None, "queues.1.drop_pkts", 17),
    ("--all trim counters", ALL_TABLE, None, "queues.1.trim_drop_pkts", 2),
    ("--all N/A trim counters", ALL_TABLE, None, "queues.3.trim_pkts", None),
    ("--all second port", ALL_TABLE, None, "queues.3.port", "Ethernet4"),
    ("--all drop-check subset", ALL_TABLE, "UC3", "queues.1", {
        "port": "Ethernet4", "queue": "UC3", "counter_pkts": 51200, "counter_bytes": 52428800,
        "drop_pkts": 0, "drop_bytes": 0, "trim_pkts": None, "trim_sent_pkts": None, "trim_drop_pkts": None,
    }),
    ("--trim", TRIM_TABLE, None, "queues.0", {
        "port": "Ethernet0", "queue": "UC3", "trim_pkts": 40, "trim_sent_pkts": 38, "trim_drop_pkts": 2,
    }),
    ("--voq with namespace line", VOQ_TABLE, None, "queues.1", {
        "port": "testsw|Ethernet0", "queue": "VOQ3", "counter_pkts": 7100, "counter_bytes": 901200,
        "drop_pkts": 12, "drop_bytes": 1536, "credit_wd_deleted_pkts": 3,
    }),
    ("--voq layout", VOQ_TABLE, None, "layout", "voq"),
    ("--voq on a supervisor", VOQ_SUPERVISOR, None, "queues.0.port", "sonic-lc1|asic0|Ethernet8"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "text", "subset", "path", "expected"), QUEUE_READS, ids=[c[0] for c in QUEUE_READS]
)
def test_sonic_queue_counter_layouts_are_read(
    case: str, text: str, subset: str | None, path: str, expected: Any
) -> None:
    assert dig(parse("sonic-show-queue-counters", text, subset), path) == expected


QUEUE_REFUSALS: list[tuple[str, str, str | None, str]] = [
    ("--all row cut mid-way", ALL_TABLE.replace("           40               38                2\n", "\n"),
     None, r"line 5: expected a row of 9 fields .* found 6"),
    ("--all header, every row unreadable", _FOR_NS + _ALL_HEADER + "Ethernet0 UC3 garbled\n", None,
     r"line 4: expected a row of 9 fields"),
    ("header with no rows", _FOR_NS + _STD_HEADER + "\n", None, r"line 2: .* header with no rows"),
    ("--voq row cut", VOQ_TABLE.replace("  1536                     3\n", "\n"), None,
     r"line 5: expected a row of 7 fields"),
    ("--trim has no drops for the drop check", TRIM_TABLE, "UC3", r"--trim.*no Drop/pkts"),
    ("--voq has no egress queue for the drop check", VOQ_TABLE, "UC3", r"--voq.*virtual output queues.*not the egress queue UC3"),
    ("unknown column set alone", _STD_HEADER.replace("Drop/bytes", "Drop/octets") + "Ethernet0 UC3 1 2 3 4\n",
     None, r"line 1: unknown `show queue counters` columns"),
    ("a count that is no count", _STD_HEADER + "Ethernet0    UC3    12    x7    0    0\n", None,
     r"line 3: Ethernet0 UC3: 'x7' is neither a count nor N/A"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "text", "subset", "reason"), QUEUE_REFUSALS, ids=[c[0] for c in QUEUE_REFUSALS]
)
def test_sonic_queue_counter_damage_is_refused(case: str, text: str, subset: str | None, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("sonic-show-queue-counters", text, subset)


# ---- SONiC `show pfc counters` (sonic-utilities scripts/pfcstat, tests/pfcstat_test.py) ----
PFC = (
    "   Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "-----------  ------  ------  ------  ------  ------  ------  ------  ------\n"
    "  Ethernet0       0       0       0   4,310       0       0       0       0\n"
    "  Ethernet4     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
    "\n"
    "   Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "-----------  ------  ------  ------  ------  ------  ------  ------  ------\n"
    "  Ethernet0       0       0       0      12       0       0       0       0\n"
    "  Ethernet4       0       0       0       9       0       0       0       0\n"
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [("rx.Ethernet0", [0, 0, 0, 4310, 0, 0, 0, 0]), ("rx.Ethernet4", [None] * 8), ("tx.Ethernet4.3", 9)],
)
def test_sonic_pfc_counters_are_read(path: str, expected: Any) -> None:
    assert dig(parse("sonic-show-pfc-counters", PFC), path) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (PFC[: PFC.rindex("      9")], r"line 9: expected a row of the 'Port Tx' table"),  # cut in a row
        (PFC.replace("  Ethernet4     N/A", "  Ethernet4"), r"line 4: expected a row of the 'Port Rx'"),
        (
            PFC.split("\n\n")[0].split("\n", 2)[0] + "\n" + PFC.split("\n")[1] + "\n\n",
            r"line 1: .* no port rows",
        ),
        (PFC.replace("4,310", "4.3k"), r"line 3: Ethernet0: a PFC count is neither a number nor N/A"),
    ],
    ids=["cut-inside-last-row", "row-missing-counts", "header-without-rows", "count-not-a-number"],
)
def test_sonic_pfc_counters_damage_is_refused(text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("sonic-show-pfc-counters", text)


# ---- nccl-tests (NVIDIA/nccl-tests 2.19.6 src/util.cu writeResultHeader, writeBenchmarkLineBody:
# `%6g` #wrong, getFloatStr times; 2.13.11 src/common.cu `%5g`) ----
_NCCL_HEADER = (
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
)
_NCCL_FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 120.5\n#\n"
_NCCL_OK = "   268435456      67108864     float     sum      -1   2211.4  121.39  227.60      0   2208.1  121.57  227.94      0\n"


def _nccl_run(rows: str, test: str = "reduce_scatter_perf", footer: str = _NCCL_FOOTER) -> str:
    return f"# nThread 1 nGpus 1 minBytes 8 maxBytes 268435456 step: 2(factor)\n# {test}\n{_NCCL_HEADER}{rows}{footer}"


_ZERO_ROWS = "".join(
    "           0             0     float     sum      -1    21.50    0.00    0.00      0    20.91    0.00    0.00      0\n"
    for _ in range(3)
)
NCCL_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("#wrong in scientific notation",
     _nccl_run(_NCCL_OK.replace("227.60      0", "227.60  1.04858e+06")),
     {"rows.0.out_of_place.wrong": 1048580, "rows.0.in_place.wrong": 0, "passed": False, "format": "new"}),
    ("#wrong 1e+06 with the header", _nccl_run(_NCCL_OK.replace("227.94      0", "227.94  1e+06")),
     {"rows.0.in_place.wrong": 1000000, "passed": False}),
    ("#wrong scientific, no header",
     _nccl_run(_NCCL_OK.replace("227.60      0", "227.60  2.09715e+06")).replace(_NCCL_HEADER, ""),
     {"rows.0.out_of_place.wrong": 2097150, "passed": False}),
    ("genuine size-0 rows at the sweep's start", _nccl_run(_ZERO_ROWS + _NCCL_OK),
     {"rows.2.size_bytes": 0, "rows.3.size_bytes": 268435456, "passed": True}),
    ("time in scientific notation (getFloatStr)", _nccl_run(_NCCL_OK.replace("2211.4", "1.2e+07")),
     {"rows.0.out_of_place.time_us": 1.2e7, "passed": True}),
    ("-c 0: #wrong N/A", _nccl_run(_NCCL_OK.replace("      0\n", "    N/A\n").replace("227.60      0", "227.60    N/A")),
     {"rows.0.out_of_place.wrong": None, "rows.0.in_place.wrong": None}),
    ("-t timestamp column",
     _nccl_run(_NCCL_OK.replace("      0\n", "      0  2026-12-02 21:14:05\n")).replace(
         "#wrong\n", "#wrong           timestamp\n", 1),
     {"rows.0.in_place.busbw_gbs": 227.94, "passed": True}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), NCCL_READS, ids=[c[0] for c in NCCL_READS])
def test_nccl_tests_layouts_are_read(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("nccl-tests", text)
    assert {path: dig(parsed, path) for path in expected} == expected


NCCL_REFUSALS: list[tuple[str, str, str]] = [
    ("row cut mid-way", _nccl_run(_NCCL_OK + _NCCL_OK.replace("268435456      67108864", "536870912     134217728")[:70] + "\n"),
     r"line 7: a result row cut or damaged: expected 13 fields .* found 7"),
    ("row cut by one field", _nccl_run(_NCCL_OK.rsplit(" ", 1)[0] + "\n"), r"line 6: .*expected 13 fields.*found 12"),
    ("a size-0 row after the sweep went on (a second run)", _nccl_run(_NCCL_OK + _ZERO_ROWS), r"line 7: .*out of order"),
    ("a repeated non-zero size", _nccl_run(_NCCL_OK + _NCCL_OK), r"line 7: row for 268435456 B .*twice"),
    ("unknown header", _nccl_run(_NCCL_OK).replace("busbw #wrong", "busbw #bad", 1), r"line 4: unknown nccl-tests column header"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), NCCL_REFUSALS, ids=[c[0] for c in NCCL_REFUSALS])
def test_nccl_tests_damage_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("nccl-tests", text)


# ---- perftest bandwidth units (linux-rdma/perftest src/perftest_parameters.h RESULT_FMT: MB/sec
# is 2**20 bytes; forks print it as MiB/sec) ----
_PT_RULE = "-" * 87


def _perftest_bw(header: str, row: str) -> str:
    return (
        f"{_PT_RULE}\n                    RDMA_Write BW Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n"
        f" Link type       : Ethernet\n GID index       : 3\n{_PT_RULE}\n{header}\n{row}\n{_PT_RULE}\n"
    )


PERFTEST_UNITS = [
    ("BW peak[MiB/sec]    BW average[MiB/sec]", " 65536 5000 11500.00 11000.00 0.176", round(11000 * 2**20 * 8 / 1e9, 4)),
    ("BW peak[MB/sec]    BW average[MB/sec]", " 65536 5000 11500.00 11000.00 0.176", round(11000 * 2**20 * 8 / 1e9, 4)),
    ("BW peak[Gb/sec]    BW average[Gb/sec]", " 65536 5000 96.50 92.27 0.176", 92.27),
]  # fmt: skip


@pytest.mark.parametrize(("columns", "row", "gbps"), PERFTEST_UNITS)
def test_perftest_bandwidth_units_are_converted(columns: str, row: str, gbps: float) -> None:
    header = f" #bytes     #iterations    {columns}   MsgRate[Mpps]"
    assert parse("perftest", _perftest_bw(header, row))["results"][0]["bw_avg_gbps"] == gbps


def test_perftest_unknown_bandwidth_unit_is_refused() -> None:
    header = " #bytes     #iterations    BW peak[KB/sec]    BW average[KB/sec]   MsgRate[Mpps]"
    with pytest.raises(ParseError, match=r"'BW peak\[KB/sec\]': unknown unit 'KB/sec'"):
        parse("perftest", _perftest_bw(header, " 65536 5000 11500 11000 0.17"))


# ---- ibstat with a device it could not read (rdma-core libibmad/mad.h IBPANIC/IBWARN; ibstat.c
# before and after commit 703b52c) ----
_CA0 = (
    "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.41.1000\n\tPort 1:\n"
    "\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 0\n"
    "\t\tPort GUID: 0x0a1b2cfffe3d4e5f\n\t\tLink layer: Ethernet\n"
)
IBSTAT_FAILURES = [
    ("ibpanic after the first device (old rdma-core stops)",
     _CA0 + "ibpanic: [20817] main: stat of IB device 'mlx5_1' failed: No such device\n",
     {"devices.0.name": "mlx5_0", "failed_devices.0.name": "mlx5_1", "complete": False,
      "failed_devices.0.error": "ibpanic: [20817] main: stat of IB device 'mlx5_1' failed: No such device"}),
    ("ibwarn between devices (rdma-core v53+ goes on)",
     "ibwarn: [311] main: stat of IB device 'mlx5_0' failed\n" + _CA0.replace("mlx5_0", "mlx5_2"),
     {"devices.0.name": "mlx5_2", "failed_devices.0.name": "mlx5_0", "complete": True}),
    ("only a failed device", "ibpanic: [7] main: stat of IB device 'mlx5_3' failed: Permission denied\n",
     {"devices": [], "failed_devices.0.name": "mlx5_3"}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), IBSTAT_FAILURES, ids=[c[0] for c in IBSTAT_FAILURES])
def test_ibstat_failed_device_is_kept(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("ibstat", text)
    assert {path: dig(parsed, path) for path in expected} == expected


# ---- nvidia-smi topo -m (the tab-separated matrix nvidia-smi prints; legend `NICn: mlx5_n`) ----
def _topo(gpu_affinity: tuple[str, str] = ("0-51,104-155\t0\t\tN/A", "52-103,156-207\t1\t\tN/A")) -> str:
    return (
        "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
        f"GPU0\t X \tNV18\tPIX\tSYS\t{gpu_affinity[0]}\n"
        f"GPU1\tNV18\t X \tSYS\tPIX\t{gpu_affinity[1]}\n"
        "NIC0\tPIX\tSYS\t X \tSYS\t\t\t\t\n"
        "NIC1\tSYS\tPIX\tSYS\t X \t\t\t\t\n"
        "\nLegend:\n\n  X    = Self\n  PIX  = Connection traversing at most a single PCIe bridge\n\n"
        "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"
    )


def test_nvidia_smi_topo_is_read() -> None:
    parsed = parse("nvidia-smi-topo", _topo())
    assert (parsed["gpus"], parsed["nics"], parsed["matrix"]["GPU1"]["NIC1"]) == (
        ["GPU0", "GPU1"], ["mlx5_0", "mlx5_1"], "PIX",
    )  # fmt: skip
    assert parsed["affinity"]["GPU1"] == {
        "CPU Affinity": "52-103,156-207",
        "NUMA Affinity": "1",
        "GPU NUMA ID": "N/A",
    }


TOPO_REFUSALS = [
    ("NIC legend without NIC columns",
     "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV18\t0-51\t0\nGPU1\tNV18\t X \t52-103\t1\n"
     "\nNIC Legend:\n\n  NIC0: mlx5_0\n", r"line 7: the NIC legend lists NIC0 but the matrix header has no NIC column"),
    ("cut CPU affinity value", _topo(("0-51,104-\t0\t\tN/A", "52-103,156-207\t1\t\tN/A")),
     r"line 2: the GPU0 row: expected 4 relations .* then CPU Affinity, NUMA Affinity, GPU NUMA ID"),
    ("affinity columns run together", _topo(("0-51,104-1550\tN/A", "52-103,156-2071\tN/A")),
     r"line 2: the GPU0 row"),
    ("row cut at the end", _topo().replace("NIC1\tSYS\tPIX\tSYS\t X \t\t\t\t\n", "NIC1\tSYS\tPIX\n"),
     r"line 5: the NIC1 row"),
    ("a device row missing", _topo().replace("GPU1\tNV18\t X \tSYS\tPIX\t52-103,156-207\t1\t\tN/A\n", ""),
     r"header names GPU1 but the matrix has no row"),
    ("not symmetric", _topo().replace("NIC0\tPIX\tSYS", "NIC0\tPXB\tSYS"), r"not symmetric: GPU0->NIC0 PIX"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), TOPO_REFUSALS, ids=[c[0] for c in TOPO_REFUSALS])
def test_nvidia_smi_topo_garbled_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("nvidia-smi-topo", text)


# ---- Cumulus `nv show qos roce` with a description column (the Cumulus 5.x NVUE table with help
# text: CumulusNetworks/docs cumulus-linux-55 RDMA-over-Converged-Ethernet-RoCE.md layout) ----
NV_ROCE_DESCRIPTION = (
    "                    operational            applied                description\n"
    "------------------  ---------------------  ---------------------  ---------------------------------------------------\n"
    "enable                                     on                     Turn the feature 'on' or 'off'.  The default is 'on'.\n"
    "mode                lossless               lossless               Roce Mode\n"
    "congestion-control\n"
    "  congestion-mode   ecn, absolute                                 Congestion config mode\n"
    "  enabled-tc        0,3                                           Congestion config enabled Traffic Class\n"
    "  max-threshold     1.43 MB                                       Congestion config max-threshold\n"
    "  probability       100\n"
    "pfc\n"
    "  pfc-priority      3                                             switch-prio on which PFC is enabled\n"
    "trust\n"
    "  trust-mode        pcp,dscp                                      Trust Setting on the port for packet classification\n"
    "\n"
    "RoCE PCP/DSCP->SP mapping configurations\n"
    "===========================================\n"
    "          pcp  dscp  switch-prio\n"
    "    ----  ---  ----  -----------\n"
    "    cnp   6    48    6\n"
    "    roce  3    26    3\n"
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("applied.enable", "on"),
        ("applied.mode", "lossless"),
        ("settings.congestion-control.congestion-mode", "ecn, absolute"),
        ("settings.pfc.pfc-priority", "3"),
        ("applied.pfc.pfc-priority", None),
        ("description.mode", "Roce Mode"),
        ("settings.congestion-control.probability", "100"),
        ("dscp_to_switch_priority.1", {"pcp": "3", "dscp": "26", "switch_prio": "3"}),
    ],
)
def test_nv_show_qos_roce_description_column_stays_apart(path: str, expected: Any) -> None:
    assert dig(parse("cumulus-nv-show-qos-roce", NV_ROCE_DESCRIPTION), path) == expected


def test_nv_show_qos_roce_unknown_first_columns_are_refused() -> None:
    text = NV_ROCE_DESCRIPTION.replace("operational            applied", "applied                operational")
    with pytest.raises(ParseError, match="line 1: unknown `nv show qos roce` columns"):
        parse("cumulus-nv-show-qos-roce", text)


# ---- iproute2 dcb (dcb/dcb_pfc.c dcb_pfc_print, dcb/dcb_app.c dcb_app_print, etc/iproute2/
# rt_dsfield at ee2a4a8) ----
DCB_PFC = "pfc-cap 8 macsec-bypass off delay 0 \nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off \n"
DCB_PFC_STATS = (
    DCB_PFC + "requests 0:0 1:0 2:0 3:118 4:0 5:0 6:0 7:0 \nindications 0:0 1:0 2:0 3:97 4:0 5:0 6:0 7:0 \n"
)
DCB_READS: list[tuple[str, str, str, Any]] = [
    ("dcb-pfc-show", DCB_PFC, "pfc_priorities", [3]),
    ("dcb-pfc-show", DCB_PFC, "pfc_cap", 8),
    ("dcb-pfc-show", DCB_PFC_STATS, "requests.3", 118),
    ("dcb-pfc-show", DCB_PFC_STATS, "indications.3", 97),
    ("dcb-pfc-show", '{"pfc_cap":8,"macsec_bypass":false,"delay":0,"prio_pfc":[false,false,false,true,'
     'false,false,false,false]}', "pfc_priorities", [3]),
    ("dcb-app-show", "dscp-prio AF31:3 CS6:6 \n", "dscp_to_priorities", {26: [3], 48: [6]}),
    ("dcb-app-show", "dscp-prio default:0 EF:5 26:3 \n", "dscp_to_priorities", {0: [0], 46: [5], 26: [3]}),
    ("dcb-app-show", "default-prio 0 \ndscp-prio 26:3 48:6 \nstream-port-prio 4791:3 \npcp-prio 3nd:3 3de:3 \n",
     "pcp_prio", [[3, 3], [11, 3]]),
    ("dcb-app-show", "ethtype-prio 8906:3 \n", "ethtype_prio", [[0x8906, 3]]),
    ("dcb-app-show", "default-prio 0 \ndscp-prio 26:3 48:6 \n", "default_prio", [0]),
    ("dcb-app-show", "", "dscp_prio", []),  # an empty APP table prints nothing
    ("dcb-app-show", '{"dscp_prio":[[26,3],[48,6]],"default_prio":[0]}', "dscp_to_priorities", {26: [3], 48: [6]}),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "text", "path", "expected"), DCB_READS)
def test_dcb_outputs_are_read(tool: str, text: str, path: str, expected: Any) -> None:
    assert dig(parse(tool, text), path) == expected


DCB_REFUSALS = [
    ("dcb-pfc-show", DCB_PFC.replace(" 6:off 7:off ", ""), r"line 2: prio-pfc lists 6 of 8 priorities"),
    ("dcb-pfc-show", DCB_PFC.replace("7:off", "7:o"), r"line 2: prio-pfc '7:o': expected 7:on\|off"),
    ("dcb-pfc-show", DCB_PFC + DCB_PFC.split("\n")[1] + "\n", r"line 3: a second 'prio-pfc' line"),
    ("dcb-pfc-show", "pfc-cap 8 macsec-bypass off delay 0 \n", r"no 'prio-pfc"),
    ("dcb-pfc-show", "Error: Device does not exist.\n", r"line 1: dcb reports an error: Error: Device"),
    ("dcb-app-show", "dscp-prio AF31:3 CS6:\n", r"line 1: dscp-prio 'CS6:': priority '' is not 0-7"),
    ("dcb-app-show", "dscp-prio AF31:3 CS\n", r"line 1: dscp-prio 'CS': expected <id>:<priority>"),
    ("dcb-app-show", "dscp-prio rdma:3\n", r"unknown dscp id 'rdma' \(iproute2 rt_dsfield names"),
    ("dcb-app-show", "dscp-prio 64:3\n", r"unknown dscp id '64'"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "text", "reason"), DCB_REFUSALS)
def test_dcb_damage_is_refused(tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse(tool, text)


def test_nv_show_qos_roce_empty_cell_does_not_shift_the_row() -> None:
    # A switch priority no DSCP maps to prints an empty dscp cell; its switch-prio stays its own.
    text = NV_ROCE_DESCRIPTION.replace("    roce  3    26    3\n", "    roce  3          3\n")
    rows = parse("cumulus-nv-show-qos-roce", text)["dscp_to_switch_priority"]
    assert rows[1] == {"pcp": "3", "dscp": None, "switch_prio": "3"}
