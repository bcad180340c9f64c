"""Parsers, table-driven: recorded outputs in ../shared/samples and small hand-written edge cases."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from gpunet.cli import main
from gpunet.validate.capture_file import MAX_CAPTURE_BYTES
from gpunet.validate.parsers import PARSERS, ParseError, parse
from gpunet.validate.parsers.base import lines_holding
from tests.conftest import sample_files

# Sample file prefix -> the TOOL that reads it.
SAMPLE_TOOLS = {
    "all_reduce_perf": "nccl-tests",
    "ib_read_lat": "perftest",
    "ib_write_bw": "perftest",
    "ibstat": "ibstat",
    "ibv_devinfo": "ibv_devinfo",
    "mlnx_qos": "mlnx_qos",
    "nvidia-smi-topo": "nvidia-smi-topo",
    "switch_cumulus_nv-show-qos-roce": "cumulus-nv-show-qos-roce",
    "switch_sonic_show-ecn": "sonic-show-ecn",
    "switch_sonic_show-pfc-counters": "sonic-show-pfc-counters",
    "switch_sonic_show-pfc-priority": "sonic-show-pfc-priority",
    "switch_sonic_show-queue-counters": "sonic-show-queue-counters",
}


def tool_for(sample: Path) -> str:
    return next(tool for prefix, tool in SAMPLE_TOOLS.items() if sample.name.startswith(prefix + "_"))


@pytest.mark.parametrize("sample", sample_files("*.txt"), ids=lambda p: p.name)
def test_every_sample_has_a_parser_and_parses(sample: Path) -> None:
    parsed = parse(tool_for(sample), sample.read_text())
    assert parsed, f"{sample.name} parsed to nothing"
    json.dumps(parsed)  # the CLI prints it as JSON


# (sample file, dotted path into the parsed result, expected value)
SAMPLE_FACTS: list[tuple[str, str, Any]] = [
    ("all_reduce_perf_coreweave_1.txt", "avg_busbw_gbs", 688.487),
    ("all_reduce_perf_coreweave_1.txt", "rows.5.in_place.busbw_gbs", 820.36),
    ("all_reduce_perf_coreweave_1.txt", "rows.0.size_bytes", 536870912),
    ("all_reduce_perf_coreweave_1.txt", "out_of_bounds", 0),
    ("all_reduce_perf_coreweave_1.txt", "passed", True),
    ("all_reduce_perf_coreweave_2.txt", "avg_busbw_gbs", 373.187),
    ("all_reduce_perf_coreweave_2.txt", "rows.4.out_of_place.time_us", 43980),
    ("all_reduce_perf_skypilot_5.txt", "rows.2.out_of_place.wrong", 0),
    ("all_reduce_perf_skypilot_5.txt", "format", "new"),
    ("ib_read_lat_spiderpool_1.txt", "test", "read_lat"),
    ("ib_read_lat_spiderpool_1.txt", "device", "mlx5_5"),
    ("ib_read_lat_spiderpool_1.txt", "gid_index", 2),
    ("ib_read_lat_spiderpool_1.txt", "results.0.t_typical_us", 6.74),
    ("ib_read_lat_spiderpool_1.txt", "results.0.p999_us", 20.37),
    ("ib_write_bw_dgx-spark-playbooks_1.txt", "test", "write_bw"),
    ("ib_write_bw_dgx-spark-playbooks_1.txt", "link_type", "Ethernet"),
    ("ib_write_bw_dgx-spark-playbooks_1.txt", "mtu", 1024),
    ("ib_write_bw_dgx-spark-playbooks_1.txt", "results.1.bw_avg_gbps", 92.57),
    ("ib_write_bw_dgx-spark-playbooks_1.txt", "error", None),
    ("ibstat_hurray0-rdma_test_1.txt", "devices.0.name", "mlx5_0"),
    ("ibstat_hurray0-rdma_test_1.txt", "devices.0.ports.0.rate_gbps", 100),
    ("ibstat_hurray0-rdma_test_1.txt", "devices.0.ports.0.link_layer", "Ethernet"),
    ("ibstat_hurray0-rdma_test_1.txt", "devices.1.ports.0.state", "Down"),
    ("ibstat_hurray0-rdma_test_1.txt", "devices.1.ports.0.physical_state", "Disabled"),
    ("ibv_devinfo_heioy-books_1.txt", "devices.1.name", "mlx4_0"),
    ("ibv_devinfo_heioy-books_1.txt", "devices.0.ports.1.state", "PORT_DOWN"),
    ("ibv_devinfo_heioy-books_1.txt", "devices.0.ports.0.active_mtu", 4096),
    ("ibv_devinfo_heioy-books_1.txt", "devices.0.ports.0.link_layer", "InfiniBand"),
    ("mlnx_qos_att-netarbiter_1.txt", "trust", "dscp"),
    ("mlnx_qos_att-netarbiter_1.txt", "pfc_priorities", [3]),
    ("mlnx_qos_att-netarbiter_1.txt", "dscp_to_priority.26", 3),
    ("mlnx_qos_att-netarbiter_1.txt", "tcs.1.priorities", [0]),
    ("nvidia-smi-topo_ml-engineering_1.txt", "matrix.GPU3.GPU6", "NV18"),
    ("nvidia-smi-topo_ml-engineering_1.txt", "affinity.GPU5.NUMA Affinity", "1"),
    ("nvidia-smi-topo_ml-engineering_1.txt", "affinity.GPU0.CPU Affinity", "0-51,104-155"),
    ("switch_cumulus_nv-show-qos-roce_1.txt", "settings.pfc.pfc-priority", "3"),
    ("switch_cumulus_nv-show-qos-roce_1.txt", "settings.congestion-control.congestion-mode", "ECN"),
    ("switch_cumulus_nv-show-qos-roce_1.txt", "settings.trust.trust-mode", "pcp,dscp"),
    ("switch_cumulus_nv-show-qos-roce_1.txt", "applied.enable", "on"),
    ("switch_cumulus_nv-show-qos-roce_1.txt", "switch_priority_to_tc.3.traffic_class", "3"),
    ("switch_sonic_show-ecn_3.txt", "profiles.AZURE_LOSSLESS.green_min_threshold", 1048576),
    ("switch_sonic_show-ecn_3.txt", "profiles.wredprofileabcd.red_max_threshold", 100),
    ("switch_sonic_show-pfc-counters_1.txt", "tx.Ethernet12", [0] * 8),
    ("switch_sonic_show-pfc-priority_2.txt", "interfaces.Ethernet10", [3, 4]),
    ("switch_sonic_show-queue-counters_4.txt", "queues.13.queue", "MC3"),
]


def dig(data: Any, path: str) -> Any:
    """Follow a dotted path; dict keys may themselves contain dots (longest match wins)."""
    parts = path.split(".")
    while parts:
        if isinstance(data, list):
            data = data[int(parts.pop(0))]
            continue
        for size in range(len(parts), 0, -1):
            key = ".".join(parts[:size])
            if key in data:
                data, parts = data[key], parts[size:]
                break
        else:
            raise KeyError(path)
    return data


@pytest.mark.parametrize(("name", "path", "expected"), SAMPLE_FACTS)
def test_sample_facts(samples_dir: Path, name: str, path: str, expected: Any) -> None:
    sample = samples_dir / name
    assert dig(parse(tool_for(sample), sample.read_text()), path) == expected


NCCL_OLD = """\
# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#                                                     out-of-place                       in-place
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
node1:123:123 [0] NCCL INFO Launch mode Parallel
    67108864      16777216   float     sum    692.1   96.96  169.68  5e-07    690.3   97.22  170.13  5e-07
   134217728      33554432   float     sum   1357.3   98.89  173.05  5e-07   1356.0   98.98  173.21  5e-07
