"""Typed view of a validated inventory. Everything downstream (design, roles, checks) reads this.

Values here are already merged with the RoCE defaults and have passed the schema and the
cross-checks; code that consumes a Fabric does not re-validate it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from ipaddress import IPv4Interface, IPv6Interface
from typing import Any


@dataclass(frozen=True)
class Ecn:
    min_threshold_kb: int
    max_threshold_kb: int
    max_mark_probability: int  # percent, 1..100


@dataclass(frozen=True)
class Pfc:
    watchdog: bool
    watchdog_detect_ms: int
    watchdog_restore_ms: int
    cable_length_m: int  # default cable length for ports that do not set their own


@dataclass(frozen=True)
class Queue:
    name: str
    traffic_class: int
    bandwidth_percent: int | None  # None for a strict-priority queue
    strict: bool


@dataclass(frozen=True)
class Qos:
    trust: str
    roce_dscp: int
    cnp_dscp: int
    lossless_priority: int
    cnp_priority: int
    ecn: Ecn
    pfc: Pfc
    queues: tuple[Queue, ...]

    @property
    def roce_traffic_class_byte(self) -> int:
        """The IP TOS byte hosts put on RoCE packets: DSCP << 2 | ECT(0)."""
        return self.roce_dscp << 2 | 0b10


@dataclass(frozen=True)
class Ntp:
    servers: tuple[str, ...]
    max_offset_ms: float


@dataclass(frozen=True)
class Firewall:
    fabric_cidrs: tuple[str, ...]
    mgmt_cidrs: tuple[str, ...]
    nccl_port_range: tuple[int, int]
    # Networks NCCL's bootstrap (NCCL_SOCKET_IFNAME) runs on; empty means mgmt_cidrs.
    nccl_socket_cidrs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)  # millions at 262,144 GPUs: no __dict__ each
class Peer:
    """The far end of a cable: a GPU host NIC or another switch's port."""

    kind: str  # "host" or "switch"
    device: str
    port: str

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"


@dataclass(frozen=True, slots=True)  # millions at 262,144 GPUs: no __dict__ each
class SwitchPort:
    name: str
    speed_gbps: int
    peer: Peer | None
    cable_length_m: int  # resolved: the port's own value or the fabric default
    mtu: int  # resolved: the port's own value or the fabric MTU
    lossless: bool  # carries RoCE traffic: PFC and ECN apply
    lanes: int | None = None  # SerDes lanes; None: the fewest the model's SerDes carries the speed on


@dataclass(frozen=True)
class SwitchBuffer:
    """Operator overrides of the per-platform buffer numbers that PFC headroom and ECN fill levels
    need but the cabling cannot give (see docs/switch-rendering.md). None: the platform default."""

    cell_bytes: int | None = None
    mac_phy_delay_bytes: int | None = None
    small_packet_percent: int | None = None
    queue_buffer_bytes: int | None = None


@dataclass(frozen=True)
class Switch:
    name: str
    platform: str
    role: str  # leaf, spine or superspine
    mgmt_address: str
    mgmt_port: int
    ports: tuple[SwitchPort, ...]
    mgmt_user: str = ""  # ansible_user: the SSH login for pushes and show commands
    model: str = ""  # gpunet_switch_model: the hardware model (gpunet.hardware)
    buffer: SwitchBuffer = field(default_factory=SwitchBuffer)
    # gpunet_os_version: the release the switch runs ("" when not given: statements are not version-checked)
    os_version: str = ""
    # gpunet_switch_asics: the ASICs of a multi-ASIC SONiC switch (NUM_ASIC of its platform's
    # asic.conf); each has its own namespace asic0..asic<N-1>, whose state the verify stage reads.
    # 0 when not given (one ASIC), so that the key given on another platform can be refused
    asics: int = 0

    def port(self, name: str) -> SwitchPort | None:
        return self._ports_by_name.get(name)

    @cached_property
    def _ports_by_name(self) -> dict[str, SwitchPort]:
        return {p.name: p for p in self.ports}


@dataclass(frozen=True, slots=True)  # millions at 262,144 GPUs: no __dict__ each
class Nic:
    name: str  # RDMA device, e.g. mlx5_0
    netdev: str  # kernel interface, e.g. ens1f0np0
    speed_gbps: int
    rail: int
    switch: str
    switch_port: str
    ip: IPv4Interface | IPv6Interface
    lanes: int | None = None  # electrical lanes of the NIC's port, where the inventory states them


@dataclass(frozen=True)
class Gpus:
    count: int
    model: str


@dataclass(frozen=True)
class Hardware:
    """What the machine really has. A lab or container host says False, and stages and
    checks that need the hardware report "skipped" with `reason` instead of failing."""

    gpus: bool = True
    rdma_nics: bool = True
    reason: str = ""
    # LAB only (gpunet lab): the incast stage runs against the lab's SIMULATION although rdma_nics
    # is false (gpunet.lab.traffic_folder); every other RDMA stage and check still skips.
    simulated_incast: bool = False


@dataclass(frozen=True)
class GpuHost:
    name: str
    mgmt_address: str
    gpus: Gpus
    nics: tuple[Nic, ...]
    hardware: Hardware = field(default_factory=Hardware)
    # The roce_host knobs the inventory sets for this host (build.VERIFIED_ROLE_KNOBS), converted;
    # a knob left out has roce_host's default. The verify side expects on each NIC what they set.
    roce_host_knobs: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Fabric:
    name: str
    transport: str  # roce or infiniband
    mtu: int  # switch ports
    host_mtu: int
    qos: Qos
    ntp: Ntp
    firewall: Firewall
    switches: dict[str, Switch]
    hosts: dict[str, GpuHost]

    @property
    def platforms(self) -> list[str]:
        return sorted({s.platform for s in self.switches.values()})

    def switches_in_role(self, role: str) -> list[Switch]:
        return [s for s in self.switches.values() if s.role == role]

    def summary(self) -> str:
        nics = sum(len(h.nics) for h in self.hosts.values())
        return (
            f"fabric {self.name}: {len(self.hosts)} GPU hosts, {len(self.switches)} switches, "
            f"{nics} NICs, platforms: {', '.join(self.platforms) or 'none'}"
        )
