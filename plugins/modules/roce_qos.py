#!/usr/bin/python
"""gpunet.fabric.roce_qos: bring RDMA NICs to the fabric's lossless RoCEv2 settings, only what differs."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: roce_qos
short_description: Set DSCP trust, PFC, ETS, cable length, RoCE TC, RDMA-CM, DCQCN, MTU, pause on RDMA NICs
version_added: "0.1.0"
description:
  - Reads the current state of every listed NIC first (C(mlnx_qos) or iproute2 C(dcb), sysfs,
    the rdma_cm configfs, C(ethtool -a)) and changes only the settings that differ.
  - ConnectX NICs (driver mlx5_core) are configured with C(mlnx_qos) when it is installed; other
    NICs, or hosts without C(mlnx_qos), with iproute2's C(dcb).
  - Fails, naming the NIC and what is missing, when a listed netdev or RDMA device does not exist.
  - Returns C(boot_commands), the shell commands that apply the same settings from scratch, which
    the roce_host role runs from a systemd unit at boot so the settings survive a reboot.
options:
  nics:
    description: NICs to configure, each with the RDMA device C(name) (mlx5_0) and kernel C(netdev).
    type: list
    elements: dict
    required: true
  lossless_priorities:
    description: Priorities with PFC enabled (and DCQCN on); all others get PFC off.
    type: list
    elements: int
    default: [3]
  dscp_priority:
    description: DSCP to priority entries the NIC must classify with (RoCE data and CNP DSCPs).
    type: dict
    default: {"26": 3, "48": 6}
  traffic_class:
    description: IP TOS byte of RoCE traffic (DSCP << 2 | ECT), for tc/1/traffic_class and RDMA-CM.
    type: int
    default: 106
  cnp_dscp:
    description: DSCP the NIC marks its congestion notification packets with (DCQCN).
    type: int
    default: 48
  cnp_priority:
    description: 802.1p priority of CNPs (DCQCN).
    type: int
    default: 6
  dcqcn:
    description: Enable DCQCN (roce_np and roce_rp) on the lossless priorities where the NIC offers it.
    type: bool
    default: true
  roce_v2:
    description: Make RDMA-CM use RoCE v2 by default (C(default_roce_mode)).
    type: bool
    default: true
  mtu:
    description: MTU of the netdev; 0 leaves it alone.
    type: int
    default: 0
  global_pause:
    description: 802.3x global pause; off when PFC is on.
    type: bool
    default: false
  prio_tc:
    description:
      - Traffic class of each priority 0-7 (C(mlnx_qos --prio_tc), C(dcb ets set ... prio-tc)); empty leaves
        the NIC's map alone. mlx5's factory map puts priority 0 on TC 1 and priority 1 on TC 0.
    type: list
    elements: int
    default: []
  tc_tsa:
    description:
      - Transmission selection of each traffic class 0-7, C(strict), C(ets) or C(vendor) (C(mlnx_qos --tsa),
        C(dcb ets set ... tc-tsa)); empty leaves ETS alone. Needs I(tc_bw).
    type: list
    elements: str
    default: []
  tc_bw:
    description:
      - ETS bandwidth percent of each traffic class 0-7 (C(mlnx_qos --tcbw), C(dcb ets set ... tc-bw)); the
        C(ets) classes must sum to 100 and every other class must be 0 (mlnx_qos and the mlx5 driver refuse
        anything else).
    type: list
    elements: int
    default: []
  cable_length_m:
    description:
      - Metres of cable between each NIC and its leaf, by netdev, for the PFC headroom (C(mlnx_qos --pfc ...
        --cable_len N)); unset leaves every NIC's cable length alone. A listed NIC missing from it is
        reported NOT APPLIED (unknown length). C(dcb) has no cable length (NOT APPLIED).
    type: dict
  tool:
    description: C(auto) picks C(mlnx_qos) for mlx5_core NICs where installed, else C(dcb).
    type: str
    choices: [auto, mlnx_qos, dcb]
    default: auto
  rdma_port:
    description: RDMA port number of every NIC.
    type: int
    default: 1
  sysfs_root:
    description: Root of sysfs (tests point it at a fake tree).
    type: path
    default: /sys
  configfs_root:
    description: Root of configfs (tests point it at a fake tree).
    type: path
    default: /sys/kernel/config
author: gpunet developers (!UNKNOWN)
attributes:
  check_mode:
    description: Reads every NIC and reports what differs (and would change) without changing it.
    support: full
  diff_mode:
    description: Returns no diff; C(changes) lists each setting that differs, with its old and new value.
    support: none
requirements:
  - On the host, C(mlnx_qos) (MLNX_OFED/DOCA) for ConnectX NICs, or iproute2's C(dcb); ethtool.
"""

EXAMPLES = r"""
- name: Lossless RoCE on the fabric NICs
  gpunet.fabric.roce_qos:
    nics:
      - {name: mlx5_0, netdev: rail0}
    lossless_priorities: [3]
    dscp_priority: {26: 3, 48: 6}
    traffic_class: 106
    cnp_dscp: 48
    cnp_priority: 6
    mtu: 9000
    prio_tc: [0, 0, 0, 3, 0, 0, 6, 0]
    tc_tsa: [ets, ets, ets, ets, ets, ets, strict, ets]
    tc_bw: [50, 0, 0, 50, 0, 0, 0, 0]
    cable_length_m: {rail0: 3}
"""