"""
NCCL_FAILED = """\
# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
node1: Test NCCL failure common.cu:958 'unhandled system error (run with NCCL_DEBUG=INFO for details)'
 .. node1 pid 4242: Test failure common.cu:842
"""
NCCL_WRONG = """\
# nccl-tests version 2.13.9 nccl-headers=22005 nccl-library=22005
#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong
  1048576  262144  float  sum  -1  40.21  26.08  45.64  3  39.90  26.28  45.99  0
# Out of bounds values : 3 FAILED
# Avg bus bandwidth    : 45.815
"""
PERFTEST_MB = """\
                    RDMA_Write BW Test
 Device         : mlx5_0
 Link type       : Ethernet
 GID index       : 3
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      5000             11000.00            10000.00             0.160000
"""
PERFTEST_NO_DEVICE = "Port number 1 state is Down\n Couldn't find device mlx5_0\n"
# Non-ASCII text takes the case-insensitive search itself, not the lowered-ASCII shortcut.
PERFTEST_NO_DEVICE_NON_ASCII = " Périphérique mlx5_0 absent\n COULDN'T find device mlx5_0 \u2014 exiting\n"
PERFTEST_NO_PEER = """\
                    RDMA_Write BW Test
 Device         : mlx5_0
Couldn't connect to 10.0.0.2:18515
Unable to open file descriptor for socket connection Unable to init the socket connection
"""
# The line tests perftest's parser applies first: a title with trailing blanks, rules indented by a
# tab, a 19-dash line that is not a rule, the same settings and table header in a second capture
# with another device (each capture keeps its own values).
PERFTEST_RULES = (
    "\t---------------------------------------------------------------------------------------\n"
    "                    RDMA_Write BW Test   \t\n"
    " Dual-port       : OFF          Device         : mlx5_7\n"
    " Mtu             : 1024[B]\n"
    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    " 65536      50000            386.60             386.00              0.736237\n"
    "\t--------------------\n"
)
PERFTEST_SHORT_RULE = PERFTEST_RULES.replace("\t--------------------\n", "-------------------\n")
CHRONY = """\
Reference ID    : C0A80001 (ntp1.example.net)
Stratum         : 3
Ref time (UTC)  : Sun Nov 29 15:00:00 2026
System time     : 0.000250000 seconds slow of NTP time
Last offset     : -0.000012000 seconds
RMS offset      : 0.000030000 seconds
Leap status     : Normal
"""
CHRONY_UNSYNCED = CHRONY.replace("Normal", "Not synchronised")
IPERF3 = json.dumps(
    {
        "start": {
            "connected": [{"local_host": "10.0.0.1", "remote_host": "10.0.0.2"}],
            "test_start": {"protocol": "TCP"},
        },
        "end": {
            "sum_sent": {"seconds": 5.0, "bits_per_second": 9.41e9, "retransmits": 2},
            "sum_received": {"seconds": 5.0, "bits_per_second": 9.40e9},
        },
    }
)
IPERF3_ERROR = json.dumps({"start": {}, "end": {}, "error": "unable to connect to server"})
NFT = json.dumps(
    {
        "nftables": [
            {"metainfo": {"json_schema_version": 1}},
            {"table": {"family": "inet", "name": "gpunet"}},
            {
                "rule": {
                    "family": "inet",
                    "table": "gpunet",
                    "chain": "input",
                    "expr": [
                        {
                            "match": {
                                "op": "==",
                                "left": {"payload": {"protocol": "udp", "field": "dport"}},
                                "right": 4791,
                            }
                        },
                        {"accept": None},
                    ],
                }
            },
            {
                "rule": {
                    "family": "inet",
                    "table": "gpunet",
                    "chain": "input",
                    "expr": [
                        {
                            "match": {
                                "op": "==",
                                "left": {"payload": {"protocol": "tcp", "field": "dport"}},
                                "right": {"set": [22, {"range": [50000, 50002]}]},
                            }
                        },
                        {"accept": None},
                    ],
                }
            },
        ]
    }
)
LSPCI = """\
0000:15:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)
\tCapabilities: [200 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
0000:16:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)
"""
TOPO_WITH_NICS = """\
\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV18\tPIX\tSYS\t0-51\t0\t\tN/A
GPU1\tNV18\t X \tSYS\tPIX\t52-103\t1\t\tN/A
NIC0\tPIX\tSYS\t X \tSYS\t\t\t\t
NIC1\tSYS\tPIX\tSYS\t X \t\t\t\t

