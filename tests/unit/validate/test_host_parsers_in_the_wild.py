# ruff: noqa: E501 (recorded layouts are as wide as the tools print them)
"""Host-tool outputs in the wild (issue 29, second pass), table-driven: each capture is read
completely and right, or refused with an error naming the line and what was expected. Values are
our own; layouts are the tools' published ones (the print code named above each table)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpunet.cli import main
from gpunet.validate.parsers import ParseError, parse
from tests.unit.validate.test_parsers import dig

# ---- nccl-tests 2.19.6 (../shared/third-party/nccl-tests): src/util.cu writeDeviceReport (the
# settings line), writeResultHeader (the column header), writeBenchmarkLinePreamble
# (`%12li  %12li  %8s  %6s  %6s`), writeBenchmarkLineBody (`  %7s  %6s  %6s  %6g` per half),
# writeResultFooter; src/common.cu TimeTest (the sweep, repeated `run_cycles` times by -N) ----


def _settings(min_bytes: int = 8, max_bytes: int = 128, step: str = "2(factor)") -> str:
    return (
        "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807\n"
        "# Collective test starting: all_gather_perf\n"
        f"# nThread 1 nGpus 1 minBytes {min_bytes} maxBytes {max_bytes} step: {step} warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
        "#\n"
    )


_HEADER = (
    "#\n"
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
)
_FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.0123 \n#\n# Collective test concluded: all_gather_perf\n"


def _row(size: int, count: int, dtype: str = "float", wrong: float = 0) -> str:
    half = f"  {'18.52':>7s}  {'0.01':>6s}  {'0.01':>6s}  {wrong:6g}"
    return f"{size:12d}  {count:12d}  {dtype:>8s}  {'none':>6s}  {-1:6d}{half}{half}\n"


# all_gather over 64 ranks, floats, 8 B to 128 B by factor 2: 8..128 B is 2..32 elements, fewer
# than one a rank, so every row rounds to 0 elements (getCollByteCount: count / nranks).
_ZERO_SWEEP = "".join(_row(0, 0) for _ in range(5))
_SWEEP = _row(0, 0) + _row(0, 0) + _row(256, 1) + _row(512, 2)


def _run(rows: str, settings: str | None = None, footer: str = _FOOTER) -> str:
    return (_settings() if settings is None else settings) + _HEADER + rows + footer


NCCL_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("a sweep of size-0 rows only (64 ranks, sizes under one element a rank)", _run(_ZERO_SWEEP),
     {"rows.4.size_bytes": 0, "rows.4.count": 0, "cycles": 1, "passed": True}),
    ("size-0 rows of several types (-d all): each type's sweep starts at 0",
     _run(_row(0, 0, "float") + _row(256, 1, "float") + _row(0, 0, "half") + _row(128, 1, "half") + _row(0, 0, "int8") + _row(64, 1, "int8")),
     {"rows.2.type": "half", "rows.4.size_bytes": 0, "rows.5.size_bytes": 64, "passed": True}),
    ("-N 3: the whole sweep printed three times under one header", _run(_SWEEP * 3),
     {"cycles": 3, "rows.11.size_bytes": 512, "rows.4.size_bytes": 0, "complete": True, "passed": True}),
    ("-N 2 of a one-size sweep (minBytes == maxBytes)", _run(_row(512, 2) * 2, _settings(512, 512)),
     {"cycles": 2, "rows.1.size_bytes": 512}),
    ("equal sizes under a step in bytes (the per-rank count rounds down)",
     _run(_row(256, 1) + _row(256, 1) + _row(512, 2), _settings(260, 520, "4(bytes)")),
     {"rows.1.size_bytes": 256, "rows.2.size_bytes": 512, "cycles": 1}),
    ("#wrong %6g on a size-0 row", _run(_row(0, 0) + _row(256, 1, wrong=1048576)),
     {"rows.1.out_of_place.wrong": 1048580, "rows.1.in_place.wrong": 1048580, "passed": False}),
    ("#wrong %6g below a million stays an integer", _run(_row(256, 1, wrong=999999)),
     {"rows.0.out_of_place.wrong": 999999, "passed": False}),
    ("no header (a log that lost it): rows of one width", _run(_SWEEP).replace(_HEADER, ""),
     {"rows.3.size_bytes": 512, "rows.3.in_place.time_us": 18.52, "rows.3.root": -1}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), NCCL_READS, ids=[c[0] for c in NCCL_READS])
def test_nccl_tests_genuine_layouts_are_read(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("nccl-tests", text)
    assert {path: dig(parsed, path) for path in expected} == expected


_CUT = _row(512, 2)
NCCL_REFUSALS: list[tuple[str, str, str]] = [
    ("a second run's settings line (the first run cut, then a rerun)",
     _settings() + _HEADER + _SWEEP + _settings() + _HEADER + _SWEEP + _FOOTER,
     r"line 15: a second run's settings line \(the first on line 3\)"),
    ("a second column header", _run(_SWEEP + _HEADER + _SWEEP), r"line 15: a second column header \(the first on line 7\)"),
    ("a result row after the footer", _run(_SWEEP) + _row(1024, 4), r"line 17: a result row after the footer on line 14"),
    ("a second footer", _run(_SWEEP, footer=_FOOTER + _FOOTER), r"line 18: a second 'Avg bus bandwidth' footer \(the first on line 14\)"),
    ("a -N cycle that leaves the first sweep's order", _run(_SWEEP + _row(0, 0) + _row(512, 2)),
     r"line 14: row for 512 B float none appears twice or out of order \(cycle 2 of the sweep expects 0 B there"),
    ("a restart at a size that is not the sweep's first", _run(_SWEEP + _row(256, 1)), r"line 13: row for 256 B .*out of order"),
    ("a repeated non-zero size under a step factor", _run(_row(256, 1) + _row(256, 1)), r"line 10: row for 256 B .*twice"),
    ("a row cut mid-way, with the header", _run(_row(256, 1) + _CUT[:60] + "\n"), r"line 10: a result row cut or damaged: expected 13 fields \(.*header on line 7 names\), found 6"),
    ("a row cut by its last field, no header", _run(_row(256, 1) + _CUT.rsplit(" ", 1)[0] + "\n").replace(_HEADER, ""),
     r"line 6: a result row cut or damaged: expected 13 fields, as the first row has, found 12"),
    ("a row cut to eight fields, no header", _run(_row(256, 1) + " ".join(_CUT.split()[:8]) + "\n").replace(_HEADER, ""),
     r"line 6: .*found 8 fields \('512 2 float none -1 18.52 0.01 0.01'"),
    ("the first row cut, no header", _run(" ".join(_CUT.split()[:6]) + "\n" + _row(1024, 4)).replace(_HEADER, ""),
     r"line 5: a result row cut or damaged: expected size count type"),
    ("a damaged type cell", _run(_row(256, 1).replace("float", "flaot")), r"line 9: 'flaot' in the type column is not an nccl-tests data type"),
    ("a header whose rows are all unreadable", _run("   (rows lost)\n"), r"line 7: the nccl-tests column header is followed by no result row"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), NCCL_REFUSALS, ids=[c[0] for c in NCCL_REFUSALS])
def test_nccl_tests_damaged_or_doubled_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("nccl-tests", text)


# ---- perftest (linux-rdma/perftest at 00b55b6, src/perftest_parameters.h RESULT_FMT* headers and
# REPORT_FMT* rows; src/perftest_parameters.c print_report_bw format_factor: 0x100000 bytes for
# MB/MiB, 125000000 for Gb/sec; the header printed `MB/sec` up to 24.04 and `MiB/sec` from 24.07,
# commit 1d202bb) ----
_PT_RULE = "-" * 87
_MIB = " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]"
_MB = _MIB.replace("MiB/sec", "MB/sec")
_GB = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
_MIB_PER_PORT = _MIB + "   BW Port1[MiB/sec]   MsgRate Port1[Mpps]   BW Port2[MiB/sec]   MsgRate Port2[Mpps]"
_MIB_QOS = " #bytes    #sl      #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]"


def _bw_run(header: str, rows: str, closed: bool = True) -> str:
    return (
        f"{_PT_RULE}\n                    RDMA_Write BW Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n"
        f" Link type       : Ethernet\n GID index       : 3\n{_PT_RULE}\n{header}\n{rows}"
        + (f"{_PT_RULE}\n" if closed else "")
    )


# REPORT_FMT: " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t     %-7.6lf"
def _bw_row(*values: float) -> str:
    size, iters, peak, avg, rate = values
    return f" {int(size):<7d}    {int(iters):<10d}       {peak:<7.2f}            {avg:<7.2f}\t\t     {rate:<7.6f}\n"


_MIB_TO_GBPS = 2**20 * 8 / 1e9
PERFTEST_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("MiB/sec (24.07 and later)", _bw_run(_MIB, _bw_row(65536, 5000, 23450.12, 23001.50, 0.368024)),
     {"results.0.bw_avg_gbps": round(23001.50 * _MIB_TO_GBPS, 4), "results.0.bw_peak_gbps": round(23450.12 * _MIB_TO_GBPS, 4)}),
    ("MB/sec (up to 24.04): the same 2**20-byte unit", _bw_run(_MB, _bw_row(65536, 5000, 23450.12, 23001.50, 0.368024)),
     {"results.0.bw_avg_gbps": round(23001.50 * _MIB_TO_GBPS, 4)}),
    ("Gb/sec (--report_gbits) kept as it is", _bw_run(_GB, _bw_row(65536, 5000, 196.72, 192.95, 0.368024)),
     {"results.0.bw_avg_gbps": 192.95, "results.0.msg_rate_mpps": 0.368024}),
    ("MiB/sec per port (dual-port)",
     _bw_run(_MIB_PER_PORT, " 65536      5000           23450.12            23001.50\t\t   0.368024        11500.75            0.184012              11500.75            0.184012\n"),
     {"results.0.bw_port1_mib_sec": round(11500.75 * _MIB_TO_GBPS, 4), "results.0.bw_avg_gbps": round(23001.50 * _MIB_TO_GBPS, 4)}),
    ("MiB/sec with #sl (QoS)", _bw_run(_MIB_QOS, " 65536      3           5000           23450.12            23001.50                  0.368024\n"),
     {"results.0.sl": 3, "results.0.bw_avg_gbps": round(23001.50 * _MIB_TO_GBPS, 4)}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), PERFTEST_READS, ids=[c[0] for c in PERFTEST_READS])
def test_perftest_units_are_converted(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("perftest", text)
    assert {path: dig(parsed, path) for path in expected} == expected


_ROW_1 = _bw_row(65536, 5000, 23450.12, 23001.50, 0.368024)
_TWO_ROWS = _ROW_1 + _bw_row(131072, 5000, 23460.00, 23010.25, 0.184082)
PERFTEST_REFUSALS: list[tuple[str, str, str]] = [
    ("GB/sec: an unknown unit", _bw_run(_MIB.replace("MiB/sec", "GB/sec"), _TWO_ROWS),
     r"perftest column 'BW peak\[GB/sec\]': unknown unit 'GB/sec' \(expected one of Gb/sec, MB/sec, MiB/sec\)"),
    ("MiB/s: an unknown spelling", _bw_run(_MIB.replace("MiB/sec", "MiB/s"), _TWO_ROWS), r"unknown unit 'MiB/s'"),
    ("a bandwidth column without a unit", _bw_run(_MIB.replace("[MiB/sec]", ""), _TWO_ROWS), r"perftest column 'BW peak': unknown unit ''"),
    ("a row cut in the middle of the table", _bw_run(_MIB, _TWO_ROWS[:40] + "\n" + _TWO_ROWS.split("\n")[1] + "\n"),
     r"line 8: incomplete perftest write_bw capture: a result row was cut \(3 of 5 values; the header on line 7"),
    ("the last row cut before the closing rule", _bw_run(_MIB, _TWO_ROWS.split("\n")[0] + "\n 131072      5000           23460.00\n"),
     r"line 9: incomplete perftest write_bw capture: a result row was cut \(3 of 5 values"),
    ("the last row cut, no closing rule", _bw_run(_MIB, " 65536      5000\n", closed=False), r"line 8: .*a result row was cut \(2 of 5"),
    ("a damaged value", _bw_run(_MIB, _TWO_ROWS.replace("23001.50", "23O01.50")), r"line 8: a damaged perftest result row: .* is not 5 numbers"),
    ("a header whose rows are all unreadable", _bw_run(_MIB, "(rows lost)\n"), r"line 7: the result table header is followed by no row"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), PERFTEST_REFUSALS, ids=[c[0] for c in PERFTEST_REFUSALS])
def test_perftest_damage_or_unknown_unit_is_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("perftest", text)


# ---- ibstat (linux-rdma/rdma-core infiniband-diags/ibstat.c ca_dump/port_dump layout; libibmad
# mad.h IBPANIC `ibpanic: [pid] func: <msg>: <errno>` (ibstat stops) and IBWARN (v53+, it goes on));
# collection appends stderr, and a piped stdout is flushed at exit, so the line may come first ----
def _ca(name: str, guid: str = "0x0a1b2cfffe3d4e5f") -> str:
    return (
        f"CA '{name}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.41.1000\n"
        "\tHardware version: 0\n\tNode GUID: 0x0a1b2c03003d4e5f\n\tSystem image GUID: 0x0a1b2c03003d4e5f\n"
        "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 0\n"
        "\t\tLMC: 0\n\t\tSM lid: 0\n\t\tCapability mask: 0x00010000\n"
        f"\t\tPort GUID: {guid}\n\t\tLink layer: Ethernet\n"
    )


_PANIC_1 = "ibpanic: [12345] main: stat of IB device 'mlx5_1' failed: No such file or directory\n"
IBSTAT_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("ibpanic for the second device after the first", _ca("mlx5_0") + _PANIC_1,
     {"devices.0.name": "mlx5_0", "failed_devices.0.name": "mlx5_1", "failed_devices.0.line": 18,
      "failed_devices.0.error": _PANIC_1.strip(), "complete": False}),
    ("ibpanic first (stderr before the flushed stdout)", _PANIC_1 + _ca("mlx5_0"),
     {"devices.0.name": "mlx5_0", "failed_devices.0.line": 1, "complete": False}),
    ("ibwarn for one device between two read ones (v53+)",
     _ca("mlx5_0") + "ibwarn: [12345] main: stat of IB device 'mlx5_1' failed\n" + _ca("mlx5_2", "0x0a1b2cfffe3d4e60"),
     {"devices.1.name": "mlx5_2", "failed_devices.0.name": "mlx5_1", "failed_devices.0.line": 18, "complete": True}),
    ("an ibwarn naming no device is kept, not dropped",
     _ca("mlx5_0") + "ibwarn: [12345] umad_get_port: can't open UMAD port (mlx5_0:1)\n",
     {"warnings": ["ibwarn: [12345] umad_get_port: can't open UMAD port (mlx5_0:1)"], "complete": True}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), IBSTAT_READS, ids=[c[0] for c in IBSTAT_READS])
def test_ibstat_failed_devices_are_reported(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("ibstat", text)
    assert {path: dig(parsed, path) for path in expected} == expected


IBSTAT_REFUSALS: list[tuple[str, str, str]] = [
    ("an ibpanic that names no device after a read one",
     _ca("mlx5_0") + "ibpanic: [12345] main: can't list IB device names: No such file or directory\n",
     r"line 18: ibstat stopped \(.*can't list IB device names.*\) without naming the device"),
    ("a device both read and reported failed", _ca("mlx5_1") + _PANIC_1,
     r"line 18: CA 'mlx5_1' is both listed and reported failed \(line 1\)"),
    ("a device reported failed, then read", _PANIC_1 + _ca("mlx5_1"),
     r"line 2: CA 'mlx5_1' is both listed and reported failed \(line 1\)"),
    ("only an ibpanic that names no device", "ibpanic: [12] main: can't init UMAD library: No such file or directory\n",
     r"no \"CA '<name>'\" block found: line 1: ibpanic"),
    ("a device listed twice", _ca("mlx5_0") + _ca("mlx5_0", "0x0a1b2cfffe3d4e60"), r"line 18: CA 'mlx5_0' is listed twice \(first on line 1"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), IBSTAT_REFUSALS, ids=[c[0] for c in IBSTAT_REFUSALS])
def test_ibstat_contradictions_are_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("ibstat", text)


# ---- nvidia-smi topo -m (the tab-separated matrix the driver prints: a header of GPUn/NICn and
# `CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID`; GPU rows end with the affinity values; then
# `Legend:` and `NIC Legend:` with `NICn: mlx5_n`; ../shared/samples/nvidia-smi-topo_* is the
# same layout without NICs) ----
_TOPO_HEADER = "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
_TOPO_ROWS = (
    "GPU0\t X \tNV18\tPIX\tSYS\t0-47,96-143\t0\t\tN/A\n"
    "GPU1\tNV18\t X \tSYS\tPIX\t48-95,144-191\t1\t\tN/A\n"
    "NIC0\tPIX\tSYS\t X \tSYS\t\t\t\t\n"
    "NIC1\tSYS\tPIX\tSYS\t X \t\t\t\t\n"
)
_TOPO_LEGEND = (
    "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n  NV#  = Connection traversing a bonded set of # NVLinks\n\n"
    "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n\n"
)
_TOPO = _TOPO_HEADER + _TOPO_ROWS + _TOPO_LEGEND
_TOPO_NO_NICS = (
    "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV18\t0-47,96-143\t0\nGPU1\tNV18\t X \t48-95,144-191\t1\n"
    + _TOPO_LEGEND.split("NIC Legend")[0]
)
TOPO_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("tabs turned to spaces (a copy)", _TOPO.expandtabs(8),
     {"gpus": ["GPU0", "GPU1"], "nics": ["mlx5_0", "mlx5_1"], "affinity.GPU1.CPU Affinity": "48-95,144-191", "affinity.GPU1.GPU NUMA ID": "N/A"}),
    ("no NICs, no NIC legend", _TOPO_NO_NICS, {"nics": [], "nic_legend": {}, "affinity.GPU0.NUMA Affinity": "0"}),
    ("CPU Affinity only (older drivers)",
     "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-47\nGPU1\tNV18\t X \t48-95\n",
     {"affinity.GPU1": {"CPU Affinity": "48-95"}, "matrix.GPU0.GPU1": "NV18"}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected"), TOPO_READS, ids=[c[0] for c in TOPO_READS])
def test_nvidia_smi_topo_layouts_are_read(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("nvidia-smi-topo", text)
    assert {path: dig(parsed, path) for path in expected} == expected


TOPO_REFUSALS: list[tuple[str, str, str]] = [
    ("a NIC legend but no NIC columns (spaces)",
     (_TOPO_NO_NICS + "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n").expandtabs(8),
     r"line 14: the NIC legend lists NIC0, NIC1 but the matrix header has no NIC column"),
    ("a NIC the legend lists twice", _TOPO.replace("  NIC1: mlx5_1\n", "  NIC1: mlx5_1\n  NIC1: mlx5_2\n"),
     r"line 18: the NIC legend lists NIC1 twice \(mlx5_1, mlx5_2\)"),
    ("affinity columns run into each other in every GPU row (spaces)",
     _TOPO.replace("0-47,96-143\t0\t", "0-47,96-1430\t").replace("48-95,144-191\t1\t", "48-95,144-1911\t").expandtabs(8),
     r"line 2: the GPU0 row: expected 4 relations .* then CPU Affinity, NUMA Affinity, GPU NUMA ID"),
    ("a CPU affinity value cut at its end", _TOPO.replace("48-95,144-191", "48-95,144-"), r"line 3: the GPU1 row"),
    ("the capture cut inside the last GPU row", _TOPO_HEADER + _TOPO_ROWS[: _TOPO_ROWS.index("48-95") + 6] + "\n",
     r"line 3: the GPU1 row: .*found 'NV18 X SYS PIX 48-95,'"),
    ("a row for a device the header does not name",
     _TOPO_HEADER + _TOPO_ROWS + "NIC2\tSYS\tSYS\tSYS\tSYS\t\t\t\t\n" + _TOPO_LEGEND,
     r"line 6: a row for NIC2, which the matrix header \(line 1\) does not name"),
    ("an unknown header column", _TOPO.replace("\tGPU NUMA ID", "\tGPU NUMA ID\tNIC Affinity"),
     r"line 1: the matrix header has unknown column 'NIC'"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "reason"), TOPO_REFUSALS, ids=[c[0] for c in TOPO_REFUSALS])
def test_nvidia_smi_topo_garbled_matrices_are_refused(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("nvidia-smi-topo", text)


# ---- iproute2 dcb through `gpunet parse` (the CLI path: file in, JSON out, exit 3 naming the file
# and the line); layouts from iproute2 dcb/dcb_pfc.c dcb_pfc_print and dcb/dcb_app.c dcb_app_print,
# as man dcb-pfc(8) and dcb-app(8) show them ----
_DCB_PFC = (
    "pfc-cap 8 macsec-bypass off delay 4096 \nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off \n"
)
_DCB_PFC_STATS = (
    _DCB_PFC
    + "requests 0:0 1:0 2:0 3:5120 4:0 5:0 6:0 7:0 \nindications 0:0 1:0 2:0 3:4470 4:0 5:0 6:0 7:0 \n"
)
_DCB_APP = "default-prio 0 \ndscp-prio AF31:3 CS6:6 \n"
DCB_CLI_READS: list[tuple[str, str, str, Any]] = [
    ("dcb-pfc-show", _DCB_PFC, "pfc_priorities", [3]),
    ("dcb-pfc-show", _DCB_PFC, "delay", 4096),
    ("dcb-pfc-show", "$ dcb pfc show dev ens1f0np0\n" + _DCB_PFC, "prio_pfc.3", True),
    ("dcb-pfc-show", _DCB_PFC_STATS, "indications.3", 4470),
    ("dcb-pfc-show", '{"pfc_cap":8,"macsec_bypass":false,"delay":4096,"prio_pfc":[false,false,false,true,false,false,false,false]}',
     "pfc_priorities", [3]),
    ("dcb-app-show", _DCB_APP, "dscp_to_priorities", {"26": [3], "48": [6]}),  # JSON keys are strings
    ("dcb-app-show", "dscp-prio 26:3 48:6 \n", "dscp_prio", [[26, 3], [48, 6]]),
    ("dcb-app-show", '{"default_prio":[0],"dscp_prio":[[26,3],[48,6]]}', "default_prio", [0]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "text", "path", "expected"),
    DCB_CLI_READS,
    ids=[f"{c[0]} {c[2]} #{i}" for i, c in enumerate(DCB_CLI_READS)],
)
def test_dcb_tools_print_json_through_gpunet_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str, text: str, path: str, expected: Any
) -> None:
    capture = tmp_path / f"{tool}.txt"
    capture.write_text(text)
    assert main(["parse", tool, str(capture)]) == 0
    assert dig(json.loads(capsys.readouterr().out), path) == expected


DCB_CLI_REFUSALS: list[tuple[str, str, str]] = [
    ("dcb-pfc-show", _DCB_PFC.replace(" 5:off 6:off 7:off ", ""), r"line 2: prio-pfc lists 5 of 8 priorities"),
    ("dcb-pfc-show", _DCB_PFC_STATS.replace(" 6:0 7:0 \nindications", " 6:\nindications"), r"line 3: requests '6:': expected 6:N"),
    ("dcb-pfc-show", _DCB_PFC + "prio-buffer 0:0 1:0\n", r"line 3: 'prio-buffer 0:0 1:0' is not a line `dcb pfc show` prints"),
    ("dcb-pfc-show", "Error: Device \"ens9\" does not exist.\n", r"line 1: dcb reports an error"),
    ("dcb-pfc-show", "", r"no 'prio-pfc"),
    ("dcb-app-show", _DCB_APP + "dscp-prio 46:5 \n", r"line 3: a second 'dscp-prio' line"),
    ("dcb-app-show", "dscp-prio AF31:3 CS6\n", r"line 1: dscp-prio 'CS6': expected <id>:<priority>"),
    ("dcb-app-show", "dscp-prio AF31:3\napp-prio 3\n", r"line 2: 'app-prio 3' is not a line `dcb app show` prints"),
    ("dcb-app-show", '{"dscp_prio":[[26,3],[48', r"dcb -j app show: not JSON"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "text", "reason"), DCB_CLI_REFUSALS, ids=[f"{c[0]} #{i}" for i, c in enumerate(DCB_CLI_REFUSALS)]
)
def test_dcb_damage_exits_3_naming_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str, text: str, reason: str
) -> None:
    capture = tmp_path / "capture.txt"
    capture.write_text(text)
    assert main(["parse", tool, str(capture)]) == 3
    error = capsys.readouterr().err
    assert error.startswith(f"gpunet parse: {capture}: ") and error.count("\n") == 1
    assert re.search(reason, error), error


def test_dcb_tools_are_gpunet_parse_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["parse", "--help"])
    help_text = capsys.readouterr().out
    assert "dcb-app-show" in help_text and "dcb-pfc-show" in help_text
