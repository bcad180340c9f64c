"""Checks of one GPU host's own state: NICs, QoS, GPUs, PCIe, time, firewall, NCCL config."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gpunet.validate.checks.base import GPUS, HOSTS, RDMA_NICS, Check, read_host
from gpunet.validate.gid_index import inventory_gid, perftest_choice
from gpunet.validate.manifest import HostExpectation, NicExpectation
from gpunet.validate.results import Result, Status

_NEAR_PCIE = ("PIX", "PXB")  # at most PCIe switches between GPU and NIC: GPUDirect RDMA at full speed
_ACS_REDIRECT_FLAGS = ("SrcValid", "ReqRedir", "CmpltRedir")


def _find_port(devices: list[dict[str, Any]], nic: str, key: str = "ports") -> dict[str, Any] | None:
    device = next((d for d in devices if d["name"] == nic), None)
    return device[key][0] if device and device[key] else None


class NicPortState(Check):
    name = "nic_port_state"
    description = "Every expected NIC port is Active/LinkUp at the expected rate and link layer"
    categories = ("nic",)
    judged_per = HOSTS
    commands = ("ibstat",)
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        layer = "Ethernet" if self.manifest.transport == "roce" else "InfiniBand"
        for host in self.manifest.hosts.values():
            for nic in host.nics:
                target = f"{host.name}:{nic.name}"
                expected = f"Active/LinkUp {nic.speed_gbps} Gb/s {layer}"
                parsed, problem = read_host(self, host, "ibstat", target, expected)
                if problem:
                    yield problem
                    continue
                port = _find_port(parsed["devices"], nic.name)
                if port is None:
                    failed = [d["error"] for d in parsed.get("failed_devices", []) if d["name"] == nic.name]
                    actual = failed[0] if failed else "device not listed by ibstat"
                    yield self.result(target, False, expected, actual)
                    continue
                actual = (
                    f"{port.get('state')}/{port.get('physical_state')} {port.get('rate_gbps')} Gb/s "
                    f"{port.get('link_layer')}"
                )
                yield self.result(target, actual == expected, expected, actual)


class RoceGid(Check):
    name = "roce_v2_gid"
    description = "Every RoCE NIC port has a RoCE v2 GID (needed for routable RoCE)"
    categories = ("nic",)
    judged_per = HOSTS
    commands = ("ibv_devinfo",)
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        if self.manifest.transport != "roce":
            return
        for host in self.manifest.hosts.values():
            for nic in host.nics:
                target = f"{host.name}:{nic.name}"
                expected = "a RoCE v2 GID"
                parsed, problem = read_host(self, host, "ibv_devinfo", target, expected)
                if problem:
                    yield problem
                    continue
                port = _find_port(parsed["devices"], nic.name)
                gids = [g for g in (port or {}).get("gids", []) if "v2" in (g.get("type") or "")]
                actual = f"GID index {gids[0]['index']} ({gids[0]['type']})" if gids else "no RoCE v2 GID"
                yield self.result(target, bool(gids), expected, actual)


class RoceGidIndex(Check):
    name = "roce_gid_index"
    description = "The NIC's GID table has a RoCE v2 GID carrying its inventory address; says the index"
    categories = ("nic",)
    judged_per = HOSTS
    commands = ("roce-gids",)
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        if self.manifest.transport != "roce":
            return
        for host in self.manifest.hosts.values():
            for nic in host.nics:
                target = f"{host.name}:{nic.name}"
                expected = f"a RoCE v2 GID carrying {nic.address or 'the inventory address'}"
                parsed, problem = read_host(self, host, "roce-gids", target, expected, nic.name)
                if problem:
                    yield problem
                    continue
                if not nic.address:
                    yield self.result(target, False, expected, "manifest has no NIC address (re-collect)")
                    continue
                ours = inventory_gid(parsed["gids"], nic.address)
                if ours is None:
                    v2 = [f"{g['index']}={g['gid']}" for g in parsed["gids"] if g["type"] == "RoCE v2"]
                    yield self.result(
                        target, False, expected, f"no such GID (RoCE v2: {', '.join(v2) or 'none'})"
                    )
                    continue
                pick = perftest_choice(parsed["gids"])
                note = (
                    "perftest picks it itself"
                    if pick == ours["index"]
                    else f"perftest needs -x {ours['index']}"
                )
                yield self.result(
                    target, True, expected, f"GID index {ours['index']} on {ours['ndev']} ({note})"
                )


class NicQos(Check):
    name = "nic_qos"
    description = "NIC trust mode, PFC vector, DSCP mapping and RoCE traffic class as designed"
    categories = ("qos",)
    judged_per = HOSTS
    commands = ("mlnx_qos", "traffic-class")
    weight = 4
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        m = self.manifest
        vector = ",".join("1" if prio == m.lossless_priority else "0" for prio in range(8))
        expected = (
            f"trust {m.trust}, PFC {vector}, DSCP {m.roce_dscp} -> priority {m.lossless_priority}, "
            f"traffic class {m.traffic_class}"
        )
        for host in m.hosts.values():
            for nic in host.nics:
                yield self._judge(host, nic, expected)

    def _judge(self, host: HostExpectation, nic: NicExpectation, expected: str) -> Result:
        target = f"{host.name}:{nic.name}"
        qos, problem = read_host(self, host, "mlnx_qos", target, expected, nic.netdev)
        if problem:
            return problem
        tclass, problem = read_host(self, host, "traffic-class", target, expected, nic.name)
        if problem:
            return problem
        vector = ",".join(str(bit) for bit in qos["pfc_enabled"])
        prio = qos["dscp_to_priority"].get(str(self.manifest.roce_dscp))
        actual = (
            f"trust {qos['trust']}, PFC {vector}, DSCP {self.manifest.roce_dscp} -> priority {prio}, "
            f"traffic class {tclass['traffic_class']}"
        )
        return self.result(target, actual == expected, expected, actual)


# How the verify side names the fix of a NIC that is not as roce_host sets it.
RERUN = "rerun roce_host (playbooks/roce_hosts.yml --limit {host})"
_MLX5_MAX_CABLE_LENGTH_M = 999  # roce_qos: mlx5 keeps 1-999 m and drops a longer one without an error


def _manifest_predates(check: Check, target: str, expected: str) -> Result:
    return Result(
        check.name,
        target,
        Status.ERROR,
        expected,
        "no expectation",
        "the manifest was written before gpunet-validate recorded what roce_host sets on each NIC:"
        " re-collect",
        check.categories[0],
    )


def _left_alone(check: Check, target: str, why: str) -> Result:
    """roce_host does not make this setting on this NIC (a knob turned off, a length it cannot set):
    nothing to judge, and never a pass."""
    return Result(check.name, target, Status.SKIPPED, "left alone", "not run", why, check.categories[0])


def _unreadable(check: Check, target: str, expected: str, actual: str, why: str) -> Result:
    return Result(check.name, target, Status.ERROR, expected, actual, why, check.categories[0])


def _live_prio_tc(qos: dict[str, Any]) -> list[int | None]:
    """Priority -> traffic class as mlnx_qos lists it (None: a priority under no class)."""
    live: list[int | None] = [None] * 8
    for tc in qos["tcs"]:
        for prio in tc["priorities"]:
            if 0 <= prio < 8:
                live[prio] = tc["tc"]
    return live


def _classes(values: list[int | None] | list[int]) -> str:
    return ",".join("?" if value is None else str(value) for value in values)


def _ets_text(tcs: dict[int, tuple[str, int]], classes: list[int]) -> str:
    def one(tc: int) -> str:
        if tc not in tcs:
            return f"{tc}:?"
        tsa, bw = tcs[tc]
        return f"{tc}:{tsa} {bw}%" if tsa == "ets" else f"{tc}:{tsa}"

    return ", ".join(one(tc) for tc in classes)


class _RoceHostNicCheck(Check):
    """A setting roce_host makes on each NIC, judged from that NIC's mlnx_qos capture."""

    categories = ("qos",)
    judged_per = HOSTS
    commands = ("mlnx_qos",)
    weight = 2
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            for nic in host.nics:
                yield self._judge(host, nic)

    def _judge(self, host: HostExpectation, nic: NicExpectation) -> Result:
        raise NotImplementedError


