"""Every format and layout per parser, table-driven: recorded real outputs (tests/unit/validate/
outputs, source on each file's first line) and outputs built from each tool's print grammar;
cut and duplicated captures are refused or marked incomplete, never a pass."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse
from tests.conftest import FIXTURES_DIR, sample_files
from tests.unit.validate.test_parsers import dig

OUTPUTS = Path(__file__).with_name("outputs")

# (recorded file, tool, dotted path, expected)
RECORDED: list[tuple[str, str, str, Any]] = [
    ("mlnx_qos_ets-priority-lines_1.txt", "mlnx_qos", "tcs.0.priorities", [0, 1, 2, 4, 5, 7]),
    ("mlnx_qos_ets-priority-lines_1.txt", "mlnx_qos", "tcs.0.bw_percent", 50),
    ("mlnx_qos_ets-priority-lines_1.txt", "mlnx_qos", "tcs.2.tsa", "vendor"),
    ("mlnx_qos_ets-priority-lines_1.txt", "mlnx_qos", "tcs.2.bw_percent", None),
    ("mlnx_qos_ets-priority-lines_1.txt", "mlnx_qos", "pfc_priorities", [3]),
    ("mlnx_qos_ets-strict-per-class_1.txt", "mlnx_qos", "tcs.2.bw_percent", 80),
    ("mlnx_qos_ets-strict-per-class_1.txt", "mlnx_qos", "tcs.5.tsa", "strict"),
    ("mlnx_qos_ets-strict-per-class_1.txt", "mlnx_qos", "tcs.5.priorities", [5]),
    ("mlnx_qos_ets-strict-per-class_1.txt", "mlnx_qos", "dscp_to_priority.40", 5),
    ("ib_write_bw_bidirectional-duration_1.txt", "perftest", "test", "write_bw"),
    ("ib_write_bw_bidirectional-duration_1.txt", "perftest", "bidirectional", True),
    ("ib_write_bw_bidirectional-duration_1.txt", "perftest", "results.0.bw_avg_gbps", 98.02),
    ("ib_write_bw_bidirectional-duration_1.txt", "perftest", "gid_index", 4),
    ("ib_write_bw_bidirectional-duration_1.txt", "perftest", "complete", True),
    ("ib_send_lat_duration_1.txt", "perftest", "test", "send_lat"),
    ("ib_send_lat_duration_1.txt", "perftest", "results.0.t_avg_us", 99.03),
    ("ib_send_lat_duration_1.txt", "perftest", "results.0.tps", 5048.78),
    ("ib_send_lat_duration_1.txt", "perftest", "columns", ["bytes", "iterations", "t_avg_us", "tps"]),
    (
        "eos_show_interfaces_counters_queue_detail_layout_1.txt",
        "eos-show-interfaces-counters-queue",
        "queues.3",
        {"port": "Et3/2/1", "queue": 3, "tx_packets": 92790021, "drop_packets": 311},
    ),
    (
        "eos_show_interfaces_counters_queue_detail_layout_1.txt",
        "eos-show-interfaces-counters-queue",
        "zero_rows_omitted",
        True,
    ),
    # Six unicast rows; the multicast TC3 row of Et4/1/1 is not a lossless-queue counter.
    (
        "eos_show_interfaces_counters_queue_detail_layout_1.txt",
        "eos-show-interfaces-counters-queue",
        "queues.5.port",
        "Et3/3/1",
    ),
    # Junos `show interfaces queue`: MX (RED drops per loss priority, several classes on one queue),
    # Junos OS Evolved (`up` admin state, Tail-dropped bytes), EX (no rate column, empty Queued:).
    (
        "junos_show_interfaces_queue_mx-red-loss-priorities_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.xe-0/2/0.queues.0.forwarding_classes",
        ["BestEffort", "Redirect", "L2-BestEffort"],
    ),
    (
        "junos_show_interfaces_queue_mx-red-loss-priorities_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.xe-0/2/0.queues.0.red_dropped_packets",
        113,
    ),  # the Low/Medium sub-rows are not read
    (
        "junos_show_interfaces_queue_mx-red-loss-priorities_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.xe-0/2/0.queues.3.transmitted_packets",
        52004411,
    ),
    (
        "junos_show_interfaces_queue_evo-tail-bytes_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.et-6/0/1.queues.3.tail_dropped_packets",
        41,
    ),
    (
        "junos_show_interfaces_queue_evo-tail-bytes_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.et-6/0/1.queues.3.queued_packets",
        7730062,
    ),
    (
        "junos_show_interfaces_queue_ex-no-rates_1.txt",
        "junos-show-interfaces-queue",
        "interfaces.ge-0/0/23.queues.0",
        {
            "forwarding_class": "best-effort",
            "forwarding_classes": ["best-effort"],
            "transmitted_packets": 410022,
            "tail_dropped_packets": 3,
        },
    ),
    # EOS `| json` forms, in the shapes Arista's ANTA reads: unicast drops summed over drop
    # precedences (multicast queues are not the lossless queue); "-" = the queue counts no marks.
    (
        "eos_show_interfaces_counters_queue_detail_json_1.txt",
        "eos-show-interfaces-counters-queue",
        "queues.1",
        {"port": "Ethernet1/1", "queue": 3, "tx_packets": None, "drop_packets": 7},
    ),
    (
        "eos_show_interfaces_counters_queue_detail_json_1.txt",
        "eos-show-interfaces-counters-queue",
        "queues.3.drop_packets",
        0,
    ),
    (
        "eos_show_qos_interfaces_ecn_counters_queue_json_1.txt",
        "eos-show-qos-ecn-counters-queue",
        "queues.3",
        {"port": "Ethernet10/28/1", "queue": 3, "ecn_marked_packets": 48211},
    ),
    (
        "eos_show_qos_interfaces_ecn_counters_queue_json_1.txt",
        "eos-show-qos-ecn-counters-queue",
        "queues.0.ecn_marked_packets",
        None,
    ),
    (
        "eos_show_qos_interfaces_ecn_counters_queue_json_1.txt",
        "eos-show-qos-ecn-counters-queue",
        "queues.7.ecn_marked_packets",
        None,
    ),
    ("nccl_tests_failure-after-init_1.txt", "nccl-tests", "passed", False),
    (
        "nccl_tests_failure-after-init_1.txt",
        "nccl-tests",
        "error",
        "catalyst-convoy: Test NCCL failure common.cu:1285 'unhandled cuda error'",
    ),
]


@pytest.mark.parametrize(("name", "tool", "path", "expected"), RECORDED)
def test_recorded_outputs(name: str, tool: str, path: str, expected: Any) -> None:
    text = (OUTPUTS / name).read_text()
    if name.endswith("_json_1.txt"):  # the source line would not be JSON
        text = text.split("\n", 1)[1]
    assert dig(parse(tool, text), path) == expected


# perftest: every title ctx_print_test_info can print (linux-rdma/perftest src/perftest_parameters.c).
_RULE = "-" * 87
_BW_HEADER = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
_LAT_HEADER = (
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
    "   99% percentile[usec]   99.9% percentile[usec]"
)


def _perftest(title: str, header: str, row: str, closed: bool = True) -> str:
    tail = f"{_RULE}\n" if closed else ""
    return (
        f"{_RULE}\n                    {title}\n Dual-port       : OFF\t\tDevice         : mlx5_0\n"
        f" Link type       : Ethernet\n GID index       : 3\n{_RULE}\n{header}\n{row}\n{tail}"
    )


_VERB_TESTS = {"Send": "send", "RDMA_Write": "write", "RDMA_Read": "read", "Atomic FETCH_AND_ADD": "atomic"}
_VERB_TESTS |= {"Atomic CMP_AND_SWAP": "atomic"}
TITLES = [
    (f"{verb} {flags}{kind} Test", f"{test}_{'bw' if kind == 'BW' else 'lat'}", flags)
    for (verb, test), kind, flags in product(
        _VERB_TESTS.items(),
        ("BW", "Latency"),
        ("", "Bidirectional ", "Post List ", "Bidirectional Post List "),
    )
    if kind == "BW" or not flags
]


@pytest.mark.parametrize(("title", "test", "flags"), TITLES)
def test_every_perftest_title(title: str, test: str, flags: str) -> None:
    header, row = (
        (_BW_HEADER, " 65536 5000 97.10 96.95 0.184")
        if "BW" in title
        else (
            _LAT_HEADER,
            " 2 1000 1.50 4.20 1.62 1.70 0.10 2.10 4.20",
        )
    )
    parsed = parse("perftest", _perftest(title, header, row))
    assert parsed["test"] == test
    assert parsed["bidirectional"] == ("Bidirectional" in flags)
    assert parsed["post_list"] == ("Post List" in flags)
    assert parsed["atomic_op"] == (title.split()[1].lower() if title.startswith("Atomic") else None)


# (header, row, expected key -> value)
LAYOUTS: list[tuple[str, str, dict[str, Any]]] = [
    (_BW_HEADER, " 65536 5000 97.10 96.95 0.184", {"bw_avg_gbps": 96.95, "msg_rate_mpps": 0.184}),
    (
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
        " 65536 5000 11000.00 10000.00 0.16",
        {"bw_avg_gbps": round(10000 * 2**20 * 8 / 1e9, 4)},
    ),
    (
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   BW Port1[Gb/sec]"
        "   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]",
        " 65536 5000 190.0 180.0 0.34 90.0 0.17 90.0 0.17",
        {"bw_avg_gbps": 180.0, "bw_port2_gb_sec": 90.0},
    ),
    (
        " #bytes    #sl      #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
        " 65536 3 5000 97.0 96.0 0.18",
        {"sl": 3, "iterations": 5000, "bw_avg_gbps": 96.0},
    ),
    (_LAT_HEADER, " 2 1000 1.50 4.20 1.62 1.70 0.10 2.10 4.20", {"t_typical_us": 1.62, "p999_us": 4.2}),
    (
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]",
        " 2 1000 1.50 4.20 1.62",
        {"t_typical_us": 1.62},
    ),
    (
        " #bytes        #iterations       t_avg[usec]    tps average",
        " 2 1577611 1.90 262864.28",
        {"t_avg_us": 1.9},
    ),
    (" #bytes        #iterations       t_avg[usec]", " 2 1577611 1.90", {"t_avg_us": 1.9}),
]


@pytest.mark.parametrize(("header", "row", "expected"), LAYOUTS)
def test_every_perftest_column_layout(header: str, row: str, expected: dict[str, Any]) -> None:
    title = "Send BW Test" if "BW" in header else "RDMA_Read Latency Test"
    result = parse("perftest", _perftest(title, header, row))["results"][0]
    assert {key: result.get(key) for key in expected} == expected


def test_perftest_without_closing_line_is_incomplete() -> None:
    assert (
        parse("perftest", _perftest("RDMA_Write BW Test", _BW_HEADER, " 65536 5000 97 96 0.1", False))[
            "complete"
        ]
        is False
    )


def test_perftest_row_cut_mid_line_is_an_error() -> None:
    with pytest.raises(ParseError, match="incomplete"):
        parse("perftest", _perftest("RDMA_Write BW Test", _BW_HEADER, " 65536 5000 97.1", False))


# nccl-tests: one row per collective and format (NVIDIA/nccl-tests src/common.cu print layout).
_NEW_HALVES = "2984.6  179.88  356.01      0   2979.7  180.18  356.60      0"
_OLD_HALVES = "1357.3   98.89  173.05  5e-07   1356.0   98.98  173.21  5e-07"
NCCL_ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("all_reduce_perf", f"536870912 134217728 float sum -1 {_NEW_HALVES}", {"redop": "sum", "root": -1}),
    ("all_gather_perf", f"536870912 16777216 float none -1 {_NEW_HALVES}", {"redop": "none", "root": -1}),
    ("reduce_scatter_perf", f"536870912 16777216 float sum -1 {_NEW_HALVES}", {"redop": "sum"}),
    ("alltoall_perf", f"536870912 16777216 float none -1 {_NEW_HALVES}", {"redop": "none"}),
    ("broadcast_perf", f"536870912 134217728 float none 0 {_NEW_HALVES}", {"root": 0}),
    ("reduce_perf", f"536870912 134217728 float sum 0 {_NEW_HALVES}", {"redop": "sum", "root": 0}),
    ("sendrecv_perf", f"536870912 134217728 float sum -1 {_NEW_HALVES}", {"redop": "sum"}),
    ("hypercube_perf", f"536870912 16777216 float none -1 {_NEW_HALVES}", {"redop": "none"}),
    ("all_reduce_perf", f"134217728 33554432 float sum {_OLD_HALVES}", {"redop": "sum", "root": None}),
    ("all_gather_perf", f"134217728 4194304 float {_OLD_HALVES}", {"redop": None, "root": None}),
    ("alltoall_perf", f"134217728 4194304 float {_OLD_HALVES}", {"redop": None}),
    ("broadcast_perf", f"134217728 33554432 float 0 {_OLD_HALVES}", {"root": 0, "redop": None}),
    (
        "alltoall_perf",
        "134217728 4194304 float none -1 2984.6 179.88 356.01 0 N/A N/A N/A N/A",
        {"in_place.busbw_gbs": None},
    ),
]


def _nccl(
    test: str, rows: str, footer: str = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 356.3\n"
) -> str:
    banner = "# nThread 1 nGpus 8 minBytes 8 maxBytes 1G step: 2(factor)\n# Using devices"
    return f"{banner}\n# {test}\n{rows}\n{footer}"


@pytest.mark.parametrize(("test", "row", "expected"), NCCL_ROWS)
def test_every_collective_and_format(test: str, row: str, expected: dict[str, Any]) -> None:
    parsed = parse("nccl-tests", _nccl(test, row))
    assert parsed["test"] == test
    assert {key: dig(parsed["rows"][0], key) for key in expected} == expected
    assert parsed["rows"][0]["out_of_place"]["busbw_gbs"] > 0
    assert parsed["complete"] and parsed["passed"]


ROW = f"536870912 134217728 float sum -1 {_NEW_HALVES}"
NCCL_VERDICTS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "footer without #",
        _nccl("all_reduce_perf", ROW, " Out of bounds values : 0 OK\n Avg bus bandwidth : 356.3\n"),
        {"complete": True, "passed": True, "avg_busbw_gbs": 356.3},
    ),
    ("no footer", _nccl("all_reduce_perf", ROW, ""), {"complete": False, "passed": False}),
    (
        "Test NCCL failure after rows",
        _nccl(
            "all_reduce_perf",
            ROW,
            "host: Test NCCL failure common.cu:303 'remote process exited or there was a network error'\n",
        ),
        {
            "passed": False,
            "error": "host: Test NCCL failure common.cu:303 'remote process exited or there was a network "
            "error'",
        },
    ),
    (
        "Test failure after footer",
        _nccl("all_reduce_perf", ROW) + " .. node pid 7: Test failure common.cu:401\n",
        {"passed": False, "error": ".. node pid 7: Test failure common.cu:401"},
    ),
    (
        "CUDA failure",
        _nccl("all_reduce_perf", ROW) + "node: Test CUDA failure common.cu:1030 'invalid device ordinal'\n",
        {"passed": False},
    ),
    (
        "out of bounds",
        _nccl("all_reduce_perf", ROW, "# Out of bounds values : 2 FAILED\n# Avg bus bandwidth : 1\n"),
        {"passed": False, "out_of_bounds": 2},
    ),
    (
        "NCCL WARN with results is no failure",
        _nccl("all_reduce_perf", "h:1:2 [0] NCCL WARN NET/IB : Got async event : port active\n" + ROW),
        {"passed": True},
    ),
]


@pytest.mark.parametrize(("case", "text", "expected"), NCCL_VERDICTS, ids=[c[0] for c in NCCL_VERDICTS])
def test_nccl_tests_verdicts(case: str, text: str, expected: dict[str, Any]) -> None:
    parsed = parse("nccl-tests", text)
    assert {key: parsed[key] for key in expected} == expected


@pytest.mark.parametrize(
    "text",
    [
        _nccl("all_reduce_perf", f"{ROW}\n{ROW}"),
        _nccl("all_reduce_perf", ROW) + _nccl("all_reduce_perf", ROW.replace("536870912 ", "1073741824 ")),
    ],
)
def test_nccl_tests_duplicated_run_is_an_error(text: str) -> None:
    with pytest.raises(ParseError, match="twice"):
        parse("nccl-tests", text)


# mlnx_qos: a capture cut inside the TC list is incomplete, not the TCs it happened to hold.
def test_mlnx_qos_cut_inside_the_tc_list_is_an_error() -> None:
    text = (OUTPUTS / "mlnx_qos_ets-strict-per-class_1.txt").read_text()
    with pytest.raises(ParseError, match="incomplete"):
        parse("mlnx_qos", text[: text.index("tc: 6")])


def test_mlnx_qos_cut_last_run_does_not_fall_back_to_an_older_run() -> None:
    text = (OUTPUTS / "mlnx_qos_ets-strict-per-class_1.txt").read_text()
    with pytest.raises(ParseError, match="incomplete"):
        parse("mlnx_qos", text + text[: text.index("PFC configuration")])


# ibstat: flattened indentation still yields the ports; cut and duplicated blocks are errors.
IBSTAT = """CA 'mlx5_0'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.39.1002
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 400
\t\tBase lid: 0
\t\tPort GUID: 0x0
\t\tLink layer: Ethernet
CA 'mlx5_1'
\tCA type: MT4129
\tNumber of ports: 1
\tPort 1:
\t\tState: Down
\t\tPhysical state: Disabled
\t\tRate: 40
\t\tPort GUID: 0x1
\t\tLink layer: Ethernet
"""


def _flatten(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines())


@pytest.mark.parametrize(
    "text", [IBSTAT, _flatten(IBSTAT)] + [_flatten(p.read_text()) for p in sample_files("ibstat_*")]
)
def test_ibstat_flattened_indentation_yields_the_ports(text: str) -> None:
    assert parse("ibstat", text) == parse("ibstat", text.replace("\n", "\n") if text is IBSTAT else text)
    devices = parse("ibstat", text)["devices"]
    assert all(device["ports"] and device["ports"][0].get("state") for device in devices)


def test_ibstat_of_a_release_without_link_layer_parses() -> None:
    old = "\n".join(line for line in IBSTAT.splitlines() if "Link layer" not in line) + "\n"
    assert [p["port_guid"] for d in parse("ibstat", old)["devices"] for p in d["ports"]] == ["0x0", "0x1"]
    with pytest.raises(ParseError, match="Port GUID"):
        parse("ibstat", old[: old.rindex("\t\tPort GUID")])


def test_ibstat_flattened_equals_indented() -> None:
    assert parse("ibstat", _flatten(IBSTAT)) == parse("ibstat", IBSTAT)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (IBSTAT[: IBSTAT.rindex("\t\tLink layer")], "incomplete"),
        (IBSTAT[: IBSTAT.rindex("\tPort 1:")], "incomplete"),
        (IBSTAT + IBSTAT[: IBSTAT.index("CA 'mlx5_1'")], "twice"),
    ],
)
def test_ibstat_cut_or_duplicated(text: str, match: str) -> None:
    with pytest.raises(ParseError, match=match):
        parse("ibstat", text)


# Cumulus: a table the parser does not know is reported, never merged into another.
def test_cumulus_unknown_table_is_reported_not_leaked() -> None:
    samples = sample_files("switch_cumulus_nv-show-qos-roce_*")
    if not samples:
        pytest.skip("../shared/samples is absent")
    text = samples[0].read_text()
    extra = (
        "RoCE Buffer Summary\n===================\n       name  size\n    -  ----  ----\n    0  pg3   512KB\n"
    )
    marker = "RoCE pool config"
    for damaged in (
        text.replace(marker, extra + marker),
        text.replace("RoCE PCP/DSCP", extra + "RoCE PCP/DSCP"),
    ):
        parsed, clean = parse("cumulus-nv-show-qos-roce", damaged), parse("cumulus-nv-show-qos-roce", text)
        assert parsed["unknown_tables"] == ["RoCE Buffer Summary"]
        assert {k: v for k, v in parsed.items() if k != "unknown_tables"} == {
            k: v for k, v in clean.items() if k != "unknown_tables"
        }


# SONiC: another table after the one a parser reads ends it; a repeated port is a duplicate.
_QUEUES = (
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "---------  -----  --------------  ---------------  -----------  ------------\n"
    "Ethernet0    UC3             100           102400            0             0\n"
)
_OTHER = (
    "     Port    TxQ    Watermark/bytes    Headroom    Shared/bytes    Extra\n"
    "---------  -----  -----------------  ----------  --------------  -----\n"
    "Ethernet0    UC3              9999           1               2      3\n"
)


def test_sonic_unknown_table_does_not_leak() -> None:
    parsed = parse("sonic-show-queue-counters", _QUEUES + "\n" + _OTHER)
    assert parsed["queues"] == [
        {"port": "Ethernet0", "queue": "UC3", "counter_pkts": 100, "counter_bytes": 102400, "drop_pkts": 0,
         "drop_bytes": 0}
    ]  # fmt: skip


def test_sonic_repeated_port_is_a_duplicate() -> None:
    with pytest.raises(ParseError, match="twice"):
        parse("sonic-show-queue-counters", _QUEUES + _QUEUES.splitlines(keepends=True)[-1] + "extra line\n")


# A queue's rows (the subset the drop check reads): exactly the whole table's rows of that queue,
# from recorded SONiC output, the simulator's and edge cases: several queues and multicast rows,
# N/A counts, a second table after the first, two counter tables, stray lines, PortChannels.
_MULTI = (
    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
    "---------  -----  --------------  ---------------  -----------  ------------\n"
    "Ethernet0    UC0               5              500          N/A           N/A\n"
    "Ethernet0    UC3             100           102400            7           700\n"
    "Ethernet0    MC3               1              100            0             0\n"
    "  Ethernet4  UC3             200           204800          N/A             0\n"
    "Ethernet8    UC3      1,234        99               2      3\n"
    "PortChannel1 UC3               9              900            0             0\n"
)
QUEUE_TABLES = [
    pytest.param(_MULTI, id="queues-and-na"),
    pytest.param(_MULTI + "\n" + _OTHER, id="other-table-after"),
    pytest.param(_OTHER + "\n" + _MULTI, id="other-table-before"),
    pytest.param(
        _QUEUES + "\n" + _OTHER + "\n" + _MULTI.replace("Ethernet0 ", "Ethernet12 "), id="two-tables"
    ),
    *[
        pytest.param(path.read_text(), id=path.name)
        for path in sample_files("switch_sonic_show-queue-counters_*.txt")
    ],
    *[
        pytest.param(path.read_text(), id=f"simulated-{path.parts[-3]}-{path.parts[-2]}")
        for path in sorted(FIXTURES_DIR.glob("artifacts/bad_nic/switches/*/*/sonic-show-queue-counters.txt"))
    ],
]


@pytest.mark.parametrize("text", QUEUE_TABLES)
@pytest.mark.parametrize("queue", ["UC3", "UC0", "MC3", "UC9"])
def test_sonic_queue_subset_is_the_whole_table_filtered(text: str, queue: str) -> None:
    whole = parse("sonic-show-queue-counters", text)["queues"]
    assert parse("sonic-show-queue-counters", text, queue)["queues"] == [
        row for row in whole if row["queue"] == queue
    ]


# (text, subset, why refused): the subset refuses a table without its header and its own queue
# listed twice for a port; a repeated row of another queue is the whole parse's refusal alone.
_TWICE_MC3 = _MULTI + "Ethernet0    MC3               1              100            0             0\n"
_TWICE_UC3 = _MULTI + "Ethernet0    UC3               1              100            0             0\n"
QUEUE_REFUSALS = [
    (_MULTI.replace("TxQ", "Queue"), None, "no 'Port TxQ"),
    (_MULTI.replace("TxQ", "Queue"), "UC3", "no 'Port TxQ"),
    (_TWICE_UC3, None, "Ethernet0 UC3 is listed twice"),
    (_TWICE_UC3, "UC3", "Ethernet0 UC3 is listed twice"),
    (_TWICE_MC3, None, "Ethernet0 MC3 is listed twice"),
    (_TWICE_MC3, "MC3", "Ethernet0 MC3 is listed twice"),
    (_TWICE_MC3, "UC3", None),
    # A stray line inside a table is a damaged capture, in the whole parse and in the subset.
    (_MULTI + "not a row UC3\n", None, "line 9: expected a row of 6 fields"),
    (_MULTI + "not a row UC3\n", "UC3", "line 9: expected a row of 6 fields"),
]


@pytest.mark.parametrize(("text", "subset", "reason"), QUEUE_REFUSALS)
def test_sonic_queue_refusals(text: str, subset: str | None, reason: str | None) -> None:
    if reason is None:
        assert parse("sonic-show-queue-counters", text, subset)["queues"]
        return
    with pytest.raises(ParseError, match=reason):
        parse("sonic-show-queue-counters", text, subset)


def test_a_subset_of_a_tool_without_subsets_is_a_callers_bug() -> None:
    with pytest.raises(ValueError, match="reads no subset"):
        parse("ibstat", "CA 'mlx5_0'\n", "UC3")
