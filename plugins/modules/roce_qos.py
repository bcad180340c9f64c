#!/usr/bin/python
"""gpunet.fabric.roce_qos: bring RDMA NICs to the fabric's lossless RoCEv2 settings, only what differs."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: roce_qos
short_description: Set DSCP trust, PFC, RoCE traffic class, RDMA-CM ToS/mode, DCQCN, MTU, pause on RDMA NICs
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

Runner = Callable[[list[str]], tuple[int, str, str]]

ROCE_V2 = "RoCE v2"


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

    @property
    def pfc_vector(self) -> list[int]:
        return [1 if p in self.lossless_priorities else 0 for p in range(8)]


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
        _plan_mlnx_qos(host, netdev, want, plan)
    else:
        _plan_dcb(host, netdev, want, plan)
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


def _plan_mlnx_qos(host: Host, netdev: str, want: Desired, plan: NicPlan) -> None:
    try:
        trust, pfc, dscp_priority = parse_mlnx_qos(host.check(["mlnx_qos", "-i", netdev], f"{netdev} QoS"))
    except ValueError as error:
        raise NicError(f"{netdev}: cannot read mlnx_qos output: {error}") from error
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
    if pfc != want.pfc_vector:
        argv = ["mlnx_qos", "-i", netdev, "--pfc", vector]
        plan.steps.append(Step(netdev, "pfc", ",".join(map(str, pfc)), vector, argv))
    plan.boot_commands.append(shlex.join(["mlnx_qos", "-i", netdev, "--trust", "dscp", "--pfc", vector]))
    for dscp, prio in sorted(want.dscp_priority.items()):
        plan.boot_commands.append(shlex.join(["mlnx_qos", "-i", netdev, "--dscp2prio", f"set,{dscp},{prio}"]))


def _plan_dcb(host: Host, netdev: str, want: Desired, plan: NicPlan) -> None:
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
    plan.boot_commands.append(shlex.join(["dcb", "pfc", "set", "dev", netdev, "prio-pfc", *pfc_args]))
    plan.boot_commands.append(shlex.join(["dcb", "app", "replace", "dev", netdev, "dscp-prio", *all_map]))


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
    )
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