class NicPrioTc(_RoceHostNicCheck):
    name = "nic_prio_tc"
    description = "NIC priority -> traffic class map as roce_host sets it (roce_host_prio_tc)"

    def _judge(self, host: HostExpectation, nic: NicExpectation) -> Result:
        target = f"{host.name}:{nic.name}"
        if nic.prio_tc is None or nic.left_alone is None:
            return _manifest_predates(self, target, "priority -> traffic class as roce_host sets it")
        if "prio_tc" in nic.left_alone:
            return _left_alone(self, target, nic.left_alone["prio_tc"])
        expected = f"prio->TC {_classes(nic.prio_tc)}"
        qos, problem = read_host(self, host, "mlnx_qos", target, expected, nic.netdev)
        if problem:
            return problem
        live = _live_prio_tc(qos)
        if all(tc is None for tc in live):
            return _unreadable(
                self,
                target,
                expected,
                "no traffic class section",
                f"mlnx_qos.{nic.netdev}.txt lists no priority under a traffic class (no 'tc: N ... priority:'"
                " lines): the map cannot be read",
            )
        actual = f"prio->TC {_classes(live)}"
        if live == nic.prio_tc:
            return self.result(target, True, expected, actual)
        message = (
            f"{host.name}:{nic.netdev} priority -> traffic class map differs:"
            f" {RERUN.format(host=host.name)}, or set roce_host_prio_tc ([] leaves the map alone)"
        )
        return self.result(target, False, expected, actual, message)


