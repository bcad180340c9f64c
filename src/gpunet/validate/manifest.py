"""`<artifacts>/manifest.json`: what the inventory expects, written before collection.

Judging reads only the artifacts folder, so `gpunet-validate --from-artifacts` needs no inventory
and gives the same verdicts on any machine later.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from gpunet.hosts.settings import cable_lengths, ets_from_queues
from gpunet.model.fabric import Fabric, GpuHost, Peer, Switch
from gpunet.validate.capture_file import read_bytes
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
    # What roce_host sets on the NIC (gpunet.hosts.settings, with the inventory's roce_host knobs):
    # priority -> traffic class, TSA and ETS share per traffic class, metres of cable to the leaf.
    # None: a manifest written before these were recorded. `left_alone` names each setting roce_host
    # does not make on this NIC (prio_tc, ets, cable_length) with the reason (a knob off, no length).
    prio_tc: list[int] | None = None
    tc_tsa: list[str] | None = None
    tc_bw: list[int] | None = None
    cable_length_m: int | None = None
    left_alone: dict[str, str] | None = None
    # The MTU the leaf port's rendered configuration sets (the port's or the fabric's MTU, clamped
    # to the OS's maximum as design/ports.py renders it); None in older manifests, or where the
    # plan's leaf or port is not in the inventory.
    switch_port_mtu: int | None = None


@dataclass(frozen=True)
class HostExpectation:
    name: str
    gpus: int
    gpu_model: str
    has_gpus: bool
    has_rdma_nics: bool
    hardware_reason: str
    nics: list[NicExpectation]
    # gpunet_hardware.simulated_incast: the incast stage ran against the lab's SIMULATION (a
    # host without RDMA NICs whose incast checks are judged). False in older manifests.
    simulated_incast: bool = False
    # The MTU roce_host sets on this host's RDMA netdevs: the host's roce_host_mtu where the
    # inventory sets one, else the fabric's host_mtu; 0: roce_host leaves it alone. None: older manifests.
    mtu: int | None = None

    def nic(self, name: str) -> NicExpectation | None:
        return next((nic for nic in self.nics if nic.name == name), None)


@dataclass(frozen=True)
class NcclRun:
    name: str
    hosts: list[str]
    gpus_per_node: int
    bound_busbw_gbs: float  # planner bound, GB/s


@dataclass(frozen=True)
class PortExpectation:
    """A switch port of the plan and the far end of its cable (the cabling check reads them)."""

    name: str
    speed_gbps: int
    peer: Peer | None = None


@dataclass(frozen=True)
class SwitchExpectation:
    name: str
    platform: str
    lossless_ports: list[str]
    # Every port of the inventory with its planned peer, as manifest.json's `ports` holds it (port
    # name -> _port_text); None: a manifest written before they were recorded (the cabling check
    # then says so instead of judging). Kept as text and read on first use: building 163,840 port
    # objects at 4,096 hosts took 0.9 s of every judgement, and only the cabling check reads them.
    port_texts: dict[str, str] | None = None

    @cached_property
    def ports(self) -> list[PortExpectation] | None:
        if self.port_texts is None:
            return None
        return [_port_from_text(name, text) for name, text in self.port_texts.items()]

    def port(self, name: str) -> PortExpectation | None:
        return self._ports_by_name.get(name)

    @cached_property
    def _ports_by_name(self) -> dict[str, PortExpectation]:
        return {port.name: port for port in self.ports or ()}


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
    # The CNP's DSCP and priority (the policy's second DSCP, link_qos compares its map on both
    # ends); None in a manifest written before they were recorded.
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    # The MTU roce_host sets on every RDMA netdev (gpunet_fabric.host_mtu); None in older manifests.
    host_mtu: int | None = None

    def as_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["version"] = MANIFEST_VERSION
        for switch in document["switches"].values():
            switch["ports"] = switch.pop("port_texts")
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
        hosts={name: _host_expectation(host, fabric) for name, host in hosts.items()},
        switches={name: _switch_expectation(switch) for name, switch in sorted(fabric.switches.items())},
        pair_mode=pair_mode,
        pair_rounds=rounds,
        nccl_runs=_nccl_runs(list(hosts.values()), thresholds),
        # The host network has no rails: one ring over all hosts.
        iperf3_pairs=[pair for round_ in ring_rounds(list(hosts)) for pair in round_],
        thresholds=thresholds,
        cnp_dscp=fabric.qos.cnp_dscp,
        cnp_priority=fabric.qos.cnp_priority,
        host_mtu=fabric.host_mtu,
    )


def _switch_expectation(switch: Switch) -> SwitchExpectation:
    return SwitchExpectation(
        switch.name,
        switch.platform,
        [p.name for p in switch.ports if p.lossless],
        {p.name: _port_text(PortExpectation(p.name, p.speed_gbps, p.peer)) for p in switch.ports},
    )


def _host_expectation(host: GpuHost, fabric: Fabric) -> HostExpectation:
    return HostExpectation(
        name=host.name,
        gpus=host.gpus.count,
        gpu_model=host.gpus.model,
        has_gpus=host.hardware.gpus,
        has_rdma_nics=host.hardware.rdma_nics,
        hardware_reason=host.hardware.reason,
        simulated_incast=host.hardware.simulated_incast,
        nics=_nic_expectations(host, fabric),
        mtu=host.roce_host_knobs.get("roce_host_mtu", fabric.host_mtu),
    )


def _nic_expectations(host: GpuHost, fabric: Fabric) -> list[NicExpectation]:
    """Each NIC with what roce_host sets on it: its defaults (the nic_ets and nic_cable_lengths
    filters' functions, over the built fabric) where the inventory leaves a knob out."""
    knobs = host.roce_host_knobs
    queues = [asdict(queue) for queue in fabric.qos.queues]
    ets = ets_from_queues(queues, fabric.qos.lossless_priority)
    prio_tc = list(knobs.get("roce_host_prio_tc", ets["prio_tc"]))
    tc_tsa = list(knobs.get("roce_host_tc_tsa", ets["tc_tsa"]))
    tc_bw = list(knobs.get("roce_host_tc_bw", ets["tc_bw"]))

    def port_length(switch: str, port: str) -> int | None:
        found = fabric.switches[switch].port(port) if switch in fabric.switches else None
        return None if found is None else found.cable_length_m

    def port_mtu(switch: str, port: str) -> int | None:
        # Imported here: only writing a manifest needs the design's OS limits, not reading one
        # (gpunet-validate --from-artifacts, the node check).
        from gpunet.design.platforms import platform_design

        found = fabric.switches[switch].port(port) if switch in fabric.switches else None
        if found is None:
            return None
        return min(found.mtu, platform_design(fabric.switches[switch].platform).limits.max_mtu)

    plain_nics = [{"netdev": n.netdev, "switch": n.switch, "switch_port": n.switch_port} for n in host.nics]
    lengths = knobs.get("roce_host_cable_length_m")
    if lengths is None:
        lengths = cable_lengths(plain_nics, port_length)
    left_alone: dict[str, str] = {}
    if not prio_tc:
        left_alone["prio_tc"] = "roce_host_prio_tc is [] in the inventory: roce_host leaves the map alone"
    if not tc_tsa:
        left_alone["ets"] = "roce_host_tc_tsa is [] in the inventory: roce_host leaves ETS alone"
    expectations = []
    for nic in host.nics:
        alone = dict(left_alone)
        length = lengths.get(nic.netdev)
        if not knobs.get("roce_host_set_cable_length", True):
            alone["cable_length"] = (
                "roce_host_set_cable_length is false in the inventory: roce_host leaves cable lengths alone"
            )
        elif length is None:
            where = "roce_host_cable_length_m" if "roce_host_cable_length_m" in knobs else "the inventory"
            alone["cable_length"] = (
                f"{where} holds no cable length for {nic.netdev} (leaf port {nic.switch}:{nic.switch_port}):"
                " roce_host reports it NOT APPLIED and the NIC keeps its own"
            )
        expectations.append(
            NicExpectation(
                nic.name,
                nic.netdev,
                nic.speed_gbps,
                nic.rail,
                nic.switch,
                nic.switch_port,
                str(nic.ip.ip),
                prio_tc=prio_tc,
                tc_tsa=tc_tsa,
                tc_bw=tc_bw,
                cable_length_m=length,
                left_alone=alone,
                switch_port_mtu=port_mtu(nic.switch, nic.switch_port),
            )
        )
    return expectations


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


# 4,096 hosts write about 30 MB (the expectations and the list of collected files); 16,384 hosts of
# 8 rails on three tiers about 180 MB before that list and 230 MB with it: a cap against a runaway
# file, not against a large fabric.
MAX_MANIFEST_BYTES = 1024 * 1024 * 1024
# Manifest names that become parts of artifact paths (hosts/<host>/, mlnx_qos.<netdev>.txt,
# pairs/<round>/<client>__<server>__<nic>.*, nccl/<run>.txt, switches/<switch>/): the characters
# the inventory allows in host, NIC and netdev names, never a leading dot, a slash or a NUL.
PATH_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,252}")


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    try:
        data = read_bytes(os.fspath(path), MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise ManifestError(f"{path}: not found (is {folder} an artifacts folder?)") from None
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}") from None
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ManifestError(
            f"{path}: not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start})"
        ) from None
    except json.JSONDecodeError as error:
        raise ManifestError(f"{path}: not JSON: {error.msg} at line {error.lineno}") from None
    except RecursionError:
        raise ManifestError(f"{path}: not a manifest: JSON nested too deeply") from None
    if not isinstance(document, dict):
        raise ManifestError(
            f"{path}: not a manifest: holds a JSON {_json_kind(document)}, expected an object"
        )
    try:
        manifest = _manifest_from_dict(document)
    except KeyError as error:
        raise ManifestError(f"{path}: missing field {error}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise ManifestError(f"{path}: malformed field: {error}") from None
    if (problem := _unsafe_name(manifest)) is not None:
        raise ManifestError(f"{path}: {problem}")
    return manifest


_CONTAINERS = {
    "hosts": dict,
    "switches": dict,
    "nccl_runs": dict,
    "thresholds": dict,
    "pair_rounds": list,
    "iperf3_pairs": list,
    "nccl_port_range": list,
}
_KIND_NAMES = {dict: "an object", list: "a list"}


def _json_kind(value: Any) -> str:
    kinds = {list: "list", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _unsafe_name(manifest: Manifest) -> str | None:
    """The first name that would not stay one path part inside the artifacts folder."""
    named: list[tuple[str, Any]] = [("fabric", manifest.fabric)]
    for key, host in manifest.hosts.items():
        named += [("hosts key", key), (f"hosts.{key}.name", host.name)]
        for index, nic in enumerate(host.nics):
            named += [
                (f"hosts.{key}.nics[{index}].name", nic.name),
                (f"hosts.{key}.nics[{index}].netdev", nic.netdev),
            ]
    for key, switch in manifest.switches.items():
        named += [("switches key", key), (f"switches.{key}.name", switch.name)]
    for key, run in manifest.nccl_runs.items():
        named += [("nccl_runs key", key)] + [
            (f"nccl_runs.{key}.hosts[{i}]", h) for i, h in enumerate(run.hosts)
        ]
    for number, round_ in enumerate(manifest.pair_rounds):
        if not isinstance(round_, list):
            return f"malformed field: pair_rounds[{number}] is not a list"
        for index, pair in enumerate(round_):
            if not isinstance(pair, dict):
                return f"malformed field: pair_rounds[{number}][{index}] is not an object"
            named += [
                (f"pair_rounds[{number}][{index}].{end}", pair.get(end)) for end in ("client", "server")
            ]
    for index, (client, server) in enumerate(manifest.iperf3_pairs):
        named += [(f"iperf3_pairs[{index}]", client), (f"iperf3_pairs[{index}]", server)]
    for field_name, value in named:
        if not isinstance(value, str) or not PATH_PART.fullmatch(value):
            return (
                f"{field_name}: {value!r} is not a safe name (letters, digits, '_', '.', '@', '-', "
                "not starting with '.' or '-', at most 253): artifact paths are built from it"
            )
    return None


# A port as manifest.json holds it: "<speed_gbps> <peer kind> <peer device> <peer port>", or
# "<speed_gbps>" alone without a peer. One line a port, where an object of fields was ten: at
# 4,096 hosts the 163,840 ports were 35 MB (the rest of the manifest is as much), now 9 MB.
def _port_text(port: PortExpectation) -> str:
    if port.peer is None:
        return str(port.speed_gbps)
    return f"{port.speed_gbps} {port.peer.kind} {port.peer.device} {port.peer.port}"


def _port_from_text(name: str, text: str) -> PortExpectation:
    fields = text.split(" ", 3)
    peer = Peer(fields[1], fields[2], fields[3]) if len(fields) == 4 else None
    return PortExpectation(name, int(fields[0]), peer)


# What _port_from_text reads; checked when the manifest is read (a regex a port: 0.1 s at 4,096 hosts).
_PORT_TEXT = re.compile(r"\d+( (host|switch) \S+ .+)?")


def _switch_from_dict(switch: dict[str, Any]) -> SwitchExpectation:
    ports = switch.get("ports")
    if ports is None:
        return SwitchExpectation(**{key: value for key, value in switch.items() if key != "ports"})
    if not isinstance(ports, dict):
        raise ValueError(f"switch {switch.get('name')!r}: ports is not an object of port texts")
    for name, text in ports.items():
        if not isinstance(text, str) or not _PORT_TEXT.fullmatch(text):
            raise ValueError(f"port {name!r}: {text!r} is not '<speed_gbps> [host|switch <device> <port>]'")
    fields = {key: value for key, value in switch.items() if key != "ports"}
    return SwitchExpectation(**fields, port_texts=ports)


def _manifest_from_dict(document: dict[str, Any]) -> Manifest:
    if document.get("version") != MANIFEST_VERSION:
        raise ValueError(f"version {document.get('version')!r}, expected {MANIFEST_VERSION}")
    for name, kind in _CONTAINERS.items():
        if name in document and not isinstance(document[name], kind):
            raise ValueError(f"{name} is a JSON {_json_kind(document[name])}, expected {_KIND_NAMES[kind]}")
    for name in ("hosts", "switches", "nccl_runs"):
        for key, value in document.get(name, {}).items():
            if not isinstance(value, dict):
                raise ValueError(f"{name}.{key} is a JSON {_json_kind(value)}, expected an object")
    for name in ("cnp_dscp", "cnp_priority", "host_mtu"):
        if document.get(name) is not None and type(document[name]) is not int:
            raise ValueError(f"{name} is a JSON {_json_kind(document[name])}, expected a number")
    hosts = {
        name: HostExpectation(**{**host, "nics": [NicExpectation(**nic) for nic in host["nics"]]})
        for name, host in document["hosts"].items()
    }
    for key, host in hosts.items():
        if host.mtu is not None and type(host.mtu) is not int:
            raise ValueError(f"hosts.{key}.mtu is a JSON {_json_kind(host.mtu)}, expected a number")
        for index, nic in enumerate(host.nics):
            if nic.switch_port_mtu is not None and type(nic.switch_port_mtu) is not int:
                raise ValueError(
                    f"hosts.{key}.nics[{index}].switch_port_mtu is a JSON"
                    f" {_json_kind(nic.switch_port_mtu)}, expected a number"
                )
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
        switches={name: _switch_from_dict(s) for name, s in document["switches"].items()},
        pair_mode=document["pair_mode"],
        pair_rounds=document["pair_rounds"],
        nccl_runs={name: NcclRun(**run) for name, run in document["nccl_runs"].items()},
        iperf3_pairs=[(client, server) for client, server in document["iperf3_pairs"]],
        thresholds=Thresholds(**document["thresholds"]),
        cnp_dscp=document.get("cnp_dscp"),
        cnp_priority=document.get("cnp_priority"),
        host_mtu=document.get("host_mtu"),
    )