RETURN = r"""
changes:
  description:
    - 'One line per setting changed (in check mode, to change): "<netdev> <setting>: <before> -> <after>".'
  type: list
  elements: str
  returned: always
tools:
  description: The QoS tool used per netdev (mlnx_qos or dcb).
  type: dict
  returned: always
warnings:
  description: Notes that need no action.
  type: list
  elements: str
  returned: always
not_applied:
  description: >-
    Settings the NIC's driver offers no control for and that were therefore NOT made (e.g. the inbox
    mlx5 driver has neither tc/<port>/traffic_class nor the ecn/ DCQCN sysfs of MLNX_OFED/DOCA), each
    with what takes its place. They are never reported as applied.
  type: list
  elements: str
  returned: always
boot_commands:
  description: Shell commands that apply all settings from scratch, for the boot-time unit.
  type: list
  elements: str
  returned: always
"""

import os  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

Runner = Callable[[list[str]], tuple[int, str, str]]

ROCE_V2 = "RoCE v2"
TSA_NAMES = ("strict", "ets", "vendor")  # mlnx_qos --tsa; dcb also knows cbs, which gpunet never sets
# mlx5 keeps a cable length only from 1 to 999 m and drops any other without an error
# (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c: mlx5e_dcbnl_ieee_setpfc, MLX5E_MAX_CABLE_LENGTH 1000).
MLX5_MAX_CABLE_LENGTH_M = 999


class NicError(Exception):
    """A listed NIC is missing or a tool failed; the message names the NIC and the cause."""


@dataclass
class Desired:
    lossless_priorities: frozenset[int]
    dscp_priority: dict[int, int]
    traffic_class: int
    cnp_dscp: int
    cnp_priority: int
    dcqcn: bool = True
    roce_v2: bool = True
    mtu: int = 0
    global_pause: bool = False
    rdma_port: int = 1
    prio_tc: list[int] = field(default_factory=list)  # empty: leave the NIC's map alone
    tc_tsa: list[str] = field(default_factory=list)  # empty (with tc_bw): leave ETS alone
    tc_bw: list[int] = field(default_factory=list)
    cable_length_m: dict[str, int] | None = None  # netdev -> metres; None: leave cable lengths alone

    @property
    def pfc_vector(self) -> list[int]:
        return [1 if p in self.lossless_priorities else 0 for p in range(8)]

    @property
    def ets(self) -> dict[int, tuple[str, int]]:
        """Wanted (TSA, bandwidth) per traffic class; empty when ETS is left alone."""
        return {tc: (tsa, bw) for tc, (tsa, bw) in enumerate(zip(self.tc_tsa, self.tc_bw, strict=False))}


def ets_problems(want: Desired) -> list[str]:
    """What mlnx_qos, iproute2 dcb or mlx5 would refuse in the wanted map, ETS and lengths, before any NIC."""
    problems = []
    if want.prio_tc and (len(want.prio_tc) != 8 or not all(0 <= tc <= 7 for tc in want.prio_tc)):
        problems.append(f"prio_tc needs 8 traffic classes 0-7 (priorities 0-7), got {want.prio_tc}")
    if bool(want.tc_tsa) != bool(want.tc_bw):
        problems.append("tc_tsa and tc_bw go together: mlnx_qos checks --tcbw against --tsa")
    elif want.tc_tsa:
        if len(want.tc_tsa) != 8 or any(tsa not in TSA_NAMES for tsa in want.tc_tsa):
            problems.append(f"tc_tsa needs 8 of {', '.join(TSA_NAMES)}, got {want.tc_tsa}")
        if len(want.tc_bw) != 8 or not all(0 <= bw <= 100 for bw in want.tc_bw):
            problems.append(f"tc_bw needs 8 percentages 0-100, got {want.tc_bw}")
        elif len(want.tc_tsa) == 8:
            # mlnx_qos: "ETS BW for a strict/vendor TC must be 0"; mlx5e_dbcnl_validate_ets and
            # iproute2 dcb_ets_validate_bw: the shares total 100 where any class is ETS.
            others = [tc for tc, tsa in enumerate(want.tc_tsa) if tsa != "ets" and want.tc_bw[tc]]
            if others:
                problems.append(f"tc_bw must be 0 for strict/vendor traffic classes {others}: {want.tc_bw}")
            total = sum(bw for tsa, bw in zip(want.tc_tsa, want.tc_bw, strict=True) if tsa == "ets")
            if "ets" in want.tc_tsa and total != 100:
                problems.append(
                    f"tc_bw of the ets traffic classes must sum to 100, got {total}: {want.tc_bw}"
                )
    for netdev, length in (want.cable_length_m or {}).items():
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            problems.append(f"cable_length_m[{netdev}] must be a whole number of metres >= 1, got {length!r}")
    return problems


@dataclass
class Step:
    """One setting that differs, with the argv or file write that fixes it."""

    netdev: str
    setting: str
    before: str
    after: str
    argv: list[str] | None = None
    write: tuple[str, str] | None = None  # (path, value)
    mkdir: str | None = None

    def describe(self) -> str:
        return f"{self.netdev} {self.setting}: {self.before} -> {self.after}"


@dataclass
class NicPlan:
    netdev: str
    tool: str
    steps: list[Step] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    boot_commands: list[str] = field(default_factory=list)


def run_command(argv: list[str]) -> tuple[int, str, str]:
    completed = subprocess.run(argv, capture_output=True, text=True, check=False)
    return completed.returncode, completed.stdout, completed.stderr