class NicEts(_RoceHostNicCheck):
    name = "nic_ets"
    description = "NIC ETS (TSA and bandwidth share) per traffic class as roce_host sets it"

    def _judge(self, host: HostExpectation, nic: NicExpectation) -> Result:
        target = f"{host.name}:{nic.name}"
        if nic.tc_tsa is None or nic.tc_bw is None or nic.prio_tc is None or nic.left_alone is None:
            return _manifest_predates(self, target, "ETS per traffic class as roce_host sets it")
        if "ets" in nic.left_alone:
            return _left_alone(self, target, nic.left_alone["ets"])
        wanted = {
            tc: (tsa, bw if tsa == "ets" else 0)
            for tc, (tsa, bw) in enumerate(zip(nic.tc_tsa, nic.tc_bw, strict=True))
        }
        every_class = f"ETS {_ets_text(wanted, sorted(wanted))}"
        qos, problem = read_host(self, host, "mlnx_qos", target, every_class, nic.netdev)
        if problem:
            return problem
        if not qos["tcs"]:
            return _unreadable(
                self,
                target,
                every_class,
                "no traffic class section",
                f"mlnx_qos.{nic.netdev}.txt has no 'tc: N ratelimit: ..., tsa: ...' lines:"
                " ETS cannot be read",
            )
        live = {
            tc["tc"]: (tc["tsa"], (tc["bw_percent"] or 0) if tc["tsa"] == "ets" else 0) for tc in qos["tcs"]
        }
        # As roce_qos compares: newer mlnx_qos prints only the classes that hold a priority, so ETS is
        # judged on the classes the map gives a priority (the NIC's own map where roce_host leaves it).
        holding = nic.prio_tc or [tc for tc in _live_prio_tc(qos) if tc is not None]
        classes = sorted(set(holding)) or sorted(live)
        expected = f"ETS {_ets_text(wanted, classes)}"
        actual = f"ETS {_ets_text(live, classes)}"
        if all(live.get(tc) == wanted[tc] for tc in classes):
            return self.result(target, True, expected, actual)
        message = (
            f"{host.name}:{nic.netdev} ETS differs: {RERUN.format(host=host.name)}, or set roce_host_tc_tsa"
            " and roce_host_tc_bw (from gpunet_fabric.qos.queues by default; [] and [] leave ETS alone)"
        )
        return self.result(target, False, expected, actual, message)


