"""The incast stage's plan: per rail, k senders write to one receiver at once in the lossless class,
so the receiver's leaf port is oversubscribed and the fabric must mark (ECN), pause (PFC) and drop
nothing. A pure function of the fabric and the catalog's thresholds; the verify role only runs
what it returns, and the incast checks (checks/incast.py) read the same plan from the artifacts.

perftest flags (linux-rdma/perftest at 00b55b6, src/perftest_parameters.c usage text and
getopt table): `--tclass=<value>` sets the GRH traffic class of verbs QPs (`-T/--tos` applies only
to RDMA-CM QPs, `-R`, so it is not used); `-q` QPs per test (default 1, at most 16384), `-D`
seconds (SYMMETRIC: both ends must agree), `-p` the out-of-band TCP port (default 18515): the
receiver runs one `ib_write_bw` server per sender, each on its own port.

Why the default sender count oversubscribes by 2x: the receiver's leaf port drains at its line
rate, and the senders offer the sum of theirs. At 2x a 400G port's queue grows by 50 KB a
microsecond, past the fabric's ECN minimum threshold (150 KB by default) within a few
microseconds, before the first CNP can reach a sender; after DCQCN's first rate cut the offered
load still meets the port's rate, so the queue stays near the marking range for the whole run.
perftest's measured rate is about 90% of line rate at best (the pair tests' floor), so 2x line
rate is still 1.8x of what the senders really offer. k = the fewest senders whose line rates sum
to `incast_oversubscription` (2.0) times the receiver's: 2 for 400G or 800G senders into a port
of their own speed, 4 for 400G senders into an 800G port.

The second pattern, nccl-tests `alltoall_perf` across the rail's hosts (the receiver and its
senders, one rank each on the rail's NIC, NCCL_IB_TC the lossless class): NCCL's own traffic (its
QPs, its chunking) in the same class, between the same counter reads, so the switch-side checks
judge both patterns' sum. An alltoall loads every port about equally (each rank sends to and
receives from all others at once), so it congests where flows collide (ECMP on the uplinks, the
spines) rather than by a k:1 oversubscription; its own evidence is its busbw, which for
alltoall is what each rank moved to the others per second (NVIDIA/nccl-tests src/alltoall.cu
AlltoAllGetBw: busbw = algbw x (n-1)/n), so with one rank per host it is the rail NIC's
throughput. One fixed message size (-b = -e, `incast_alltoall_bytes`), as many iterations as
fill `incast_seconds` at the slowest NIC's line rate.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from gpunet.model.fabric import Fabric, GpuHost, Nic
from gpunet.validate.collect_plan import PERFTEST_BASE_PORT
from gpunet.validate.manifest import PATH_PART
from gpunet.validate.thresholds import Thresholds

INCAST = "incast"
PLAN_FILE = "incast/plan.json"
# The switch counter phases around the stage: switches/<switch>/<phase>/<tool>.txt, and the NIC
# counters hosts/<host>/rdma-hw-counters.<phase>.txt.
BEFORE = "incast-before"
AFTER = "incast-after"
# ib_write_bw options besides -d, -p, -D, -q and --tclass: Gb/s units, 64 KiB messages (as the pair tests).
BW_ARGS = ("--report_gbits", "-F", "-s", "65536")
DEFAULT_QPS = 4
ALLTOALL = "alltoall_perf"
ALLTOALL_WARMUP = 5  # nccl-tests -w: iterations before the timed ones
DEFAULT_ALLTOALL_BYTES = 1 << 30


@dataclass(frozen=True)
class Alltoall:
    """The rail's nccl-tests alltoall_perf run: one rank on each host's rail NIC."""

    hosts: tuple[str, ...]  # the receiver first, then the senders
    nics: tuple[str, ...]  # each host's rail NIC, in the order of `hosts`
    gbps: int  # the slowest of those NICs' line rates
    bytes: int  # nccl-tests -b and -e
    iters: int  # nccl-tests -n

    @property
    def launcher(self) -> str:
        """The host that starts the multi-node run (the nccl stage's launcher takes the first by name)."""
        return min(self.hosts)

    def args(self) -> list[str]:
        size = str(self.bytes)
        return ["-b", size, "-e", size, "-n", str(self.iters), "-w", str(ALLTOALL_WARMUP)]

    def env(self, traffic_class: int | None) -> dict[str, str]:
        """NCCL settings every rank gets: the lossless class, and the rail's NIC by its exact name
        (`=` prefix) where every host names it alike; otherwise each host's nccl.conf picks."""
        env = {} if traffic_class is None else {"NCCL_IB_TC": str(traffic_class)}
        if len(set(self.nics)) == 1:
            env["NCCL_IB_HCA"] = f"={self.nics[0]}"
        return env


def alltoall_iters(seconds: float, gbps: int, size: int, ranks: int) -> int:
    """Iterations whose transfer at `gbps` lasts `seconds`: each rank sends (n-1)/n of `size` a pass."""
    per_pass = size * (ranks - 1) / ranks * 8 / (gbps * 1e9)
    return max(1, math.ceil(seconds / per_pass - 1e-9))


@dataclass(frozen=True)
class PathPort:
    """A switch port the incast traffic crosses; `role` says where (what its counters prove)."""

    switch: str
    port: str
    role: str  # receiver-edge, sender-edge, sender-uplink, receiver-uplink, spine-downlink

    @property
    def target(self) -> str:
        return f"{self.switch}:{self.port}"


@dataclass(frozen=True)
class Sender:
    host: str
    nic: str
    gbps: int
    port: int  # the perftest TCP port of its server on the receiver

    @property
    def target(self) -> str:
        return f"{self.host}:{self.nic}"


@dataclass(frozen=True)
class RailIncast:
    rail: int
    receiver: str
    receiver_nic: str
    receiver_ip: str
    receiver_gbps: int
    senders: tuple[Sender, ...]
    path: tuple[PathPort, ...]  # the receiver-edge port first
    seconds: int
    qps: int
    traffic_class: int | None  # None: no --tclass (InfiniBand)
    alltoall: Alltoall | None = None  # the second pattern (None: a plan written before it)

    @property
    def oversubscription(self) -> float:
        return sum(s.gbps for s in self.senders) / self.receiver_gbps

    @property
    def receiver_port(self) -> PathPort:
        return self.path[0]

    @property
    def receiver_target(self) -> str:
        return f"{self.receiver}:{self.receiver_nic}"

    def capture(self, sender: Sender) -> str:
        """The artifact file of one sender's ib_write_bw client output."""
        return f"incast/{self.rail}/{sender.host}__{self.receiver}__{sender.nic}.ib_write_bw.txt"

    @property
    def alltoall_capture(self) -> str:
        """The artifact file of the rail's alltoall_perf output."""
        return f"incast/{self.rail}/{ALLTOALL}.txt"

    @property
    def alltoall_skipped(self) -> str:
        """The file the stage writes instead where it did not run the alltoall (its reason)."""
        return f"incast/{self.rail}/{ALLTOALL}.skipped.txt"

    def server_argv(self, sender: Sender) -> list[str]:
        return ["ib_write_bw", "-d", self.receiver_nic, *self._common(sender)]

    def client_argv(self, sender: Sender) -> list[str]:
        return ["ib_write_bw", "-d", sender.nic, *self._common(sender), self.receiver_ip]

    def _common(self, sender: Sender) -> list[str]:
        tclass = [] if self.traffic_class is None else [f"--tclass={self.traffic_class}"]
        return ["-p", str(sender.port), "-q", str(self.qps), "-D", str(self.seconds), *BW_ARGS, *tclass]


def senders_needed(receiver_gbps: int, sender_gbps: int, oversubscription: float) -> int:
    """The fewest senders of `sender_gbps` whose sum is at least `oversubscription` x the receiver's."""
    return max(2, math.ceil(oversubscription * receiver_gbps / sender_gbps - 1e-9))


def incast_plan(
    fabric: Fabric,
    senders: int | None = None,
    seconds: int = 10,
    oversubscription: float = 2.0,
    qps: int = DEFAULT_QPS,
    base_port: int = PERFTEST_BASE_PORT,
    alltoall_bytes: int = DEFAULT_ALLTOALL_BYTES,
) -> list[RailIncast]:
    """One incast per rail. The receiver of rail r is the r-th host (name order, wrapping), so
    the rails' receivers are spread over the hosts; its senders are the hosts after it. `senders`
    None: senders_needed(...) for the rail's speeds; fewer hosts than that give a plan with what
    there is (its `oversubscription` says so, and the checks refuse to judge an incast that
    cannot congest). Rails run at once: a host receiving on several rails serves each sender on
    its own port, counted from `base_port`."""
    by_rail: dict[int, list[tuple[GpuHost, Nic]]] = {}
    for host in sorted(fabric.hosts.values(), key=lambda h: h.name):
        for nic in host.nics:
            by_rail.setdefault(nic.rail, []).append((host, nic))
    tclass = fabric.qos.roce_traffic_class_byte if fabric.transport == "roce" else None
    next_port: dict[str, int] = {}
    plan = []
    for rail, members in sorted(by_rail.items()):
        if len(members) < 2:
            continue
        first = rail % len(members)
        receiver, receiver_nic = members[first]
        others = members[first + 1 :] + members[:first]
        wanted = senders or senders_needed(
            receiver_nic.speed_gbps, min(n.speed_gbps for _, n in others), oversubscription
        )
        chosen = []
        for host, nic in others[:wanted]:
            port = next_port.get(receiver.name, base_port)
            next_port[receiver.name] = port + 1
            chosen.append(Sender(host.name, nic.name, nic.speed_gbps, port))
        sender_nics = [nic for _, nic in others[:wanted]]
        slowest = min(n.speed_gbps for n in [receiver_nic, *sender_nics])
        alltoall = Alltoall(
            hosts=(receiver.name, *(s.host for s in chosen)),
            nics=(receiver_nic.name, *(s.nic for s in chosen)),
            gbps=slowest,
            bytes=alltoall_bytes,
            iters=alltoall_iters(seconds, slowest, alltoall_bytes, len(chosen) + 1),
        )
        plan.append(
            RailIncast(
                rail=rail,
                receiver=receiver.name,
                receiver_nic=receiver_nic.name,
                receiver_ip=str(receiver_nic.ip.ip),
                receiver_gbps=receiver_nic.speed_gbps,
                senders=tuple(chosen),
                path=path_ports(fabric, receiver_nic, sender_nics),
                seconds=seconds,
                qps=qps,
                traffic_class=tclass,
                alltoall=alltoall,
            )
        )
    return plan


def plan_for(fabric: Fabric, thresholds: Thresholds) -> list[RailIncast]:
    """The plan with the catalog's incast thresholds (what the stage runs and the checks read)."""
    wanted = thresholds.incast_senders
    if wanted is not None and wanted != int(wanted):
        raise ValueError(f"incast_senders: expected a whole number of senders, got {wanted:g}")
    senders = int(wanted) if wanted else None
    return incast_plan(
        fabric,
        senders,
        int(thresholds.incast_seconds),
        thresholds.incast_oversubscription,
        alltoall_bytes=int(thresholds.incast_alltoall_bytes),
    )


def path_ports(fabric: Fabric, receiver: Nic, senders: list[Nic]) -> tuple[PathPort, ...]:
    """The switch ports between the senders and the receiver, from the inventory's cabling. ECMP
    picks one uplink and spine per flow, so every uplink of a leaf the traffic leaves or enters
    by is on the path, and every spine port down to the receiver's leaf."""
    leaf = receiver.switch
    ports = [PathPort(leaf, receiver.switch_port, "receiver-edge")]
    ports += [PathPort(nic.switch, nic.switch_port, "sender-edge") for nic in senders]
    remote_leaves = sorted({nic.switch for nic in senders if nic.switch != leaf})
    if remote_leaves:
        ports += [PathPort(leaf, port, "receiver-uplink") for port in _uplinks(fabric, leaf)]
        for remote in remote_leaves:
            ports += [PathPort(remote, port, "sender-uplink") for port in _uplinks(fabric, remote)]
        for spine in sorted(fabric.switches.values(), key=lambda s: s.name):
            ports += [
                PathPort(spine.name, p.name, "spine-downlink")
                for p in spine.ports
                if p.peer is not None and p.peer.kind == "switch" and p.peer.device == leaf
            ]
    seen: set[tuple[str, str]] = set()
    unique = []
    for port in ports:  # two senders on one leaf port cannot be; a cabling loop is not ours to judge
        if (port.switch, port.port) not in seen:
            seen.add((port.switch, port.port))
            unique.append(port)
    return tuple(unique)


def _uplinks(fabric: Fabric, leaf: str) -> list[str]:
    switch = fabric.switches.get(leaf)
    if switch is None:
        return []
    return [p.name for p in switch.ports if p.peer is not None and p.peer.kind == "switch"]


def plan_document(plan: list[RailIncast]) -> dict[str, Any]:
    """The plan as incast/plan.json holds it."""
    return {"version": 1, "rails": [asdict(rail) for rail in plan]}


def plan_text(fabric: Fabric, thresholds: Thresholds, limit: set[str] | None = None) -> str:
    """incast/plan.json's text for a collection. With a limit, the plan is made of the limited
    hosts only (a sender outside it would not run). ValueError: the catalog's thresholds do not
    make a plan (computed before anything is written)."""
    if limit is not None:
        fabric = replace(fabric, hosts={name: h for name, h in fabric.hosts.items() if name in limit})
    return json.dumps(plan_document(plan_for(fabric, thresholds)), indent=2) + "\n"


def write_plan(folder: Path, text: str) -> Path:
    path = folder / PLAN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class PlanError(ValueError):
    """incast/plan.json is not a plan this version reads."""


def plan_from_document(document: Any) -> list[RailIncast]:
    if not isinstance(document, dict) or document.get("version") != 1:
        raise PlanError("expected an object with version 1")
    rails = document.get("rails")
    if not isinstance(rails, list):
        raise PlanError("rails: expected a list")
    plan = []
    for index, rail in enumerate(rails):
        try:
            plan.append(
                RailIncast(
                    **{
                        **rail,
                        "senders": tuple(Sender(**s) for s in rail["senders"]),
                        "path": tuple(PathPort(**p) for p in rail["path"]),
                        "alltoall": _alltoall(rail.get("alltoall")),
                    }
                )
            )
        except (TypeError, KeyError) as error:
            raise PlanError(f"rails[{index}]: {error}") from None
        found = plan[-1]
        numbers = [found.rail, found.receiver_gbps, found.seconds, found.qps]
        numbers += [n for s in found.senders for n in (s.gbps, s.port)]
        if found.alltoall is not None:
            numbers += [found.alltoall.gbps, found.alltoall.bytes, found.alltoall.iters]
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise PlanError(f"rails[{index}]: rail, line rates, seconds, QPs, ports, sizes must be integers")
        if not found.path or not found.senders or found.receiver_gbps <= 0:
            raise PlanError(f"rails[{index}]: no senders, no path or no receiver line rate")
        # Capture paths are built from these names: each must stay one path part.
        names = [found.receiver, found.receiver_nic] + [n for s in found.senders for n in (s.host, s.nic)]
        if found.alltoall is not None:
            names += [*found.alltoall.hosts, *found.alltoall.nics]
        unsafe = next((n for n in names if not isinstance(n, str) or not PATH_PART.fullmatch(n)), None)
        if unsafe is not None:
            raise PlanError(f"rails[{index}]: {unsafe!r} is not a safe host or NIC name")
    return plan


def _alltoall(document: Any) -> Alltoall | None:
    if document is None:
        return None
    if not isinstance(document, dict):
        raise TypeError("alltoall: expected an object")
    if not all(isinstance(document.get(key), list | tuple) for key in ("hosts", "nics")):
        raise TypeError("alltoall: hosts and nics must be lists")
    found = Alltoall(**{**document, "hosts": tuple(document["hosts"]), "nics": tuple(document["nics"])})
    if len(found.hosts) != len(found.nics) or len(found.hosts) < 2:
        raise TypeError("alltoall: expected one NIC per host, at least two hosts")
    return found