class Host:
    """The machine's sysfs, configfs and tools; tests point the roots at fake trees."""

    def __init__(self, sysfs_root: str, configfs_root: str, run: Runner = run_command) -> None:
        self.sysfs = sysfs_root.rstrip("/") or "/"
        self.configfs = configfs_root.rstrip("/") or "/"
        self.run = run

    def net(self, netdev: str, *parts: str) -> str:
        return os.path.join(self.sysfs, "class", "net", netdev, *parts)

    def ib(self, device: str, *parts: str) -> str:
        return os.path.join(self.sysfs, "class", "infiniband", device, *parts)

    def rdma_cm(self, device: str, *parts: str) -> str:
        return os.path.join(self.configfs, "rdma_cm", device, *parts)

    @staticmethod
    def read(path: str) -> str | None:
        try:
            with open(path) as handle:
                return handle.read().strip()
        except OSError:
            return None

    def driver(self, netdev: str) -> str:
        link = self.net(netdev, "device", "driver")
        return os.path.basename(os.path.realpath(link)) if os.path.exists(link) else ""

    def check(self, argv: list[str], what: str) -> str:
        rc, out, err = self.run(argv)
        if rc != 0:
            raise NicError(f"{what}: `{shlex.join(argv)}` failed with rc {rc}: {(err or out).strip()}")
        return out


# mlnx_qos output: "Priority trust state: dscp", "prio:3 dscp:31,30,...", "enabled 0 0 0 1 0 0 0 0".
def parse_mlnx_qos(text: str) -> tuple[str, list[int], dict[int, int]]:
    trust_match = re.search(r"Priority trust state:\s*(\w+)", text)
    pfc_match = re.search(r"^\s*enabled\s+((?:[01]\s+){7}[01])\s*$", text, re.MULTILINE)
    dscp_priority: dict[int, int] = {}
    for prio, dscps in re.findall(r"prio:(\d)\s+dscp:([\d,]+)", text):
        for dscp in filter(None, dscps.split(",")):
            dscp_priority[int(dscp)] = int(prio)
    if not trust_match or not pfc_match:
        raise ValueError("no 'Priority trust state' or PFC 'enabled' line in mlnx_qos output")
    return trust_match.group(1), [int(v) for v in pfc_match.group(1).split()], dscp_priority


@dataclass
class EtsState:
    """What a NIC reports of its priority -> traffic class map, ETS and cable length."""

    prio_tc: list[int | None]  # by priority; None where the output lists the priority under no class
    tcs: dict[int, tuple[str, int]]  # traffic class -> (TSA, ETS bandwidth; 0 unless ets), as printed
    cable_length_m: int | None = None


# mlnx_qos prints each traffic class that holds a priority as "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%"
# ("tsa: strict" / "tsa: vendor" without bw), then its priorities: one "priority:  3" line each (mlnx-tools
# python/mlnx_qos pretty_print) or all on one line (older releases); and "Cable len: 7", the PFC delay
# the driver reports (0 where mlx5 has no port buffer control). The host cannot import gpunet, so this
# mirrors src/gpunet/validate/parsers/mlnx_qos.py, which reads the same lines of collected output.
_MLNX_TC = re.compile(r"^tc:\s*(\d)\s+ratelimit:\s*[^,]+,\s*tsa:\s*([a-z]+)(?:,\s*bw:\s*(\d+)%)?")
_MLNX_TC_PRIORITIES = re.compile(r"^priority:\s*([0-7](?:\s+[0-7])*)\s*$")


def parse_mlnx_qos_ets(text: str) -> EtsState:
    state = EtsState(prio_tc=[None] * 8, tcs={})
    current: int | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if match := _MLNX_TC.match(line):
            current = int(match.group(1))
            state.tcs[current] = (match.group(2), int(match.group(3) or 0))
        elif current is not None and (match := _MLNX_TC_PRIORITIES.match(line)):
            for prio in match.group(1).split():
                state.prio_tc[int(prio)] = current
        elif match := re.match(r"^Cable len:\s*(\d+)", line):
            state.cable_length_m = int(match.group(1))
    return state


# `dcb ets show dev X prio-tc tc-tsa tc-bw` (iproute2 dcb/dcb_ets.c, dcb_print_named_array): one line
# each, "prio-tc 0:1 1:0 2:2 ...", "tc-tsa 0:vendor 1:ets ...", "tc-bw 0:100 1:0 ...", all 8 entries.
def parse_dcb_ets(text: str) -> EtsState:
    fields: dict[str, dict[int, str]] = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in ("prio-tc", "tc-tsa", "tc-bw"):
            fields[words[0]] = {int(k): v for k, v in (w.split(":", 1) for w in words[1:] if ":" in w)}
    if set(fields) != {"prio-tc", "tc-tsa", "tc-bw"}:
        raise ValueError(f"no prio-tc, tc-tsa and tc-bw lines in dcb ets output: {text.strip()!r}")
    tsa, bw = fields["tc-tsa"], fields["tc-bw"]
    return EtsState(
        prio_tc=[int(fields["prio-tc"][p]) if p in fields["prio-tc"] else None for p in range(8)],
        tcs={tc: (tsa[tc], int(bw.get(tc, 0)) if tsa[tc] == "ets" else 0) for tc in sorted(tsa)},
    )


# `dcb pfc show dev X delay`: "delay 7" (dcb_pfc.c, dcb_pfc_print_delay).
def parse_dcb_delay(text: str) -> int | None:
    match = re.search(r"\bdelay\s+(\d+)", text)
    return int(match.group(1)) if match else None


# dcb output: "prio-pfc 0:off 1:off 2:off 3:on ..." and "dscp-prio 26:3 48:6".
def parse_dcb_pfc(text: str) -> list[int]:
    states = dict(re.findall(r"\b([0-7]):(on|off)\b", text))
    return [1 if states.get(str(p)) == "on" else 0 for p in range(8)]


