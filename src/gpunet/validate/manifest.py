"""`<artifacts>/manifest.json`: what the inventory expects, written before collection.

Judging reads only the artifacts folder, so `gpunet-validate --from-artifacts` needs no inventory
and gives the same verdicts on any machine later.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpunet.model.fabric import Fabric, GpuHost
from gpunet.validate.pairs import RING, ring_rounds, schedule
from gpunet.validate.thresholds import Thresholds, gpu_link_gbps, nccl_busbw_bound_gbytes

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
ALL_NODES_RUN = "all-nodes"


@dataclass(frozen=True)
class NicExpectation:
    name: str
    netdev: str
    speed_gbps: int
    rail: int
    switch: str
    switch_port: str
    address: str = ""  # the NIC's fabric address (inventory `ip`, no prefix); "" in older manifests


@dataclass(frozen=True)
class HostExpectation:
    name: str
    gpus: int
    gpu_model: str
    has_gpus: bool
    has_rdma_nics: bool
    hardware_reason: str
    nics: list[NicExpectation]

    def nic(self, name: str) -> NicExpectation | None:
        return next((nic for nic in self.nics if nic.name == name), None)


@dataclass(frozen=True)
class NcclRun:
    name: str
    hosts: list[str]
    gpus_per_node: int
    bound_busbw_gbs: float  # planner bound, GB/s


@dataclass(frozen=True)
class SwitchExpectation:
    name: str
    platform: str
    lossless_ports: list[str]


@dataclass(frozen=True)
class Manifest:
    fabric: str
    transport: str
    trust: str
    roce_dscp: int
    lossless_priority: int
    traffic_class: int
    ecn_min_threshold_kb: int
    ecn_max_threshold_kb: int
    ntp_max_offset_ms: float
    roce_port: int
    nccl_port_range: tuple[int, int]
    hosts: dict[str, HostExpectation]
    switches: dict[str, SwitchExpectation]
    pair_mode: str
    pair_rounds: list[list[dict[str, Any]]]
    nccl_runs: dict[str, NcclRun]
    iperf3_pairs: list[tuple[str, str]]
    thresholds: Thresholds = field(default_factory=Thresholds)

    def as_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["version"] = MANIFEST_VERSION
        return document

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / MANIFEST
        path.write_text(json.dumps(self.as_dict(), indent=2) + "\n")
        return path


def record_collection(folder: Path, playbook_rc: int) -> None:
    """Add what was collected (every raw output file) and the playbook's exit status to the manifest."""
    path = folder / MANIFEST
    document = json.loads(path.read_text())
    files = sorted(
        str(file.relative_to(folder))
        for file in folder.rglob("*.txt")
        if not file.relative_to(folder).parts[0].startswith(".")
    )
    document["collected"] = {"playbook_rc": playbook_rc, "files": files}
    path.write_text(json.dumps(document, indent=2) + "\n")


class ManifestError(ValueError):
    """The artifacts folder has no readable manifest."""


def build_manifest(
    fabric: Fabric, thresholds: Thresholds | None = None, pair_mode: str = RING, limit: set[str] | None = None
) -> Manifest:
    thresholds = thresholds or Thresholds()
    hosts = {name: host for name, host in sorted(fabric.hosts.items()) if limit is None or name in limit}
    hosts_by_rail: dict[int, list[str]] = {}
    for host in hosts.values():
        for nic in host.nics:
            hosts_by_rail.setdefault(nic.rail, []).append(host.name)
    rounds = [[asdict(pair) for pair in round_] for round_ in schedule(hosts_by_rail, pair_mode)]
    return Manifest(
        fabric=fabric.name,
        transport=fabric.transport,
        trust=fabric.qos.trust,
        roce_dscp=fabric.qos.roce_dscp,
        lossless_priority=fabric.qos.lossless_priority,
        traffic_class=fabric.qos.roce_traffic_class_byte,
        ecn_min_threshold_kb=fabric.qos.ecn.min_threshold_kb,
        ecn_max_threshold_kb=fabric.qos.ecn.max_threshold_kb,
        ntp_max_offset_ms=fabric.ntp.max_offset_ms,
        roce_port=4791,
        nccl_port_range=fabric.firewall.nccl_port_range,
        hosts={name: _host_expectation(host) for name, host in hosts.items()},
        switches={
            name: SwitchExpectation(name, switch.platform, [p.name for p in switch.ports if p.lossless])
            for name, switch in sorted(fabric.switches.items())
        },
        pair_mode=pair_mode,
        pair_rounds=rounds,
        nccl_runs=_nccl_runs(list(hosts.values()), thresholds),
        # The host network has no rails: one ring over all hosts.
        iperf3_pairs=[pair for round_ in ring_rounds(list(hosts)) for pair in round_],
        thresholds=thresholds,
    )


