"""Issue 29's rule for three host parsers the earlier rounds left out: a capture is read
completely and right, or refused naming what was expected. Recorded output in the published
layouts (our own values): `nvidia-smi -q` (`Attached GPUs : N`, then one `GPU <bus id>` block
per GPU), lsmod (kmod tools/lsmod.c `%-19s %8ld  %d` rows with holders; busybox's copy of
/proc/modules with `-` for an unknown refcount), `lspci -vvv` ACS (pciutils ls-ecaps.c
cap_acs: seven `Name+`/`Name-` flags), `ibv_devinfo` (rdma-core devinfo.c print_hca_cap:
`phys_port_cnt`, then a `port:` block per port, `state` first) and verify_host's sysfs GID
listing (collect_plan.GID_TABLE_SCRIPT: `<index> <gid> <type> <netdev>`, an index alone where
the gid file could not be read), and mlnx_qos's dscp2prio lines (two-digit DSCPs each followed by a
comma, a priority's ninth DSCP on a second `prio:N` line, as public MLNX_OFED captures print them)."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.validate.parsers import PARSERS
from gpunet.validate.parsers.base import ParseError

SMI_Q = """==============NVSMI LOG==============

Timestamp                                 : Mon Dec  7 01:00:00 2026
Driver Version                            : 550.90.07
CUDA Version                              : 12.4

Attached GPUs                             : 3
GPU 00000000:19:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Product Brand                         : NVIDIA
GPU 00000000:3B:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Product Brand                         : NVIDIA
GPU 00000000:4C:00.0
    Product Name                          : NVIDIA H200
    Product Brand                         : NVIDIA