# `dcb app show` prints a DSCP by its name where iproute2's rt_dsfield table has one (dcb_app.c:
# rtnl_dsfield_get_name(dscp << 2)), e.g. "dscp-prio AF31:3 CS6:6 27:3". The names are the standard
# code points: CSn = 8n (RFC 2474), AFxy = 8x + 2y (RFC 2597), EF = 46 (RFC 3246), VA = 44 (RFC 5865),
# LE = 1 (RFC 8622); a host's own rt_dsfield file may add names (read by dscp_names_from_rt_dsfield).
STANDARD_DSCP_NAMES: dict[str, int] = {
    "default": 0,
    **{f"CS{n}": 8 * n for n in range(8)},
    **{f"AF{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)},
    "EF": 46,
    "VA": 44,
    "LE": 1,
}
RT_DSFIELD_FILES = (
    "/etc/iproute2/rt_dsfield",
    "/usr/share/iproute2/rt_dsfield",
    "/usr/lib/iproute2/rt_dsfield",
)


def dscp_names_from_rt_dsfield(text: str) -> dict[str, int]:
    """Names of an rt_dsfield file ("0x68 AF31": the DS byte, so DSCP = value >> 2)."""
    names = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2:
            try:
                names[fields[1]] = int(fields[0], 0) >> 2
            except ValueError:
                continue
    return names


def host_dscp_names(paths: tuple[str, ...] = RT_DSFIELD_FILES) -> dict[str, int]:
    names = dict(STANDARD_DSCP_NAMES)
    for path in paths:
        text = Host.read(path)
        if text is not None:
            names.update(dscp_names_from_rt_dsfield(text))
    return names


def parse_dcb_dscp(text: str, names: dict[str, int] | None = None) -> dict[int, int]:
    """DSCP -> priority from `dcb app show ... dscp-prio`, numbers ("26:3") and names ("AF31:3") alike."""
    known = {name.lower(): value for name, value in (names or STANDARD_DSCP_NAMES).items()}
    mapping = {}
    for key, prio in re.findall(r"(?<![\w:])([A-Za-z][\w-]*|\d{1,2}):([0-7])\b", text):
        if key.isdigit():
            mapping[int(key)] = int(prio)
        elif key.lower() in known:
            mapping[known[key.lower()]] = int(prio)
        else:
            raise ValueError(f"dcb printed DSCP name {key!r}, which no rt_dsfield table defines")
    return mapping


# ethtool -a: "RX:  on" / "TX:  off".
def parse_pause(text: str) -> dict[str, bool]:
    return {k.lower(): v == "on" for k, v in re.findall(r"^(RX|TX):\s+(on|off)\s*$", text, re.MULTILINE)}


def parse_traffic_class(text: str | None) -> int | None:
    """tc/1/traffic_class reads "106", or "Global tclass=106" on newer drivers; empty when unset."""
    match = re.search(r"(\d+)\s*$", text or "")
    return int(match.group(1)) if match else None


def choose_tool(host: Host, netdev: str, wanted: str) -> str:
    if wanted != "auto":
        return wanted
    return "mlnx_qos" if host.driver(netdev) == "mlx5_core" and shutil.which("mlnx_qos") else "dcb"


def plan_nic(host: Host, nic: dict[str, str], want: Desired, tool: str) -> NicPlan:
    netdev, device = nic["netdev"], nic["name"]
    if not os.path.isdir(host.net(netdev)):
        raise NicError(f"NIC {device}: netdev {netdev} not found ({host.net(netdev)} is missing)")
    if not os.path.isdir(host.ib(device)):
        raise NicError(_missing_device_message(host, device, netdev))
    plan = NicPlan(netdev=netdev, tool=choose_tool(host, netdev, tool))
    if plan.tool == "mlnx_qos":
        _plan_mlnx_qos(host, nic, want, plan)
    else:
        _plan_dcb(host, nic, want, plan)
    _plan_pause(host, netdev, want, plan)
    _plan_mtu(host, netdev, want, plan)
    _plan_traffic_class(host, netdev, device, want, plan)
    _plan_rdma_cm(host, netdev, device, want, plan)
    if want.dcqcn:
        _plan_dcqcn(host, netdev, want, plan)
    return plan


def rdma_devices_of(host: Host, netdev: str) -> list[str]:
    """The RDMA devices sysfs ties to a netdev (/sys/class/net/<netdev>/device/infiniband/<dev>)."""
    folder = host.net(netdev, "device", "infiniband")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def _missing_device_message(host: Host, device: str, netdev: str) -> str:
    found = rdma_devices_of(host, netdev)
    if found:
        # rdma-core's 60-rdma-persistent-naming.rules names devices rocep<bus>s<slot>f<fn>.
        return (
            f"NIC {device}: no RDMA device of that name ({host.ib(device)} is missing); netdev"
            f" {netdev}'s RDMA device is {', '.join(found)} (the distribution's udev naming): set"
            " gpunet_nics[].name to it, or keep kernel names with rdma-core's NAME_KERNEL udev policy"
        )
    return (
        f"NIC {device}: RDMA device not found ({host.ib(device)} is missing, and {netdev} has none in sysfs)"
    )


def _plan_mlnx_qos(host: Host, nic: dict[str, str], want: Desired, plan: NicPlan) -> None:
    netdev = nic["netdev"]
    shown = host.check(["mlnx_qos", "-i", netdev], f"{netdev} QoS")
    try:
        trust, pfc, dscp_priority = parse_mlnx_qos(shown)
    except ValueError as error:
        raise NicError(f"{netdev}: cannot read mlnx_qos output: {error}") from error
    ets = parse_mlnx_qos_ets(shown)
    if trust != "dscp":
        plan.steps.append(
            Step(netdev, "trust", trust, "dscp", argv=["mlnx_qos", "-i", netdev, "--trust", "dscp"])
        )
    for dscp, prio in sorted(want.dscp_priority.items()):
        if dscp_priority.get(dscp) != prio:
            argv = ["mlnx_qos", "-i", netdev, "--dscp2prio", f"set,{dscp},{prio}"]
            plan.steps.append(
                Step(netdev, f"dscp {dscp} priority", str(dscp_priority.get(dscp)), str(prio), argv)
            )
    vector = ",".join(map(str, want.pfc_vector))
    # mlnx_qos passes --cable_len to the kernel together with the PFC vector, and a --cable_len
    # without --pfc sends an all-off vector (mlnx-tools python/mlnx_qos: set_ieee_pfc(_pfc_en=pfc_en,
    # _delay=pfc_delay), pfc_en 0 unless --pfc), so the cable length always travels with --pfc.
    cable = _mlnx_cable_length(nic, want, ets, plan)
    cable_args = ["--cable_len", str(cable)] if cable is not None else []
    pfc_step = None
    if pfc != want.pfc_vector:
        argv = ["mlnx_qos", "-i", netdev, "--pfc", vector, *cable_args]
        pfc_step = Step(netdev, "pfc", ",".join(map(str, pfc)), vector, argv)
        plan.steps.append(pfc_step)
    if cable is not None and ets.cable_length_m != cable:
        argv = None if pfc_step else ["mlnx_qos", "-i", netdev, "--pfc", vector, *cable_args]
        plan.steps.append(Step(netdev, "cable_len", f"{ets.cable_length_m} m", f"{cable} m", argv))
    boot = ["mlnx_qos", "-i", netdev, "--trust", "dscp", "--pfc", vector, *cable_args]
    plan.boot_commands.append(shlex.join(boot))
    for dscp, prio in sorted(want.dscp_priority.items()):
        plan.boot_commands.append(shlex.join(["mlnx_qos", "-i", netdev, "--dscp2prio", f"set,{dscp},{prio}"]))
    # mlnx-tools python/mlnx_qos: --prio_tc, --tsa and --tcbw take 8 comma-separated values each and
    # go to the kernel in one set_ieee_ets; --tcbw is checked against the --tsa of the same call (else
    # the NIC's current TSA: mlx5's factory "vendor" refuses any bandwidth).
    argv = ["mlnx_qos", "-i", netdev]
    if want.prio_tc:
        argv += ["--prio_tc", ",".join(map(str, want.prio_tc))]
    if want.tc_tsa:
        argv += ["--tsa", ",".join(want.tc_tsa), "--tcbw", ",".join(map(str, want.tc_bw))]
    # mlnx_qos prints only the classes that hold a priority (without -a), so ETS is compared on
    # those; a class that holds none carries no traffic.
    _plan_ets(netdev, want, ets, plan, argv, compared=None)


def _mlnx_cable_length(nic: dict[str, str], want: Desired, ets: EtsState, plan: NicPlan) -> int | None:
    """The cable length to set on this NIC, or None (left alone, or NOT APPLIED with the reason)."""
    netdev = nic["netdev"]
    length = _wanted_cable_length(nic, want, plan)
    if length is None:
        return None
    if length > MLX5_MAX_CABLE_LENGTH_M:
        plan.not_applied.append(
            f"{netdev} cable length {length} m: mlx5 keeps only 1-{MLX5_MAX_CABLE_LENGTH_M} m and drops a"
            " longer one without an error (en_dcbnl.c, MLX5E_MAX_CABLE_LENGTH); the headroom stays at the"
            f" NIC's {ets.cable_length_m} m"
        )
        return None
    if not ets.cable_length_m:
        plan.not_applied.append(
            f"{netdev} cable length {length} m: mlnx_qos shows no cable length (Cable len:"
            f" {ets.cable_length_m}): the driver reports none where the NIC has no port buffer control;"
            " the firmware's headroom applies"
        )
        return None
    return length


def _wanted_cable_length(nic: dict[str, str], want: Desired, plan: NicPlan) -> int | None:
    """This NIC's cable length from cable_length_m; None where it is left alone or not known (NOT APPLIED)."""
    if want.cable_length_m is None:
        return None
    netdev = nic["netdev"]
    if netdev not in want.cable_length_m:
        leaf = (
            f" ({nic['switch']}:{nic['switch_port']})" if nic.get("switch") and nic.get("switch_port") else ""
        )
        plan.not_applied.append(
            f"{netdev} cable length: unknown, the inventory holds no cable length for its leaf port{leaf}"
            " (gpunet_ports[].cable_length_m or qos.pfc.cable_length_m); the NIC keeps its own"
        )
        return None
    return int(want.cable_length_m[netdev])


def _ets_text(tcs: dict[int, tuple[str, int]], classes: list[int]) -> str:
    def one(tc: int) -> str:
        if tc not in tcs:
            return f"{tc}:?"
        tsa, bw = tcs[tc]
        return f"{tc}:{tsa} {bw}%" if tsa == "ets" else f"{tc}:{tsa}"

    return ", ".join(one(tc) for tc in classes)


def _plan_ets(
    netdev: str, want: Desired, now: EtsState, plan: NicPlan, argv: list[str], compared: list[int] | None
) -> None:
    """One command sets the map and ETS; the steps say which of the two differs.

    `compared`: the traffic classes whose TSA and bandwidth are read back (None: those holding a priority).
    """
    if not want.prio_tc and not want.tc_tsa:
        return
    steps = []
    if want.prio_tc and now.prio_tc != want.prio_tc:
        before = ",".join("?" if tc is None else str(tc) for tc in now.prio_tc)
        steps.append(Step(netdev, "prio_tc", before, ",".join(map(str, want.prio_tc))))
    if want.tc_tsa:
        holding = want.prio_tc or [tc for tc in now.prio_tc if tc is not None]
        classes = compared if compared is not None else sorted(set(holding))
        wanted = {tc: (tsa, bw if tsa == "ets" else 0) for tc, (tsa, bw) in want.ets.items()}
        if any(now.tcs.get(tc) != wanted[tc] for tc in classes):
            steps.append(Step(netdev, "ets", _ets_text(now.tcs, classes), _ets_text(wanted, classes)))
    if steps:
        steps[0].argv = argv
        plan.steps.extend(steps)
    plan.boot_commands.append(shlex.join(argv))


def _plan_dcb(host: Host, nic: dict[str, str], want: Desired, plan: NicPlan) -> None:
    netdev = nic["netdev"]
    pfc = parse_dcb_pfc(host.check(["dcb", "pfc", "show", "dev", netdev, "prio-pfc"], f"{netdev} PFC"))
    shown = host.check(["dcb", "app", "show", "dev", netdev, "dscp-prio"], f"{netdev} DSCP map")
    try:
        dscp_priority = parse_dcb_dscp(shown, host_dscp_names())
    except ValueError as error:
        raise NicError(f"{netdev}: cannot read dcb output: {error}") from error
    pfc_args = [f"{p}:{'on' if on else 'off'}" for p, on in enumerate(want.pfc_vector)]
    if pfc != want.pfc_vector:
        argv = ["dcb", "pfc", "set", "dev", netdev, "prio-pfc", *pfc_args]
        plan.steps.append(
            Step(netdev, "pfc", ",".join(map(str, pfc)), ",".join(map(str, want.pfc_vector)), argv)
        )
    missing = {d: p for d, p in sorted(want.dscp_priority.items()) if dscp_priority.get(d) != p}
    map_args = [f"{d}:{p}" for d, p in missing.items()]
    if missing:
        # `replace` swaps a DSCP's old priority for the new one instead of adding a second entry.
        argv = ["dcb", "app", "replace", "dev", netdev, "dscp-prio", *map_args]
        before = " ".join(f"{d}:{dscp_priority.get(d)}" for d in missing)
        plan.steps.append(Step(netdev, "dscp map", before, " ".join(map_args), argv))
    all_map = [f"{d}:{p}" for d, p in sorted(want.dscp_priority.items())]
    delay = _plan_dcb_cable_length(host, nic, want, plan)
    delay_args = ["delay", str(delay)] if delay is not None else []
    boot_pfc = ["dcb", "pfc", "set", "dev", netdev, "prio-pfc", *pfc_args, *delay_args]
    plan.boot_commands.append(shlex.join(boot_pfc))
    plan.boot_commands.append(shlex.join(["dcb", "app", "replace", "dev", netdev, "dscp-prio", *all_map]))
    if want.prio_tc or want.tc_tsa:
        read = ["dcb", "ets", "show", "dev", netdev, "prio-tc", "tc-tsa", "tc-bw"]
        shown = host.check(read, f"{netdev} ETS")
        try:
            ets = parse_dcb_ets(shown)
        except ValueError as error:
            raise NicError(f"{netdev}: cannot read dcb output: {error}") from error
        # iproute2 dcb-ets(8): `dcb ets set dev X prio-tc P:TC... tc-tsa TC:TSA... tc-bw TC:BW...`. dcb
        # starts from the NIC's current ETS and refuses a result whose tc-bw do not total 100 (dcb_ets.c
        # dcb_ets_validate_bw): mlx5's factory state (8 vendor classes at 100 %) fails that, so the map and
        # ETS go in one command.
        argv = ["dcb", "ets", "set", "dev", netdev]
        if want.prio_tc:
            argv += ["prio-tc", *[f"{prio}:{tc}" for prio, tc in enumerate(want.prio_tc)]]
        if want.tc_tsa:
            argv += ["tc-tsa", *[f"{tc}:{tsa}" for tc, tsa in enumerate(want.tc_tsa)]]
            argv += ["tc-bw", *[f"{tc}:{bw}" for tc, bw in enumerate(want.tc_bw)]]
        _plan_ets(netdev, want, ets, plan, argv, compared=list(range(8)))


def _plan_dcb_cable_length(host: Host, nic: dict[str, str], want: Desired, plan: NicPlan) -> int | None:
    """mlx5 through dcb: the PFC `delay` field, which mlx5 reads as the cable length in metres.

    iproute2 dcb has no cable-length setting: `dcb pfc set ... delay N` fills struct ieee_pfc's delay,
    802.1Qaz's allowance in bit times (dcb/dcb_pfc.c), and `dcb buffer` sets buffer sizes, another knob.
    mlx5 alone takes that delay as metres of cable (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc: cable_len =
    pfc->delay; mlnx_qos --cable_len fills the same field), so only mlx5 gets it; others: NOT APPLIED.
    """
    netdev = nic["netdev"]
    length = _wanted_cable_length(nic, want, plan)
    if length is None:
        return None
    driver = host.driver(netdev)
    if driver != "mlx5_core":
        plan.not_applied.append(
            f"{netdev} cable length {length} m: iproute2 dcb has no cable-length setting (its pfc delay is"
            f" 802.1Qaz's delay allowance in bit times, which only mlx5 reads as metres; dcb buffer sets"
            f" buffer sizes, another knob); the {driver or 'unknown'} driver's own headroom applies"
        )
        return None
    read = ["dcb", "pfc", "show", "dev", netdev, "delay"]
    current = parse_dcb_delay(host.check(read, f"{netdev} PFC delay"))
    if length > MLX5_MAX_CABLE_LENGTH_M or not current:
        why = (
            f"mlx5 keeps only 1-{MLX5_MAX_CABLE_LENGTH_M} m (en_dcbnl.c, MLX5E_MAX_CABLE_LENGTH)"
            if length > MLX5_MAX_CABLE_LENGTH_M
            else f"the driver reports no cable length (delay {current}: no port buffer control)"
        )
        plan.not_applied.append(f"{netdev} cable length {length} m: {why}; the NIC's own headroom applies")
        return None
    if current != length:
        argv = ["dcb", "pfc", "set", "dev", netdev, "delay", str(length)]
        plan.steps.append(Step(netdev, "cable_len", f"{current} m", f"{length} m", argv))
    return length


def _plan_pause(host: Host, netdev: str, want: Desired, plan: NicPlan) -> None:
    state = "on" if want.global_pause else "off"
    pause = parse_pause(host.check(["ethtool", "-a", netdev], f"{netdev} pause"))
    wrong = [k for k in ("rx", "tx") if pause.get(k) != want.global_pause]
    if wrong:
        before = " ".join(f"{k} {'on' if pause.get(k) else 'off'}" for k in ("rx", "tx"))
        argv = ["ethtool", "-A", netdev, "rx", state, "tx", state]
        plan.steps.append(Step(netdev, "global pause", before, f"rx {state} tx {state}", argv))
    plan.boot_commands.append(shlex.join(["ethtool", "-A", netdev, "rx", state, "tx", state]) + " || true")


def _plan_mtu(host: Host, netdev: str, want: Desired, plan: NicPlan) -> None:
    if not want.mtu:
        return
    current = host.read(host.net(netdev, "mtu"))
    if current != str(want.mtu):
        argv = ["ip", "link", "set", "dev", netdev, "mtu", str(want.mtu)]
        plan.steps.append(Step(netdev, "mtu", str(current), str(want.mtu), argv))
    plan.boot_commands.append(shlex.join(["ip", "link", "set", "dev", netdev, "mtu", str(want.mtu)]))


def _plan_traffic_class(host: Host, netdev: str, device: str, want: Desired, plan: NicPlan) -> None:
    path = host.ib(device, "tc", str(want.rdma_port), "traffic_class")
    if not os.path.exists(path):
        plan.not_applied.append(
            f"{device} traffic_class {want.traffic_class}: the driver has no {path} (inbox mlx5); RDMA-CM's"
            " default_roce_tos and NCCL_IB_TC / perftest --tclass set the class per connection instead"
        )
        return
    current = parse_traffic_class(host.read(path))
    if current != want.traffic_class:
        step = Step(netdev, f"{device} traffic_class", str(current), str(want.traffic_class))
        step.write = (path, str(want.traffic_class))
        plan.steps.append(step)
    plan.boot_commands.append(f"echo {want.traffic_class} > {shlex.quote(path)}")


def _plan_rdma_cm(host: Host, netdev: str, device: str, want: Desired, plan: NicPlan) -> None:
    """RDMA-CM defaults live in configfs: mkdir rdma_cm/<dev>, then ports/<n>/default_roce_{tos,mode}."""
    root = os.path.join(host.configfs, "rdma_cm")
    if not os.path.isdir(root):
        raise NicError(f"NIC {device}: {root} is missing (load rdma_cm and mount configfs)")
    device_dir = host.rdma_cm(device)
    port_dir = host.rdma_cm(device, "ports", str(want.rdma_port))
    wanted = {"default_roce_tos": str(want.traffic_class)}
    if want.roce_v2:
        wanted["default_roce_mode"] = ROCE_V2
    first = True
    for name, value in wanted.items():
        current = host.read(os.path.join(port_dir, name))
        if current != value:
            step = Step(netdev, f"{device} rdma_cm {name}", str(current), value)
            step.mkdir = device_dir if first and not os.path.isdir(device_dir) else None
            step.write = (os.path.join(port_dir, name), value)
            plan.steps.append(step)
            first = False
    plan.boot_commands.append(f"mkdir -p {shlex.quote(device_dir)}")
    for name, value in wanted.items():
        plan.boot_commands.append(f"echo {shlex.quote(value)} > {shlex.quote(os.path.join(port_dir, name))}")


def _plan_dcqcn(host: Host, netdev: str, want: Desired, plan: NicPlan) -> None:
    ecn = host.net(netdev, "ecn")
    if not os.path.isdir(ecn):
        plan.not_applied.append(
            f"{netdev} DCQCN (priorities {sorted(want.lossless_priorities)}, CNP DSCP {want.cnp_dscp},"
            f" priority {want.cnp_priority}): the driver has no {ecn} (inbox mlx5 or not mlx5);"
            " the NIC firmware's defaults apply (set them with mlxconfig or MLNX_OFED/DOCA)"
        )
        return
    wanted: dict[str, str] = {}
    for prio in sorted(want.lossless_priorities):
        wanted[os.path.join(ecn, "roce_np", "enable", str(prio))] = "1"
        wanted[os.path.join(ecn, "roce_rp", "enable", str(prio))] = "1"
    wanted[os.path.join(ecn, "roce_np", "cnp_dscp")] = str(want.cnp_dscp)
    wanted[os.path.join(ecn, "roce_np", "cnp_802p_prio")] = str(want.cnp_priority)
    for path, value in wanted.items():
        current = host.read(path)
        if current != value:
            step = Step(netdev, "dcqcn " + os.path.relpath(path, ecn), str(current), value)
            step.write = (path, value)
            plan.steps.append(step)
        plan.boot_commands.append(f"echo {value} > {shlex.quote(path)}")


def apply_step(host: Host, step: Step) -> None:
    if step.mkdir:
        # configfs creates ports/<n>/ itself on mkdir of the device folder; exist_ok keeps that.
        os.makedirs(step.mkdir, exist_ok=True)
        if step.write:
            os.makedirs(os.path.dirname(step.write[0]), exist_ok=True)
    if step.argv:
        host.check(step.argv, f"{step.netdev} {step.setting}")
    if step.write:
        path, value = step.write
        try:
            with open(path, "w") as handle:
                handle.write(value + "\n")
        except OSError as error:
            raise NicError(
                f"{step.netdev} {step.setting}: cannot write {value} to {path}: {error}"
            ) from error


def configure(
    host: Host, nics: list[dict[str, str]], want: Desired, tool: str = "auto", check_mode: bool = False
) -> dict[str, object]:
    """Plan every NIC first (so a missing NIC fails before anything changes), then apply."""
    plans = [plan_nic(host, nic, want, tool) for nic in nics]
    if not check_mode:
        for plan in plans:
            for step in plan.steps:
                apply_step(host, step)
    changes = [step.describe() for plan in plans for step in plan.steps]
    return {
        "changed": bool(changes),
        "changes": changes,
        "tools": {plan.netdev: plan.tool for plan in plans},
        "warnings": [w for plan in plans for w in plan.warnings],
        "not_applied": [n for plan in plans for n in plan.not_applied],
        "boot_commands": [c for plan in plans for c in plan.boot_commands],
    }


def _lengths(value: dict[str, Any]) -> dict[str, Any]:
    """Templated metres may arrive as strings ("3"); anything else stays for ets_problems to name."""
    return {str(k): int(v) if isinstance(v, str) and v.isdigit() else v for k, v in value.items()}


def main() -> None:
    from ansible.module_utils.basic import AnsibleModule

    module = AnsibleModule(
        argument_spec={
            "nics": {"type": "list", "elements": "dict", "required": True},
            "lossless_priorities": {"type": "list", "elements": "int", "default": [3]},
            "dscp_priority": {"type": "dict", "default": {"26": 3, "48": 6}},
            "traffic_class": {"type": "int", "default": 106},
            "cnp_dscp": {"type": "int", "default": 48},
            "cnp_priority": {"type": "int", "default": 6},
            "dcqcn": {"type": "bool", "default": True},
            "roce_v2": {"type": "bool", "default": True},
            "mtu": {"type": "int", "default": 0},
            "global_pause": {"type": "bool", "default": False},
            "prio_tc": {"type": "list", "elements": "int", "default": []},
            "tc_tsa": {"type": "list", "elements": "str", "default": []},
            "tc_bw": {"type": "list", "elements": "int", "default": []},
            "cable_length_m": {"type": "dict"},
            "tool": {"type": "str", "choices": ["auto", "mlnx_qos", "dcb"], "default": "auto"},
            "rdma_port": {"type": "int", "default": 1},
            "sysfs_root": {"type": "path", "default": "/sys"},
            "configfs_root": {"type": "path", "default": "/sys/kernel/config"},
        },
        supports_check_mode=True,
    )
    p = module.params
    for index, nic in enumerate(p["nics"]):
        if not nic.get("name") or not nic.get("netdev"):
            module.fail_json(msg=f"nics[{index}] needs 'name' (RDMA device) and 'netdev': got {nic}")
    want = Desired(
        lossless_priorities=frozenset(p["lossless_priorities"]),
        dscp_priority={int(k): int(v) for k, v in p["dscp_priority"].items()},
        traffic_class=p["traffic_class"],
        cnp_dscp=p["cnp_dscp"],
        cnp_priority=p["cnp_priority"],
        dcqcn=p["dcqcn"],
        roce_v2=p["roce_v2"],
        mtu=p["mtu"],
        global_pause=p["global_pause"],
        rdma_port=p["rdma_port"],
        prio_tc=p["prio_tc"],
        tc_tsa=p["tc_tsa"],
        tc_bw=p["tc_bw"],
        cable_length_m=None if p["cable_length_m"] is None else _lengths(p["cable_length_m"]),
    )
    problems = ets_problems(want)
    if problems:
        module.fail_json(msg="; ".join(problems))
    host = Host(p["sysfs_root"], p["configfs_root"])
    try:
        result = configure(host, p["nics"], want, p["tool"], module.check_mode)
    except NicError as error:
        module.fail_json(msg=str(error))
    diff = {"before": "", "after": ""}
    for line in result["changes"]:
        setting, values = line.rsplit(": ", 1) if ": " in line else ("", line)
        before, after = values.split(" -> ", 1) if " -> " in values else (values, "")
        diff["before"] += f"{setting}: {before}\n"
        diff["after"] += f"{setting}: {after}\n"
    for warning in result.pop("warnings"):
        module.warn(warning)
    for missing in result["not_applied"]:
        module.warn(f"NOT APPLIED: {missing}")
    module.exit_json(diff=diff, **result)


if __name__ == "__main__":
    main()