class NicCableLength(_RoceHostNicCheck):
    name = "nic_cable_length"
    description = "NIC cable length (the PFC headroom's) is its leaf cable's, as roce_host sets it"

    def _judge(self, host: HostExpectation, nic: NicExpectation) -> Result:
        target = f"{host.name}:{nic.name}"
        if nic.left_alone is None:
            return _manifest_predates(self, target, "the cable length roce_host sets")
        if "cable_length" in nic.left_alone:
            return _left_alone(self, target, nic.left_alone["cable_length"])
        length = nic.cable_length_m
        if length is None:
            return _manifest_predates(self, target, "the cable length roce_host sets")
        expected = f"cable length {length} m"
        if length > _MLX5_MAX_CABLE_LENGTH_M:
            why = (
                f"{length} m: mlx5 keeps only 1-{_MLX5_MAX_CABLE_LENGTH_M} m, so roce_host reports it"
                " NOT APPLIED (set roce_host_set_cable_length: false to say so)"
            )
            return _left_alone(self, target, why)
        qos, problem = read_host(self, host, "mlnx_qos", target, expected, nic.netdev)
        if problem:
            return problem
        live = qos["cable_length_m"]
        if live is None:
            return _unreadable(
                self,
                target,
                expected,
                "no 'Cable len:' line",
                f"mlnx_qos.{nic.netdev}.txt shows no cable length: this mlnx_qos does not print it",
            )
        if live == 0:
            why = (
                "mlnx_qos shows Cable len: 0: the NIC has no port buffer control, roce_host reports the"
                " cable length NOT APPLIED and the firmware's headroom applies"
            )
            return _left_alone(self, target, why)
        actual = f"cable length {live} m"
        if live == length:
            return self.result(target, True, expected, actual)
        message = (
            f"{host.name}:{nic.netdev} cable length differs: {RERUN.format(host=host.name)}; the length is"
            f" the leaf port's ({nic.switch}:{nic.switch_port}) gpunet_ports[].cable_length_m, else"
            " gpunet_fabric.qos.pfc.cable_length_m, or roce_host_cable_length_m"
            " (roce_host_set_cable_length: false leaves it alone)"
        )
        return self.result(target, False, expected, actual, message)


class GpuCount(Check):
    name = "gpu_count"
    description = "The host has the expected number of GPUs"
    categories = ("gpu",)
    judged_per = HOSTS
    commands = ("nvidia-smi-q",)
    needs = GPUS

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            expected = f"{host.gpus} GPUs"
            parsed, problem = read_host(self, host, "nvidia-smi-q", host.name, expected)
            if problem:
                yield problem
                continue
            actual = f"{parsed['attached_gpus']} GPUs"
            yield self.result(host.name, actual == expected, expected, actual)


class NvLink(Check):
    name = "nvlink"
    description = "Every GPU pair of a host is connected by NVLink"
    categories = ("gpu",)
    judged_per = HOSTS
    commands = ("nvidia-smi-topo",)
    needs = GPUS

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            expected = "NV# between every GPU pair"
            topo, problem = read_host(self, host, "nvidia-smi-topo", host.name, expected)
            if problem:
                yield problem
                continue
            gpus = topo["gpus"]
            slow = [
                f"{a}-{b} {topo['matrix'][a][b]}"
                for i, a in enumerate(gpus)
                for b in gpus[i + 1 :]
                if not topo["matrix"].get(a, {}).get(b, "").startswith("NV")
            ]
            actual = (
                f"{len(gpus)} GPUs, all pairs NVLink"
                if not slow
                else "without NVLink: " + ", ".join(slow[:8])
            )
            yield self.result(host.name, not slow, expected, actual)


class GpuNicAffinity(Check):
    name = "gpu_nic_affinity"
    description = "Every fabric NIC sits behind the same PCIe switch as a GPU (PIX or PXB)"
    categories = ("gpu", "pcie")
    judged_per = HOSTS
    commands = ("nvidia-smi-topo",)
    needs = GPUS

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            topo, problem = read_host(self, host, "nvidia-smi-topo", host.name, "PIX or PXB to a GPU")
            if problem:
                yield problem
                continue
            aliases = {name: alias for alias, name in topo["nic_legend"].items()}
            for nic in host.nics:
                column = aliases.get(nic.name, nic.name)
                relations = [topo["matrix"][gpu].get(column) for gpu in topo["gpus"] if gpu in topo["matrix"]]
                relations = [r for r in relations if r]
                nearest = min(relations, key=_distance, default="not in topology")
                yield self.result(
                    f"{host.name}:{nic.name}", nearest in _NEAR_PCIE, "PIX or PXB to a GPU", nearest
                )


def _distance(relation: str) -> int:
    order = ("X", "PIX", "PXB", "PHB", "NODE", "SYS")
    return order.index(relation) if relation in order else len(order)