"""

LSMOD = """Module                  Size  Used by
mlx5_ib               495616  0
ib_uverbs             200704  2 rdma_ucm,mlx5_ib
mlx5_core            2490368  1 mlx5_ib
nvidia_peermem         16384  0
"""

# busybox lsmod: /proc/modules under kmod's header (refcount `-` without CONFIG_MODULE_UNLOAD).
LSMOD_PROC = """Module                  Size  Used by
mlx5_ib 495616 0 - Live 0x0000000000000000
mlx5_core 2490368 - mlx5_ib, Live 0x0000000000000000
"""

LSPCI = """0000:17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)
\tCapabilities: [170 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
0000:18:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)
\tCapabilities: [170 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-
"""

IBV = """hca_id:\tmlx5_0
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t28.39.1002
\tnode_guid:\t\t\tb83f:d203:0077:1a2e
\tvendor_id:\t\t\t0x02c9
\tvendor_part_id:\t\t\t4129
\tboard_id:\t\t\tMT_0000000838
\tphys_port_cnt:\t\t\t2
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tlink_layer:\t\tEthernet

\t\tport:\t2
\t\t\tstate:\t\t\tPORT_DOWN (1)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t1024 (3)
\t\t\tlink_layer:\t\tEthernet

"""

GIDS = """0 fe80:0000:0000:0000:ba3f:d2ff:fe77:1a2e IB/RoCE_v1 ens1f0np0
1 fe80:0000:0000:0000:ba3f:d2ff:fe77:1a2e RoCE_v2 ens1f0np0
2 0000:0000:0000:0000:0000:ffff:0a64:0107 IB/RoCE_v1 ens1f0np0
3 0000:0000:0000:0000:0000:ffff:0a64:0107 RoCE_v2 ens1f0np0
4
5 0000:0000:0000:0000:0000:0000:0000:0000
"""

MLNX_QOS = """DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
        prio:0 dscp:07,06,05,04,03,02,01,00,
        prio:1 dscp:15,14,13,12,11,10,09,08,
        prio:2 dscp:23,22,21,20,19,18,17,16,
        prio:3 dscp:31,29,28,27,25,24,
        prio:4 dscp:39,38,37,36,35,34,33,32,
        prio:5 dscp:47,46,45,44,43,42,41,40,
        prio:6 dscp:30,26,55,54,53,52,51,50,
        prio:6 dscp:49,48,
        prio:7 dscp:63,62,61,60,59,58,57,56,
Cable len: 7
PFC configuration:
        priority    0   1   2   3   4   5   6   7
        enabled     0   0   0   1   0   0   0   0
tc: 0 ratelimit: unlimited, tsa: vendor
         priority:  0
tc: 1 ratelimit: unlimited, tsa: vendor
         priority:  1
tc: 2 ratelimit: unlimited, tsa: vendor
         priority:  2
tc: 3 ratelimit: unlimited, tsa: vendor
         priority:  3
tc: 4 ratelimit: unlimited, tsa: vendor
         priority:  4
tc: 5 ratelimit: unlimited, tsa: vendor
         priority:  5
tc: 6 ratelimit: unlimited, tsa: vendor
         priority:  6
tc: 7 ratelimit: unlimited, tsa: vendor
         priority:  7
"""


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, old  # a case that changed nothing would test nothing
    return text.replace(old, new, 1)


def _without_last_lines(text: str, drop: int) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[:-drop]) + "\n"


READS = [
    ("smi-count", "nvidia-smi-q", SMI_Q, ("attached_gpus",), 3),
    ("smi-last-gpu", "nvidia-smi-q", SMI_Q, ("gpus", 2, "product_name"), "NVIDIA H200"),
    ("smi-bus", "nvidia-smi-q", SMI_Q, ("gpus", 1, "bus_id"), "00000000:3B:00.0"),
    ("lsmod", "lsmod", LSMOD, ("modules",), ["ib_uverbs", "mlx5_core", "mlx5_ib", "nvidia_peermem"]),
    ("lsmod-proc-modules", "lsmod", LSMOD_PROC, ("modules",), ["mlx5_core", "mlx5_ib"]),
    ("lsmod-no-module", "lsmod", "Module                  Size  Used by\n", ("modules",), []),
    ("ibv-ports", "ibv_devinfo", IBV, ("devices", 0, "ports", 1, "state"), "PORT_DOWN"),
    ("ibv-mtu", "ibv_devinfo", IBV, ("devices", 0, "ports", 1, "active_mtu"), 1024),
    ("gids-roce-v2", "roce-gids", GIDS, ("gids", 3, "gid"), "0000:0000:0000:0000:0000:ffff:0a64:0107"),
    ("gids-unreadable-and-unused-dropped", "roce-gids", GIDS, ("gids",), None),
    ("mlnx-qos-moved-dscp", "mlnx_qos", MLNX_QOS, ("dscp_to_priority", "26"), 6),
    ("mlnx-qos-second-line", "mlnx_qos", MLNX_QOS, ("dscp_to_priority", "48"), 6),
    ("mlnx-qos-untouched", "mlnx_qos", MLNX_QOS, ("dscp_to_priority", "4"), 0),
    ("lspci-first", "lspci-acs", LSPCI, ("devices", 0, "acs_control", "ReqRedir"), True),
    ("lspci-first-off", "lspci-acs", LSPCI, ("devices", 0, "acs_control", "TransBlk"), False),
    ("lspci-second", "lspci-acs", LSPCI, ("devices", 1, "acs_control", "SrcValid"), False),
]


@pytest.mark.parametrize(("case", "tool", "text", "path", "expected"), READS, ids=[c[0] for c in READS])
def test_host_captures_are_read(
    case: str, tool: str, text: str, path: tuple[Any, ...], expected: Any
) -> None:
    value: Any = PARSERS[tool](text)
    for key in path:
        value = value[key]
    if expected is None:  # the GID listing: only the four used entries are kept
        assert [entry["index"] for entry in value] == [0, 1, 2, 3]
        return
    assert value == expected


REFUSALS = [
    # nvidia-smi -q cut after its second GPU block, or inside the first; a block printed twice.
    (
        "smi-cut-block",
        "nvidia-smi-q",
        _without_last_lines(SMI_Q, 3),
        "'Attached GPUs : 3' but 2 'GPU <bus id>' blocks",
    ),
    ("smi-cut-early", "nvidia-smi-q", _without_last_lines(SMI_Q, 7), "but 1 'GPU <bus id>' block "),
    ("smi-extra", "nvidia-smi-q", _replace(SMI_Q, ": 3\n", ": 2\n"), "'Attached GPUs : 2' but 3"),
    (
        "smi-twice",
        "nvidia-smi-q",
        _replace(SMI_Q, "GPU 00000000:4C:00.0", "GPU 00000000:19:00.0"),
        "listed twice",
    ),
    ("smi-doubled", "nvidia-smi-q", SMI_Q + SMI_Q, "a second 'Attached GPUs' line"),
    # lsmod rows cut before the refcount or after the name; a module twice.
    ("lsmod-cut-refcount", "lsmod", _replace(LSMOD, "2490368  1 mlx5_ib", "2490368"), "line 4: expected"),
    ("lsmod-cut-name", "lsmod", LSMOD + "nvidia_uv\n", "line 6: expected"),
    (
        "lsmod-twice",
        "lsmod",
        LSMOD + "mlx5_ib               495616  0\n",
        "line 6: module mlx5_ib listed twice",
    ),
    # ibv_devinfo cut after its first port, or right after a port's first line; a port twice.
    ("ibv-cut-port", "ibv_devinfo", IBV.split("\t\tport:\t2")[0], "phys_port_cnt 2 but 1 'port:' block"),
    ("ibv-cut-state", "ibv_devinfo", IBV.split("\t\t\tstate:\t\t\tPORT_DOWN")[0], "port 2: no 'state:' line"),
    ("ibv-port-twice", "ibv_devinfo", _replace(IBV, "port:\t2", "port:\t1"), "port 1 listed twice"),
    # The GID listing cut inside a GID, or inside a type-less line's GID.
    (
        "gids-cut-gid",
        "roce-gids",
        GIDS + "6 0000:0000:0000:0000:0000:ffff:0a6\n",
        "line 7: expected '<index> <gid",
    ),
    (
        "gids-cut-in-table",
        "roce-gids",
        _replace(GIDS, "ba3f:d2ff:fe77:1a2e RoCE_v2", "ba3f:d2"),
        "line 2: expected",
    ),
    # mlnx_qos dscp2prio cut inside a DSCP (`47,46,4` would map DSCP 4 to priority 5), a DSCP
    # under two priorities (a doubled table), a DSCP out of range.
    (
        "mlnx-qos-cut-dscp",
        "mlnx_qos",
        _replace(MLNX_QOS, "dscp:47,46,45,44,43,42,41,40,", "dscp:47,46,4"),
        "line 9: expected 'prio:<0-7> dscp:'",
    ),
    (
        "mlnx-qos-dscp-twice",
        "mlnx_qos",
        _replace(MLNX_QOS, "dscp:63,62,", "dscp:26,63,62,"),
        "line 12: DSCP 26 mapped to priority 7 after priority 6",
    ),
    (
        "mlnx-qos-dscp-64",
        "mlnx_qos",
        _replace(MLNX_QOS, "dscp:49,48,", "dscp:49,48,64,"),
        "line 11: DSCP 64 is not a DSCP",
    ),
    # lspci ACSCtl cut inside a flag or before the last ones.
    (
        "lspci-cut-flag",
        "lspci-acs",
        _replace(LSPCI, "CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", "Cmplt"),
        "line 4: expected ACSCtl's seven flags",
    ),
    (
        "lspci-cut-flags",
        "lspci-acs",
        _replace(LSPCI, "UpstreamFwd- EgressCtrl- DirectTrans-\n", "\n"),
        "line 8: expected ACSCtl's seven flags",
    ),
]


@pytest.mark.parametrize(("case", "tool", "text", "reason"), REFUSALS, ids=[c[0] for c in REFUSALS])
def test_host_capture_damage_is_refused(case: str, tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError) as refused:
        PARSERS[tool](text)
    assert reason in str(refused.value)