Legend:

  X    = Self
  PIX  = Connection traversing at most a single PCIe bridge

NIC Legend:

  NIC0: mlx5_0
  NIC1: mlx5_1
"""
SMI_Q = """\
==============NVSMI LOG==============

Timestamp                                 : Sun Nov 29 15:00:00 2026
Driver Version                            : 535.183.01
Attached GPUs                             : 2
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
GPU 00000000:2A:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
"""
IBV_VERBOSE = """\
hca_id:\tmlx5_0
\ttransport:\t\t\tInfiniBand (0)
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tlink_layer:\t\tEthernet
\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:ba59:9fff:fe00:0001, RoCE v1
\t\t\tGID[  3]:\t\t0000:0000:0000:0000:0000:ffff:0a00:0001, IPv4: 10.0.0.1, RoCE v2
"""

# (tool, text, dotted path, expected)
MSTCONFIG = (
    "Device #1:\n----------\n\nDevice type:        ConnectX7\nDevice:             0000:c1:00.0\n\n"
    "Configurations:                                          Next Boot\n"
    "         LLDP_NB_RX_MODE_P1                              ALL(2)\n"
)

EDGE_CASES: list[tuple[str, str, str, Any]] = [
    # mstconfig query (test_mstconfig_parser.py has the layouts); the capture is read the same way.
    ("mstconfig-query", MSTCONFIG, "devices.0.parameters.LLDP_NB_RX_MODE_P1.next_boot", "ALL(2)"),
    ("mstconfig-lldp", MSTCONFIG, "devices.0.device", "0000:c1:00.0"),
    # iproute2's JSON (test_ip_link_parser.py has the layouts).
    ("ip-link-json", '[{"ifindex":6,"ifname":"enp24s0np0","mtu":9000}]\n', "links.0.mtu", 9000),
    ("nccl-tests", NCCL_OLD, "format", "old"),
    ("nccl-tests", NCCL_OLD, "rows.1.in_place.busbw_gbs", 173.21),
    ("nccl-tests", NCCL_OLD, "avg_busbw_gbs", 171.518),
    # No footer: the capture may have been cut; never a pass.
    ("nccl-tests", NCCL_OLD, "passed", False),
    ("nccl-tests", NCCL_OLD, "complete", False),
    ("nccl-tests", NCCL_FAILED, "rows", []),
    ("nccl-tests", NCCL_FAILED, "passed", False),
    ("nccl-tests", NCCL_WRONG, "passed", False),
    ("nccl-tests", NCCL_WRONG, "version", "2.13.9"),
    ("nccl-tests", NCCL_WRONG, "out_of_bounds", 3),
    ("nccl-tests", NCCL_WRONG, "rows.0.out_of_place.wrong", 3),
    ("perftest", PERFTEST_MB, "results.0.bw_avg_gbps", 83.8861),
    ("perftest", PERFTEST_MB, "gid_index", 3),
    ("perftest", PERFTEST_NO_DEVICE, "error", "Couldn't find device mlx5_0"),
    ("perftest", PERFTEST_NO_PEER, "error", "Couldn't connect to 10.0.0.2:18515"),
    ("perftest", PERFTEST_NO_DEVICE_NON_ASCII, "error", "COULDN'T find device mlx5_0 \u2014 exiting"),
    ("perftest", PERFTEST_NO_PEER, "results", []),
    ("perftest", PERFTEST_RULES, "test", "write_bw"),
    ("perftest", PERFTEST_RULES, "device", "mlx5_7"),
    ("perftest", PERFTEST_RULES, "mtu", 1024),
    ("perftest", PERFTEST_RULES, "complete", True),
    ("perftest", PERFTEST_RULES.replace("mlx5_7", "mlx5_0").replace("1024[B]", "4096[B]"), "mtu", 4096),
    ("perftest", PERFTEST_SHORT_RULE, "complete", False),
    ("perftest", PERFTEST_SHORT_RULE, "results.0.bw_avg_gbps", 386.0),
    ("chronyc-tracking", CHRONY, "system_time_offset_ms", -0.25),
    ("chronyc-tracking", CHRONY, "reference_name", "ntp1.example.net"),
    ("chronyc-tracking", CHRONY, "synchronised", True),
    ("chronyc-tracking", CHRONY_UNSYNCED, "synchronised", False),
    ("iperf3", IPERF3, "received_gbps", 9.4),
    ("iperf3", IPERF3, "retransmits", 2),
    ("iperf3", IPERF3_ERROR, "error", "unable to connect to server"),
    ("nft-ruleset", NFT, "tables", ["inet gpunet"]),
    ("nft-ruleset", NFT, "rules.0.dports", [4791]),
    ("nft-ruleset", NFT, "rules.1.dports", [22, 50000, 50001, 50002]),
    ("lspci-acs", LSPCI, "devices.0.acs_control.SrcValid", True),
    ("lspci-acs", LSPCI, "devices.0.acs_control.TransBlk", False),
    ("nvidia-smi-topo", TOPO_WITH_NICS, "nics", ["mlx5_0", "mlx5_1"]),
    ("nvidia-smi-topo", TOPO_WITH_NICS, "matrix.GPU1.NIC1", "PIX"),
    ("nvidia-smi-q", SMI_Q, "attached_gpus", 2),
    ("nvidia-smi-q", SMI_Q, "gpus.1.product_name", "NVIDIA H100 80GB HBM3"),
    ("ibv_devinfo", IBV_VERBOSE, "devices.0.ports.0.gids.1.type", "IPv4: 10.0.0.1, RoCE v2"),
    ("nccl-conf", "# managed\nNCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_IB_TC=106\n", "settings.NCCL_IB_TC", "106"),
    ("traffic-class", "Global tclass=106\n", "traffic_class", 106),
    ("traffic-class", "106\n", "traffic_class", 106),
    ("lsmod", "Module                  Size  Used by\nmlx5_ib 479232  0\n", "modules", ["mlx5_ib"]),
    ("roce-gids", "3 0000:0000:0000:0000:0000:ffff:0a00:0001 RoCE_v2 eth0\n", "gids.0.type", "RoCE v2"),
    # The whole table: tests/unit/validate/test_lldpctl_parser.py.
    ("lldpctl-json", '{"lldp": {}}', "neighbours", []),
    # Cut, garbled and unreadable lines: tests/unit/validate/test_rdma_hw_counters_parser.py.
    (
        "rdma-hw-counters",
        "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:4711\n",
        "devices.mlx5_0.1.np_cnp_sent",
        4711,
    ),
    # The whole table: tests/unit/validate/test_sonic_wred_parser.py.
    (
        "sonic-show-queue-wredcounters",
        "     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes\n"
        "---------  -----  --------------  ---------------  ----------------  -----------------\n"
        "Ethernet0    UC3               0                0                17              18326\n",
        "queues.0.ecn_marked_pkts",
        17,
    ),
    # The whole table: tests/unit/validate/test_sonic_pfcwd_parser.py.
    (
        "sonic-show-pfcwd-stats",
        "QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP RX OK/DROP TX LAST OK/DROP RX LAST OK/DROP\n"
        "----- ------ ----------------------- ---------- ---------- --------------- ---------------\n"
        "Ethernet0:3 stormed 1/0 100/300 100/300 0/200 0/200\n",
        "queues.0.storm_detected",
        1,
    ),
    # NVUE per-port JSON, as the incast collection saves it: tests/unit/validate/test_cumulus_incast.py.
    (
        "cumulus-nv-show-interface-pfc-stats",
        '{"ports": {"swp1": {"3": {"rx-pause-frames": 2, "tx-pause-frames": 1520}}}, "refused": {}}',
        "interfaces.swp1.priorities",
        {3: {"rx_pause": 2, "tx_pause": 1520, "rx-pause-frames": 2, "tx-pause-frames": 1520}},
    ),
    (
        "cumulus-nv-show-interface-egress-queue-stats",
        '{"ports": {"swp1": {"3": {"tx-frames": 9, "wred-discards": 0}}}}',
        "interfaces.swp1.queues",
        {3: {"tx-frames": 9, "wred-discards": 0}},
    ),
    (
        "cumulus-nv-show-interface-roce-counters",
        '{"ports": {"swp1": {"tx-stats": {"tx-ecn-stats": {"ecn-marked-packets": 17}}}}}',
        "interfaces.swp1.ecn_marked",
        17,
    ),
    # The switch OSes' LLDP commands: tests/unit/validate/test_lldp_switch_parsers.py.
    ("eos-show-lldp-neighbors-detail-json", '{"lldpNeighbors": {}}', "neighbours", []),
    ("nxos-show-lldp-neighbors-detail-json", "{}", "neighbours", []),
    ("junos-show-lldp-neighbors-json", '{"lldp-neighbors-information": [{}]}', "neighbours", []),
    (
        "sonic-show-lldp-table",
        "LocalPort  RemoteDevice  RemotePortID  Capability  RemotePortDescr\n"
        "---------  ------------  ------------  ----------  ---------------\n"
        "Total entries displayed:  0\n",
        "neighbours",
        [],
    ),
    # The switch OSes' LLDP commands: tests/unit/validate/test_lldp_switch_parsers.py.
    ("eos-show-lldp-neighbors-detail-json", '{"lldpNeighbors": {}}', "neighbours", []),
    ("nxos-show-lldp-neighbors-detail-json", "{}", "neighbours", []),
    ("junos-show-lldp-neighbors-json", '{"lldp-neighbors-information": [{}]}', "neighbours", []),
    (
        "sonic-show-lldp-table",
        "LocalPort  RemoteDevice  RemotePortID  Capability  RemotePortDescr\n"
        "---------  ------------  ------------  ----------  ---------------\n"
        "Total entries displayed:  0\n",
        "neighbours",
        [],
    ),
]


@pytest.mark.parametrize(("tool", "text", "path", "expected"), EDGE_CASES)
def test_edge_cases(tool: str, text: str, path: str, expected: Any) -> None:
    assert dig(parse(tool, text), path) == expected


# The whole `ibv_devinfo -v` the fixture generator writes (rdma-core devinfo.c's layout: about 130
# capability lines a device, flag lists without a colon, a second max_sge under tag matching) and
# ibstat, and nvidia-smi -q (about 200 lines a GPU), as written and with trailing blanks; ibstat
# also flattened (it reads fields by name).
_FIXTURE_HOST = Path(__file__).resolve().parents[2] / "fixtures" / "artifacts" / "bad_nic" / "hosts" / "gpu03"
_RESHAPED = {
    "as written": lambda t: t,
    "spaced": lambda t: t.replace("\n", "  \n"),
    "flattened": lambda t: t.replace("\t", ""),
}
_CAPTURE_FACTS: list[tuple[str, str, str, Any]] = [
    ("ibv_devinfo", "ibv_devinfo.txt", "devices.2.ports.0.active_speed", "50.0 Gbps (64)"),
    ("ibv_devinfo", "ibv_devinfo.txt", "devices.2.ports.0.state", "PORT_ACTIVE"),
    ("ibv_devinfo", "ibv_devinfo.txt", "devices.2.ports.0.gids.3.type", "RoCE v2"),
    ("ibv_devinfo", "ibv_devinfo.txt", "devices.0.board_id", "MT_0000000838"),
    ("ibv_devinfo", "ibv_devinfo.txt", "devices.7.phys_port_cnt", 1),
    ("ibstat", "ibstat.txt", "devices.2.ports.0.rate_gbps", 200),
    ("ibstat", "ibstat.txt", "devices.7.port_count", 1),
    ("nvidia-smi-q", "nvidia-smi-q.txt", "attached_gpus", 8),
    (
        "nvidia-smi-q",
        "nvidia-smi-q.txt",
        "gpus.7",
        {"bus_id": "00000000:88:00.0", "product_name": "NVIDIA H100 80GB HBM3"},
    ),
    ("nvidia-smi-q", "nvidia-smi-q.txt", "gpus.0.product_name", "NVIDIA H100 80GB HBM3"),
]
HOST_CAPTURES = [
    (*fact, reshape)
    for fact in _CAPTURE_FACTS
    for reshape in ("as written", "spaced", *(["flattened"] if fact[0] == "ibstat" else []))
]


@pytest.mark.parametrize(("tool", "name", "path", "expected", "reshape"), HOST_CAPTURES)
def test_host_captures(tool: str, name: str, path: str, expected: Any, reshape: str) -> None:
    text = _RESHAPED[reshape]((_FIXTURE_HOST / name).read_text())
    parsed = parse(tool, text)
    assert dig(parsed, path) == expected
    assert len(parsed["devices"] if "devices" in parsed else parsed["gpus"]) == 8


# Input each parser must refuse with a reason (the real "no RDMA device" outputs included).
UNPARSEABLE = [
    ("ibstat", "ibpanic: [12] main: can't init UMAD library: No such file or directory\n"),
    ("ibstat", ""),
    ("ibv_devinfo", "No IB devices found\n"),
    ("perftest", "hello world\n"),
    ("nccl-tests", "# nThread 1 nGpus 1\n"),
    ("nvidia-smi-topo", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"),
    ("nvidia-smi-q", "bash: nvidia-smi: command not found\n"),
    ("chronyc-tracking", "506 Cannot talk to daemon\n"),
    ("mlnx_qos", "bash: mlnx_qos: command not found\n"),
    ("ip-link-json", 'Device "enp24s0np0" does not exist.\n'),
    ("iperf3", "iperf3: error - unable to connect to server\n"),
    ("nft-ruleset", "Error: Could not process rule: Operation not permitted\n"),
    ("lspci-acs", "pcilib: Cannot open /proc/bus/pci\n"),
    ("lsmod", "\n"),
    ("nccl-conf", "this is not an assignment\n"),
    ("sonic-show-pfc-counters", "Usage: show [OPTIONS] COMMAND [ARGS]...\n"),
    ("sonic-show-pfc-priority", "Error: No such command\n"),
    ("sonic-show-queue-counters", "Error: No such command\n"),
    ("sonic-show-ecn", "Error: No such command\n"),
    ("cumulus-nv-show-qos-roce", "Error: Invalid command\n"),
    ("no-such-tool", "anything"),
]


@pytest.mark.parametrize(("tool", "text"), UNPARSEABLE)
def test_unparseable_input_raises_a_one_line_reason(tool: str, text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse(tool, text)
    assert str(caught.value) and "\n" not in str(caught.value)


def test_every_registered_parser_is_exercised() -> None:
    from tests.unit.validate.test_parsers_in_the_wild import DCB_READS

    exercised = (
        {tool for tool, *_ in EDGE_CASES}
        | set(SAMPLE_TOOLS.values())
        | set(SHOW_COMMAND_TOOLS.values())
        | {tool for tool, *_ in DCB_READS}
    )
    assert set(PARSERS) <= exercised


def test_cli_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tracking.txt"
    source.write_text(CHRONY)
    assert main(["parse", "chronyc-tracking", str(source)]) == 0
    assert json.loads(capsys.readouterr().out)["leap_status"] == "Normal"


@pytest.mark.parametrize(
    ("arguments", "code"),
    [(["ibstat", "GARBAGE"], 3), (["ibstat", "MISSING"], 2)],
)
def test_cli_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], code: int
) -> None:
    garbage = tmp_path / "GARBAGE"
    garbage.write_text("not ibstat\n")
    tool, name = arguments
    assert main(["parse", tool, str(tmp_path / name)]) == code
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error


# docs/switch-show-commands.md is the simulator's contract: every example in it must parse.
SHOW_COMMAND_TOOLS = {
    "show interface priority-flow-control": "nxos-show-interface-pfc",
    "show priority-flow-control counters": "eos-show-pfc-counters",
    "show priority-flow-control": "eos-show-pfc",
    "show priority-flow-control counters watchdog | json": "eos-show-pfc-watchdog-json",
    "show priority-flow-control counters detail | json": "eos-show-pfc-counters-detail-json",
    "nv show interface swp1 counters qos pfc-stats": "cumulus-nv-show-pfc-stats",
    "show pfc counters": "sonic-show-pfc-counters",
    "show pfc priority": "sonic-show-pfc-priority",
    "show queue counters": "sonic-show-queue-counters",
    "show queue counters --json": "sonic-show-queue-counters",
    "nv show qos roce -o json": "cumulus-nv-show-qos-roce",
    "show interfaces queue et-0/0/0 | display json": "junos-show-interfaces-queue",
    "show interfaces et-0/0/0 extensive": "junos-show-interfaces-extensive",
    "nv show qos roce": "cumulus-nv-show-qos-roce",
    "show ecn": "sonic-show-ecn",
    "show interfaces counters queue detail": "eos-show-interfaces-counters-queue",
    "show interfaces counters queue detail | json": "eos-show-interfaces-counters-queue",
    "show qos interfaces ecn counters queue | json": "eos-show-qos-ecn-counters-queue",
    "show qos interfaces ecn counters queue": "eos-show-qos-ecn-counters-queue",
    "show interfaces queue et-0/0/0": "junos-show-interfaces-queue",
    "show class-of-service interface": "junos-show-cos-interface",
    "show class-of-service congestion-notification": "junos-show-cos-congestion-notification",
}
# The documented example state: PFC on the first port, rx_pfc[3]=1520, tx_pfc[3]=37; keyed by
# tool, or by command where one tool reads two forms of a command.
SHOW_COMMAND_FACTS = {
    "show interfaces counters queue detail | json": (
        "queues.1", {"port": "Ethernet1/1", "queue": 3, "tx_packets": None, "drop_packets": 42}
    ),
    "nv show qos roce -o json": ("settings.congestion-control.max-threshold", "1536000"),
    "show queue counters --json": (
        "queues.3", {"port": "Ethernet0", "queue": "UC3", "counter_pkts": 981234, "counter_bytes": 1004783616,
                     "drop_pkts": 0, "drop_bytes": 0}
    ),
    "show interfaces queue et-0/0/0 | display json": (
        "interfaces.et-0/0/0.queues.3",
        {"forwarding_class": "no-loss", "forwarding_classes": ["no-loss"], "queued_packets": 981234,
         "transmitted_packets": 981234, "tail_dropped_packets": 0, "red_dropped_packets": 0,
         "total_dropped_packets": 0},
    ),
    "show qos interfaces ecn counters queue | json": (
        "queues", [{"port": "Ethernet1/1", "queue": 0, "ecn_marked_packets": None},
                   {"port": "Ethernet1/1", "queue": 3, "ecn_marked_packets": 5521}]
    ),
    "nxos-show-interface-pfc": (
        "interfaces.Ethernet1/1",
        {"mode": "On", "oper": "On", "priorities": [3], "rx_pause": 1520, "tx_pause": 37},
    ),
    "eos-show-pfc-counters": ("interfaces.Et1/1", {"rx_pause": 1520, "tx_pause": 37}),
    "eos-show-pfc": (
        "interfaces.Et1/1", {"enabled": True, "active": True, "watchdog": None, "priorities": [3]}
    ),
    "eos-show-pfc-watchdog-json": ("interfaces.Ethernet1/1", {3: {"stuck": 2, "recovered": 2}}),
    "eos-show-pfc-counters-detail-json": (
        "interfaces.Ethernet1/1", {0: {"rx_pause": 0, "tx_pause": 0}, 3: {"rx_pause": 1520, "tx_pause": 37}}
    ),
    "cumulus-nv-show-qos-roce": ("settings.pfc.pfc-priority", "3"),
    "sonic-show-ecn": ("profiles.GPUNET_LOSSLESS.green_min_threshold", 153600),
    "cumulus-nv-show-pfc-stats": ("priorities.3.rx_pause", 1520),
    "sonic-show-pfc-counters": ("rx.Ethernet0", [0, 0, 0, 1520, 0, 0, 0, 0]),
    "sonic-show-pfc-priority": ("interfaces.Ethernet0", [3]),
    "sonic-show-queue-counters": ("queues.3.counter_pkts", 981234),
    "junos-show-interfaces-extensive": ("interfaces.et-0/0/0.priorities.3.rx_pause", 1520),
    "eos-show-interfaces-counters-queue": (
        "queues.0", {"port": "Et1/1", "queue": 3, "tx_packets": 981234, "drop_packets": 0}
    ),
    "eos-show-qos-ecn-counters-queue": ("queues.3.ecn_marked_packets", 5521),
    "junos-show-cos-interface": (
        "interfaces", {"et-0/0/0": {"congestion_notification": True, "profile": "cnp-3m"},
                       "et-0/0/1": {"congestion_notification": False, "profile": None}}
    ),
    "junos-show-cos-congestion-notification": (
        "profiles.roce-cnp.input", {"index": 60000, "priorities": {p: p == 3 for p in range(8)}}
    ),
    "junos-show-interfaces-queue": (
        "interfaces.et-0/0/0.queues.3",
        {"forwarding_class": "no-loss", "forwarding_classes": ["no-loss"], "queued_packets": 981234,
         "transmitted_packets": 981234, "tail_dropped_packets": 0, "red_dropped_packets": 0,
         "ecn_ce_packets": 5521},
    ),
}  # fmt: skip


def documented_examples() -> list[tuple[str, str]]:
    doc = Path(__file__).resolve().parents[3] / "docs" / "switch-show-commands.md"
    if not doc.is_file():
        return []
    # The first fenced block under each `### \`command\`` heading, prose in between allowed.
    examples = re.findall(
        r"^### `([^`]+)`\n(?:(?!^#).)*?^```\n(.*?)^```", doc.read_text(), re.MULTILINE | re.DOTALL
    )
    return [(command, text) for command, text in examples]


@pytest.mark.parametrize(("command", "text"), documented_examples(), ids=lambda value: value[:40])
def test_documented_switch_show_commands(command: str, text: str) -> None:
    tool = SHOW_COMMAND_TOOLS[command]
    path, expected = SHOW_COMMAND_FACTS.get(command) or SHOW_COMMAND_FACTS[tool]
    assert dig(parse(tool, text), path) == expected


# lines_holding: (text, markers, lines) - each line holding a marker once, in order, rstripped; a
# "\n"-marker only at a line's start; text with another line end (CR, U+2028) or non-ASCII text
# gets every content line.
LINES_HOLDING = [
    ("a\nGPU 1\n  GPU x\nb GPU y\n", ("\nGPU ",), ["GPU 1"]),
    ("GPU 0\nGPU 1", ("\nGPU ",), ["GPU 0", "GPU 1"]),
    ("a\nGPU 1\n  GPU x\n", ("GPU ",), ["GPU 1", "  GPU x"]),
    ("x Product Name GPU y  \nz\nAttached GPUs : 8", ("Product Name", "GPU ", "Attached"),
     ["x Product Name GPU y", "Attached GPUs : 8"]),
    ("no marker here\n", ("GPU ",), []),
    ("a\r\nGPU 1\r\nb\r\n", ("\nGPU ",), ["a", "GPU 1", "b"]),
    ("a\u2028GPU 1\nb\n", ("\nGPU ",), ["a", "GPU 1", "b"]),
    ("Périphérique\nGPU 1\n", ("\nGPU ",), ["Périphérique", "GPU 1"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "markers", "lines"), LINES_HOLDING)
def test_lines_holding(text: str, markers: tuple[str, ...], lines: list[str]) -> None:
    assert lines_holding(text, markers) == lines


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _oversized(tmp_path: Path) -> Path:
    path = tmp_path / "huge.txt"
    with path.open("wb") as file:
        file.truncate(MAX_CAPTURE_BYTES + 1)  # sparse: no disk used
    return path


# `gpunet parse FILE` reads as the judging does: bounded, regular files only (it read a FIFO or
# /dev/zero forever before). A symbolic link named on the command line is followed.
HOSTILE_INPUTS = [
    (_fifo, "is a FIFO"),
    (lambda tmp_path: Path("/dev/zero"), "is a device"),
    (_oversized, "cap"),
    (lambda tmp_path: tmp_path, "directory"),
]


@pytest.mark.parametrize(("make", "reason"), HOSTILE_INPUTS)
def test_cli_refuses_unbounded_input_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, reason: str
) -> None:
    assert main(["parse", "ibstat", str(make(tmp_path))]) == 2
    error = capsys.readouterr().err
    assert reason in error and error.count("\n") == 1


def test_cli_follows_a_symbolic_link_given_to_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tracking.txt"
    source.write_text(CHRONY)
    link = tmp_path / "link.txt"
    link.symlink_to(source)
    assert main(["parse", "chronyc-tracking", str(link)]) == 0
    assert json.loads(capsys.readouterr().out)["leap_status"] == "Normal"