def _host_expectation(host: GpuHost) -> HostExpectation:
    return HostExpectation(
        name=host.name,
        gpus=host.gpus.count,
        gpu_model=host.gpus.model,
        has_gpus=host.hardware.gpus,
        has_rdma_nics=host.hardware.rdma_nics,
        hardware_reason=host.hardware.reason,
        nics=[
            NicExpectation(n.name, n.netdev, n.speed_gbps, n.rail, n.switch, n.switch_port, str(n.ip.ip))
            for n in host.nics
        ],
    )


def _nccl_runs(hosts: list[GpuHost], thresholds: Thresholds) -> dict[str, NcclRun]:
    """One single-node run per host and one run over all hosts."""
    runs: dict[str, NcclRun] = {}
    groups = [(f"single-{host.name}", [host]) for host in hosts]
    if len(hosts) > 1:
        groups.append((ALL_NODES_RUN, hosts))
    for name, members in groups:
        if any(host.gpus.count == 0 for host in members):
            continue
        gpus = min(host.gpus.count for host in members)
        nics = min(len(host.nics) for host in members) or 1
        nic_gbps = min((nic.speed_gbps for host in members for nic in host.nics), default=0) or 1
        intra = thresholds.intra_node_gbps or min(gpu_link_gbps(host.gpus.model) for host in members)
        bound = nccl_busbw_bound_gbytes(len(members), gpus, nic_gbps, nics, intra)
        runs[name] = NcclRun(name, [host.name for host in members], gpus, round(bound, 3))
    return runs


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: not found (is {folder} an artifacts folder?)") from None
    except json.JSONDecodeError as error:
        raise ManifestError(f"{path}: not JSON: {error.msg} at line {error.lineno}") from None
    try:
        return _manifest_from_dict(document)
    except (KeyError, TypeError, ValueError) as error:
        raise ManifestError(f"{path}: missing or malformed field: {error}") from None


def _manifest_from_dict(document: dict[str, Any]) -> Manifest:
    if document.get("version") != MANIFEST_VERSION:
        raise ValueError(f"version {document.get('version')!r}, expected {MANIFEST_VERSION}")
    hosts = {
        name: HostExpectation(**{**host, "nics": [NicExpectation(**nic) for nic in host["nics"]]})
        for name, host in document["hosts"].items()
    }
    return Manifest(
        fabric=document["fabric"],
        transport=document["transport"],
        trust=document["trust"],
        roce_dscp=document["roce_dscp"],
        lossless_priority=document["lossless_priority"],
        traffic_class=document["traffic_class"],
        ecn_min_threshold_kb=document["ecn_min_threshold_kb"],
        ecn_max_threshold_kb=document["ecn_max_threshold_kb"],
        ntp_max_offset_ms=document["ntp_max_offset_ms"],
        roce_port=document["roce_port"],
        nccl_port_range=tuple(document["nccl_port_range"]),
        hosts=hosts,
        switches={name: SwitchExpectation(**s) for name, s in document["switches"].items()},
        pair_mode=document["pair_mode"],
        pair_rounds=document["pair_rounds"],
        nccl_runs={name: NcclRun(**run) for name, run in document["nccl_runs"].items()},
        iperf3_pairs=[(client, server) for client, server in document["iperf3_pairs"]],
        thresholds=Thresholds(**document["thresholds"]),
    )