class AcsDisabled(Check):
    name = "pcie_acs_off"
    description = "PCIe ACS redirection is off, so GPU-NIC peer traffic is not sent up to the root complex"
    categories = ("pcie",)
    judged_per = HOSTS
    commands = ("lspci-acs",)
    needs = GPUS

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            expected = f"no device with {'/'.join(_ACS_REDIRECT_FLAGS)} enabled"
            parsed, problem = read_host(self, host, "lspci-acs", host.name, expected)
            if problem:
                yield problem
                continue
            enabled = [
                f"{d['address']} " + "+".join(f for f in _ACS_REDIRECT_FLAGS if d["acs_control"].get(f))
                for d in parsed["devices"]
                if any(d["acs_control"].get(f) for f in _ACS_REDIRECT_FLAGS)
            ]
            actual = "ACS redirect on: " + ", ".join(enabled[:6]) if enabled else "off on every device"
            yield self.result(host.name, not enabled, expected, actual)


class NtpOffset(Check):
    name = "ntp_offset"
    description = "chrony is synchronised and the clock offset is under the fabric's limit"
    categories = ("time",)
    judged_per = HOSTS
    commands = ("chronyc-tracking",)

    def run(self) -> Iterator[Result]:
        limit = self.manifest.ntp_max_offset_ms
        for host in self.manifest.hosts.values():
            expected = f"synchronised, |offset| <= {limit:g} ms"
            parsed, problem = read_host(self, host, "chronyc-tracking", host.name, expected)
            if problem:
                yield problem
                continue
            offset = parsed["system_time_offset_ms"]
            self.measure(host.name, "offset_seconds", offset / 1000)
            self.measure(host.name, "synchronised", 1.0 if parsed["synchronised"] else 0.0)
            state = "synchronised" if parsed["synchronised"] else parsed["leap_status"]
            actual = f"{state}, offset {offset:.3f} ms"
            yield self.result(host.name, parsed["synchronised"] and abs(offset) <= limit, expected, actual)


class FirewallRules(Check):
    name = "firewall_rules"
    description = "nftables accepts RoCEv2 (UDP 4791) and the pinned NCCL port range"
    categories = ("firewall",)
    judged_per = HOSTS
    commands = ("nft-ruleset",)

    def run(self) -> Iterator[Result]:
        low, high = self.manifest.nccl_port_range
        required = {self.manifest.roce_port, *range(low, high + 1)}
        expected = f"accept rules for {self.manifest.roce_port} and {low}-{high}"
        for host in self.manifest.hosts.values():
            parsed, problem = read_host(self, host, "nft-ruleset", host.name, expected)
            if problem:
                yield problem
                continue
            accepted = {
                port for rule in parsed["rules"] if rule["verdict"] == "accept" for port in rule["dports"]
            }
            missing = sorted(required - accepted)
            actual = "all accepted" if not missing else f"not accepted: {_ranges(missing)}"
            yield self.result(host.name, not missing, expected, actual)


def _ranges(ports: list[int]) -> str:
    spans: list[list[int]] = []
    for port in ports:
        if spans and port == spans[-1][1] + 1:
            spans[-1][1] = port
        else:
            spans.append([port, port])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


class NcclConfig(Check):
    name = "nccl_config"
    description = "/etc/nccl.conf names every fabric NIC and the RoCE traffic class"
    categories = ("nccl",)
    judged_per = HOSTS
    commands = ("nccl-conf",)

    def run(self) -> Iterator[Result]:
        for host in self.manifest.hosts.values():
            names = ",".join(nic.name for nic in host.nics)
            expected = f"NCCL_IB_HCA covers {names}; NCCL_IB_TC={self.manifest.traffic_class}"
            parsed, problem = read_host(self, host, "nccl-conf", host.name, expected)
            if problem:
                yield problem
                continue
            settings = parsed["settings"]
            listed = {
                re.split(r"[:]", item)[0] for item in settings.get("NCCL_IB_HCA", "").lstrip("=^").split(",")
            }
            missing = [nic.name for nic in host.nics if nic.name not in listed]
            tc = settings.get("NCCL_IB_TC")
            actual = f"NCCL_IB_HCA={settings.get('NCCL_IB_HCA', '(unset)')}; NCCL_IB_TC={tc or '(unset)'}"
            passed = not missing and tc == str(self.manifest.traffic_class)
            yield self.result(host.name, passed, expected, actual)
