"""RDMA NIC hardware counters read from sysfs with one command:

    grep -H . /sys/class/infiniband/*/ports/*/hw_counters/*

Each counter is a file holding one decimal number (MLNX_OFED "InfiniBand Interface": RDMA counters
are under /sys/class/infiniband/<device>/ports/*/hw_counters/); `grep -H .` prints it as
`<path>:<value>`, one line a file. mlx5 names (Linux drivers/infiniband/hw/mlx5/counters.c; the
congestion ones from kernel commit e1f24a79f424, "IB/mlx5: Support congestion related counters"):
`np_ecn_marked_roce_packets` CE-marked RoCE packets the notification point (the receiver) got,
`np_cnp_sent` CNPs it sent for them, `rp_cnp_handled` CNPs the reaction point (the sender) acted
on, `rp_cnp_ignored` CNPs it ignored; `out_of_sequence` packets received out of PSN order
(kernel commit 0ad17a8f7fa0, "IB/mlx5: Add port protocol stats"): on a lossless fabric, a loss.

The stage reads sysfs (`/sys/class/infiniband`) unless verify_incast_sysfs_root names another
folder ending in `/infiniband` (the lab's SIMULATION tree, gpunet.lab.traffic_folder); every line
of one capture must name the same root, so a capture mixing two trees is refused.

A counter the driver cannot read makes grep print `grep: <path>: <error>` on stderr, which the
capture keeps: such counters are listed under `unreadable` (not a value). Any other line, a
value that is not a non-negative integer, a path outside that pattern, or a counter listed twice
is a cut or garbled capture: an error naming the line.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError

# The folder of the RDMA devices: sysfs's /sys/class/infiniband, or another absolute path of plain
# characters ending in /infiniband (gpunet.validate.incast_jobs refuses a root it would not read).
ROOT_PATTERN = r"/(?:[A-Za-z0-9._-]+/)*infiniband"
_ROOT = rf"(?P<root>{ROOT_PATTERN})"
_LINE = re.compile(
    rf"^{_ROOT}/(?P<device>[^/\s:]+)/ports/(?P<port>\d+)/hw_counters/(?P<name>[A-Za-z0-9_]+)"
    r":(?P<value>.*)$"
)
_UNREADABLE = re.compile(
    rf"^grep: {_ROOT}/(?P<device>[^/\s:]+)/ports/(?P<port>\d+)/hw_counters/"
    r"(?P<name>[A-Za-z0-9_]+): (?P<error>.+)$"
)


def parse_rdma_hw_counters(text: str) -> dict[str, Any]:
    """{"devices": {device: {port: {counter: value}}}, "unreadable": {"dev/port/name": error}}."""
    devices: dict[str, dict[str, dict[str, int]]] = {}
    unreadable: dict[str, str] = {}
    root = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("$ "):  # a blank line, or the command line ahead of the output
            continue
        match = _UNREADABLE.match(line) or _LINE.match(line)
        if match is None:
            raise ParseError(f"line {number}: not `<sysfs hw_counters path>:<value>`: {line[:80]!r}")
        root = root or match["root"]
        if match["root"] != root:
            raise ParseError(f"line {number}: counters under {match['root']}, the lines before under {root}")
        if "error" in match.groupdict():
            unreadable[f"{match['device']}/{match['port']}/{match['name']}"] = match["error"]
            continue
        if not match["value"].isdigit() or not match["value"].isascii():
            raise ParseError(f"line {number}: {match['name']} value {match['value'][:40]!r} is not a count")
        counters = devices.setdefault(match["device"], {}).setdefault(match["port"], {})
        if match["name"] in counters:
            raise ParseError(
                f"line {number}: {match['device']} port {match['port']} {match['name']} listed twice"
            )
        counters[match["name"]] = int(match["value"])
    if not devices:
        raise ParseError("no <root>/infiniband/<device>/ports/<port>/hw_counters/<name>:<value> line")
    return {"devices": devices, "unreadable": unreadable}
