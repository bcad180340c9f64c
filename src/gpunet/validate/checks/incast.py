"""Checks on the counter deltas of the incast stage (gpunet.validate.incast): per rail, k senders
oversubscribe one receiver's leaf port in the lossless class, and the counters read before and
after the stage must show the fabric's lossless machinery at work, not merely configured.

Artifacts (the plan and the captures around the stage only, so the pair tests' traffic is not
counted in):
    incast/plan.json                                      the plan (incast.plan_document)
    incast/<rail>/<sender>__<receiver>__<nic>.ib_write_bw.txt   each sender's client output
    incast/<rail>/alltoall_perf.txt                       the rail's nccl-tests alltoall (its command
                                                          line first), or alltoall_perf.skipped.txt
                                                          with the reason the stage did not run it
    hosts/<host>/rdma-hw-counters.<incast-before|incast-after>.txt
    switches/<switch>/<incast-before|incast-after>/<tool>.txt    the tools of checks/switch.py

Every failure names the switch port or the NIC, the counter, its delta and the sign expected.
Where a switch OS has no collected command (or no parser) for a counter, the port's result is
"skipped" naming what is missing; docs/validation.md lists them per OS.
"""

from __future__ import annotations

import json
import os
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

from gpunet.validate.artifacts import InputError
from gpunet.validate.capture_file import read_bytes
from gpunet.validate.checks.base import Check
from gpunet.validate.checks.switch import eos_by_long_name, per_queue, sonic_queue_drops
from gpunet.validate.incast import (
    AFTER,
    BEFORE,
    PLAN_FILE,
    PathPort,
    PlanError,
    RailIncast,
    plan_from_document,
)
from gpunet.validate.parsers.cumulus_incast import QUEUE_DROP_FIELDS
from gpunet.validate.results import Result, Status

HW_COUNTERS = "rdma-hw-counters"
NIC_PORT = "1"  # the RDMA port of a RoCE NIC (as the GID table read, collect_plan.GID_TABLE_SCRIPT)
PLAN_MAX_BYTES = 16 * 1024 * 1024

# Where each OS's counter is missing: the reason a port's result is skipped.
_NO_ECN_COUNTER = {
    "nxos": "no collected NX-OS command with per-queue ECN-marked counts",
}
NO_PAUSE_COUNTER = {
    "nxos": "NX-OS `show interface priority-flow-control` counts pause frames per port, not per priority",
}
NO_DROP_COUNTER = {
    "nxos": "no collected NX-OS command with per-queue drop counts",
}
_NO_WATCHDOG_COUNTER = {
    "nxos": "no collected NX-OS PFC watchdog command",
    # NVIDIA's NVUE OpenAPI spec for Cumulus Linux 5.3.0 has no `pfc-watchdog` path or property;
    # later releases configure one (`nv set qos pfc-watchdog ...`), with no show of storms known.
    "cumulus": "no NVUE command with a PFC watchdog storm count (none in the NVUE 5.3 OpenAPI spec)",
    "junos": "no collected Junos PFC watchdog command",
}
# The NVUE captures of the incast's path ports (gpunet.collect.switch_show.PORT_COMMANDS).
NV_PFC = "cumulus-nv-show-interface-pfc-stats"
NV_QUEUES = "cumulus-nv-show-interface-egress-queue-stats"
NV_ROCE = "cumulus-nv-show-interface-roce-counters"


def nv_port(parsed: dict[str, Any], port: str, tool: str) -> dict[str, Any]:
    """The port's entry of an NVUE per-port capture; InputError where the switch refused the
    command for it or the capture lacks it."""
    if port in parsed["refused"]:
        raise InputError(f"{tool}: the switch answered for {port}: {parsed['refused'][port]}")
    if port not in parsed["interfaces"]:
        raise InputError(f"{tool}: no {port} in the capture (not on the collected path)")
    return parsed["interfaces"][port]


class _IncastCheck(Check):
    categories = ("incast",)
    commands = (HW_COUNTERS, "perftest")

    def run(self) -> Iterator[Result]:
        try:
            plan = read_plan(self.artifacts.root)
        except InputError as error:
            yield Result(self.name, "incast", Status.ERROR, self.description, "no plan", str(error), "incast")
            return
        if plan is None:
            why = f"no incast stage in this run ({PLAN_FILE} was not collected)"
            yield Result(self.name, "incast", Status.SKIPPED, self.description, "not run", why, "incast")
            return
        unknown = sorted({p.switch for rail in plan for p in rail.path} - set(self.manifest.switches))
        if unknown:
            why = f"{PLAN_FILE}: switch(es) {', '.join(unknown)} on the path are not in the manifest"
            yield Result(self.name, "incast", Status.ERROR, self.description, "no plan", why, "incast")
            return
        for rail in plan:
            if (lacking := self.without_rdma(rail)) is not None:
                yield lacking
                continue
            yield from self.judge(rail)

    def without_rdma(self, rail: RailIncast) -> Result | None:
        """Skipped, per rail, where a host of it has no RDMA NIC in the inventory (a lab container):
        the stage ran no traffic there, so a missing counter file is no error. A lab host with
        gpunet_hardware.simulated_incast ran the lab's SIMULATION instead, which is judged where the
        receiver's leaf has a traffic model (SIMULATED_PLATFORMS) and skipped elsewhere."""
        simulated = False
        for name in (rail.receiver, *(sender.host for sender in rail.senders)):
            host = self.manifest.hosts.get(name)
            if host is not None and not host.has_rdma_nics:
                if host.simulated_incast:
                    simulated = True
                    continue
                why = f"{name}: {host.hardware_reason or 'inventory declares no rdma nics'}"
                return self.skipped(rail.receiver_target, self.description, why)
        platform = self.platform(rail.receiver_port)
        if simulated and platform not in SIMULATED_PLATFORMS:
            why = (
                f"rail {rail.rail}: the lab's incast SIMULATION models SONiC and Cumulus leaves, and"
                f" {rail.receiver_port.switch} is {platform or 'not in the manifest'}"
            )
            return self.skipped(rail.receiver_target, self.description, why)
        return None

    @abstractmethod
    def judge(self, rail: RailIncast) -> Iterator[Result]: ...

    def skipped(self, target: str, expected: str, why: str) -> Result:
        return Result(self.name, target, Status.SKIPPED, expected, "not checked", why, self.categories[0])

    def error(self, target: str, expected: str, why: str) -> Result:
        return Result(self.name, target, Status.ERROR, expected, "no input", why, self.categories[0])

    def cannot_congest(self, rail: RailIncast, expected: str) -> Result | None:
        """An error where the plan's senders cannot oversubscribe the receiver: no marks prove nothing."""
        wanted = self.thresholds.incast_oversubscription
        if rail.oversubscription >= wanted - 1e-9:
            return None
        why = (
            f"rail {rail.rail}: {len(rail.senders)} sender(s) offer {rail.oversubscription:.2f}x the"
            " receiver's"
            f" {rail.receiver_gbps} Gb/s, under the {wanted:g}x that congests its port: add hosts to the rail"
        )
        return self.error(rail.receiver_target, expected, why)

    def nic_values(self, host: str, nic: str, counters: tuple[str, ...]) -> dict[str, tuple[int, int]]:
        """counter -> (before, after) on the NIC's port; InputError naming what is missing."""
        before = self._nic_counters(host, BEFORE, nic)
        after = self._nic_counters(host, AFTER, nic)
        values = {}
        for name in counters:
            if name not in before or name not in after:
                raise InputError(f"{host}:{nic} port {NIC_PORT}: no {name} counter in hw_counters")
            values[name] = (before[name], after[name])
        return values

    def nic_deltas(self, host: str, nic: str, counters: tuple[str, ...]) -> dict[str, int]:
        """counter -> after - before on the NIC's port; InputError naming what is missing or backwards."""
        deltas = {}
        for name, (before, after) in self.nic_values(host, nic, counters).items():
            deltas[name] = after - before
            if deltas[name] < 0:
                raise InputError(
                    f"{host}:{nic} {name} went backwards ({before} -> {after}): counters were"
                    " cleared or the NIC reset during the stage"
                )
        return deltas

    def _nic_counters(self, host: str, phase: str, nic: str) -> dict[str, int]:
        parsed = self.artifacts.host(host, HW_COUNTERS, phase)
        ports = parsed["devices"].get(nic)
        if ports is None or NIC_PORT not in ports:
            raise InputError(f"hosts/{host}/{HW_COUNTERS}.{phase}.txt: no {nic} port {NIC_PORT} counters")
        return ports[NIC_PORT]

    def switch_phases(self, port: PathPort, tool: str, subset: str | None = None) -> tuple[Any, Any]:
        return (
            self.artifacts.switch(port.switch, BEFORE, tool, subset),
            self.artifacts.switch(port.switch, AFTER, tool, subset),
        )

    def platform(self, port: PathPort) -> str | None:
        switch = self.manifest.switches.get(port.switch)
        return None if switch is None else switch.platform

    def no_counter_reason(self, port: PathPort, missing: dict[str, str]) -> str:
        """Why a path port's counter is not judged: its OS has none collected, or the switch is unknown."""
        return missing.get(self.platform(port) or "", f"switch {port.switch} is not in the manifest")


# The platforms the lab's traffic model moves counters on (gpunet.lab.switchsim.traffic.apply_load
# refuses the others): where a rail's hosts are simulated (gpunet_hardware.simulated_incast), only
# these leaves give it evidence. gpunet.lab.switchsim.traffic.MODELLED_PLATFORMS, restated: validate
# does not import the lab, an extra.
SIMULATED_PLATFORMS = ("sonic", "cumulus")


def read_plan(root: Any) -> list[RailIncast] | None:
    """The stage's plan from the artifacts folder; None where the stage did not run."""
    folder = os.path.realpath(os.fspath(root))
    path = os.path.join(os.fspath(root), PLAN_FILE)
    if os.path.lexists(os.path.dirname(path)) and not os.path.realpath(os.path.dirname(path)).startswith(
        folder + os.sep
    ):
        raise InputError(f"{PLAN_FILE}: incast/ leads out of the artifacts folder: not read")
    try:
        data = read_bytes(path, PLAN_MAX_BYTES)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"{PLAN_FILE}: {error.strerror or error}") from None
    try:
        return plan_from_document(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise InputError(f"{PLAN_FILE}: not JSON ({type(error).__name__})") from None
    except PlanError as error:
        raise InputError(f"{PLAN_FILE}: {error}") from None


def _signed(value: int) -> str:
    return f"{value:+d}"


class IncastEcnMarks(_IncastCheck):
    name = "incast_ecn_marks"
    description = (
        "The receiver's leaf port ECN-marked the lossless queue during the incast, and the NIC saw CE marks"
    )
    commands = (
        HW_COUNTERS,
        "eos-show-qos-ecn-counters-queue",
        "junos-show-interfaces-queue",
        "sonic-show-queue-wredcounters",
        NV_ROCE,
    )

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        queue = self.manifest.lossless_priority
        port = rail.receiver_port
        expected = f"ECN-marked packets on queue {queue} > 0 during the incast"
        if (problem := self.cannot_congest(rail, expected)) is not None:
            yield problem
            return
        platform = self.platform(port)
        if platform in ECN_TOOLS:
            try:
                marks_before, marks_after = self.readings(port)
            except InputError as error:
                yield self.error(port.target, expected, str(error))
            else:
                if marks_before is None or marks_after is None:
                    yield self.error(
                        port.target, expected, f"queue {queue}: no ECN-marked counter for {port.port}"
                    )
                else:
                    delta = marks_after - marks_before
                    self.measure(port.target, "incast_ecn_marked_packets", delta)
                    actual = f"ECN-marked packets {_signed(delta)} on queue {queue}"
                    if platform == "cumulus":
                        actual = f"tx-ecn-stats ecn-marked-packets {_signed(delta)} (the port's RoCE traffic)"
                    yield self.result(port.target, delta > 0, expected, actual)
        else:
            why = self.no_counter_reason(port, _NO_ECN_COUNTER)
            yield self.skipped(port.target, expected, f"{why}; the receiver NIC's CE count is judged instead")
        nic_expected = "np_ecn_marked_roce_packets > 0 during the incast (CE-marked packets arrived)"
        try:
            delta = self.nic_deltas(rail.receiver, rail.receiver_nic, ("np_ecn_marked_roce_packets",))
        except InputError as error:
            yield self.error(rail.receiver_target, nic_expected, str(error))
            return
        marks = delta["np_ecn_marked_roce_packets"]
        self.measure(rail.receiver_target, "incast_np_ecn_marked_roce_packets", marks)
        actual = f"np_ecn_marked_roce_packets {_signed(marks)}"
        yield self.result(rail.receiver_target, marks > 0, nic_expected, actual)

    def readings(self, port: PathPort) -> tuple[int | None, int | None]:
        """ECN-marked packets of the lossless queue before and after (None: not listed); the port's
        OS must be one of ECN_TOOLS."""
        platform, key = self.platform(port) or "", (port.port, self.manifest.lossless_priority)
        if platform == "cumulus":
            # NVUE counts ECN marks of the port's RoCE traffic (the RoCE switch priorities), not
            # per traffic class: tx-stats.tx-ecn-stats.ecn-marked-packets.
            before, after = (nv_port(p, port.port, NV_ROCE) for p in self.switch_phases(port, NV_ROCE))
            return before["ecn_marked"], after["ecn_marked"]
        before, after = (_ecn_marks(platform, p) for p in self.switch_phases(port, ECN_TOOLS[platform]))
        return before.get(key), after.get(key)


# The command whose per-queue ECN-marked count proves the receiver's leaf port marked.
ECN_TOOLS = {
    "cumulus": NV_ROCE,
    "eos": "eos-show-qos-ecn-counters-queue",
    "junos": "junos-show-interfaces-queue",
    "sonic": "sonic-show-queue-wredcounters",
}


def _ecn_marks(platform: str, parsed: dict[str, Any]) -> dict[tuple[str, int], int | None]:
    """(port, queue) -> ECN-marked packets; SONiC's unicast queues only (UC<n>)."""
    if platform != "sonic":
        return per_queue(parsed, "ecn")
    return {
        (row["port"], int(row["queue"][2:])): row["ecn_marked_pkts"]
        for row in parsed["queues"]
        if row["queue"].startswith("UC")
    }


class IncastCnp(_IncastCheck):
    name = "incast_cnp"
    description = "DCQCN engaged: the receiver NIC sent CNPs and every sender NIC handled some"
    commands = (HW_COUNTERS,)

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        expected = "np_cnp_sent > 0 during the incast (the receiver answered CE marks)"
        if (problem := self.cannot_congest(rail, expected)) is not None:
            yield problem
            return
        try:
            sent = self.nic_deltas(rail.receiver, rail.receiver_nic, ("np_cnp_sent",))["np_cnp_sent"]
        except InputError as error:
            yield self.error(rail.receiver_target, expected, str(error))
        else:
            self.measure(rail.receiver_target, "incast_np_cnp_sent", sent)
            yield self.result(rail.receiver_target, sent > 0, expected, f"np_cnp_sent {_signed(sent)}")
        expected = "rp_cnp_handled > 0 during the incast (the sender slowed down for CNPs)"
        for sender in rail.senders:
            try:
                deltas = self.nic_deltas(sender.host, sender.nic, ("rp_cnp_handled", "rp_cnp_ignored"))
            except InputError as error:
                yield self.error(sender.target, expected, str(error))
                continue
            handled, ignored = deltas["rp_cnp_handled"], deltas["rp_cnp_ignored"]
            self.measure(sender.target, "incast_rp_cnp_handled", handled)
            actual = f"rp_cnp_handled {_signed(handled)}, rp_cnp_ignored {_signed(ignored)}"
            yield self.result(sender.target, handled > 0, expected, actual)


class IncastPfcPriority(_IncastCheck):
    name = "incast_pfc_priority"
    description = "PFC pause frames on the incast's path came only on the lossless priority"
    commands = (
        "sonic-show-pfc-counters",
        "eos-show-pfc-counters-detail-json",
        "junos-show-interfaces-extensive",
        NV_PFC,
    )

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        prio = self.manifest.lossless_priority
        expected = f"PFC pause frames (rx + tx) +0 on every priority but {prio} during the incast"
        for port in rail.path:
            platform = self.platform(port)
            if platform in NO_PAUSE_COUNTER or platform is None:
                why = self.no_counter_reason(port, NO_PAUSE_COUNTER)
                yield self.skipped(port.target, expected, why)
                continue
            try:
                before, after = self.readings(port)
            except InputError as error:
                yield self.error(port.target, expected, str(error))
                continue
            if before is None or after is None:
                yield self.error(port.target, expected, f"{port.port} not in the PFC counters")
                continue
            deltas = {p: after[p] - before[p] for p in after if p in before}
            wrong = {p: n for p, n in sorted(deltas.items()) if p != prio and n}
            self.measure(port.target, "incast_pause_frames", deltas.get(prio))
            if wrong:
                seen = ", ".join(f"priority {p} {_signed(n)}" for p, n in wrong.items())
                yield self.result(port.target, False, expected, f"pause frames {seen} ({port.role})")
                continue
            actual = f"pause frames {_signed(deltas.get(prio, 0))} on priority {prio} only ({port.role})"
            yield self.result(port.target, True, expected, actual)

    def readings(self, port: PathPort) -> tuple[dict[int, int] | None, dict[int, int] | None]:
        """priority -> rx + tx pause frames of the port, before and after (None: port not listed);
        the port's OS must have a pause counter (not in NO_PAUSE_COUNTER)."""
        platform = self.platform(port) or ""
        before, after = (self._pauses(platform, parsed, port.port) for parsed in self._read(platform, port))
        return before, after

    def _read(self, platform: str, port: PathPort) -> tuple[Any, Any]:
        tool = {
            "sonic": "sonic-show-pfc-counters",
            "eos": "eos-show-pfc-counters-detail-json",
            "junos": "junos-show-interfaces-extensive",
            "cumulus": NV_PFC,
        }[platform]
        before, after = self.switch_phases(port, tool)
        if platform == "cumulus":  # a refused or missing port is named, not "not in the counters"
            for parsed in (before, after):
                nv_port(parsed, port.port, tool)
        return before, after

    @staticmethod
    def _pauses(platform: str, parsed: dict[str, Any], port: str) -> dict[int, int] | None:
        """priority -> rx + tx pause frames of `port` (None: port not listed)."""
        if platform == "sonic":
            rx, tx = parsed["rx"].get(port), parsed["tx"].get(port)
            if rx is None or tx is None:
                return None
            return {p: (rx[p] or 0) + (tx[p] or 0) for p in range(8)}
        if platform == "eos":
            priorities = eos_by_long_name(parsed).get(port)
        else:
            priorities = parsed["interfaces"].get(port, {}).get("priorities")
        if priorities is None:
            return None
        return {int(p): (c.get("rx_pause") or 0) + (c.get("tx_pause") or 0) for p, c in priorities.items()}


class IncastLosslessDrops(_IncastCheck):
    name = "incast_lossless_drops"
    description = (
        "No packet of the lossless queue was dropped on the incast's path, and the receiver saw no loss"
    )
    commands = (
        HW_COUNTERS,
        "sonic-show-queue-counters",
        "eos-show-interfaces-counters-queue",
        "junos-show-interfaces-queue",
        NV_QUEUES,
    )

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        queue = self.manifest.lossless_priority
        expected = f"dropped packets +0 on queue {queue} during the incast"
        for port in rail.path:
            platform = self.platform(port)
            if platform in NO_DROP_COUNTER or platform is None:
                why = self.no_counter_reason(port, NO_DROP_COUNTER)
                yield self.skipped(port.target, expected, why)
                continue
            try:
                before, after = self.readings(port)
            except InputError as error:
                yield self.error(port.target, expected, str(error))
                continue
            if before is None or after is None:
                yield self.error(
                    port.target, expected, f"queue {queue} of {port.port} not in the queue counters"
                )
                continue
            delta = after - before
            self.measure(port.target, "incast_drop_packets", delta)
            counter = " + ".join(QUEUE_DROP_FIELDS) if platform == "cumulus" else "dropped packets"
            actual = f"{counter} {_signed(delta)} on queue {queue} ({port.role})"
            yield self.result(port.target, delta == 0, expected, actual)
        expected = "out_of_sequence +0 during the incast (no packet of the receiver's flows was lost)"
        try:
            lost = self.nic_deltas(rail.receiver, rail.receiver_nic, ("out_of_sequence",))["out_of_sequence"]
        except InputError as error:
            yield self.error(rail.receiver_target, expected, str(error))
            return
        yield self.result(rail.receiver_target, lost == 0, expected, f"out_of_sequence {_signed(lost)}")

    def readings(self, port: PathPort) -> tuple[int | None, int | None]:
        """Dropped packets of the lossless queue before and after (None: not listed); the port's OS
        must have a drop counter (not in NO_DROP_COUNTER)."""
        return self._drops(self.platform(port) or "", port, self.manifest.lossless_priority)

    def _drops(self, platform: str, port: PathPort, queue: int) -> tuple[int | None, int | None]:
        if platform == "cumulus":
            sums = []
            for parsed in self.switch_phases(port, NV_QUEUES):
                row = nv_port(parsed, port.port, NV_QUEUES)["queues"].get(queue, {})
                present = [row[name] for name in QUEUE_DROP_FIELDS if name in row]
                sums.append(sum(present) if present else None)
            return sums[0], sums[1]
        if platform == "sonic":
            name = f"UC{queue}"
            before, after = self.switch_phases(port, "sonic-show-queue-counters", name)
            return (
                sonic_queue_drops(before, name).get(port.port),
                sonic_queue_drops(after, name).get(port.port),
            )
        tool = "eos-show-interfaces-counters-queue" if platform == "eos" else "junos-show-interfaces-queue"
        values = []
        for parsed in self.switch_phases(port, tool):
            counters = per_queue(parsed, "drops")
            # EOS `detail` lists only queues that counted something: no row is zero.
            if parsed.get("zero_rows_omitted") and (port.port, queue) not in counters:
                counters[(port.port, queue)] = 0
            values.append(counters.get((port.port, queue)))
        return values[0], values[1]


class IncastPfcWatchdog(_IncastCheck):
    name = "incast_pfc_watchdog"
    description = "The PFC watchdog found no stuck (storming) lossless queue on the incast's path"
    commands = ("eos-show-pfc-watchdog-json", "sonic-show-pfcwd-stats")

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        queue = self.manifest.lossless_priority
        expected = f"PFC watchdog stuck events +0 on queue {queue} during the incast"
        for port in rail.path:
            platform = self.platform(port)
            if platform not in ("eos", "sonic"):
                why = self.no_counter_reason(port, _NO_WATCHDOG_COUNTER)
                yield self.skipped(port.target, expected, why)
                continue
            try:
                before, after = self.readings(port)
            except InputError as error:
                yield self.error(port.target, expected, str(error))
                continue
            delta = after[0] - before[0]
            self.measure(port.target, "incast_watchdog_stuck", delta)
            status = f", status {after[1]}" if after[1] else ""
            actual = f"watchdog stuck events {_signed(delta)} on queue {queue}{status} ({port.role})"
            yield self.result(port.target, delta == 0 and after[1] != "stormed", expected, actual)

    def readings(self, port: PathPort) -> list[tuple[int, str]]:
        """(storms detected so far, the watchdog's status or "") of the lossless queue, before and
        after; the port's OS must be EOS or SONiC."""
        return self._storms(self.platform(port) or "", port, self.manifest.lossless_priority)

    def _storms(self, platform: str, port: PathPort, queue: int) -> list[tuple[int, str]]:
        """(storms detected so far, the watchdog's status or "") of the queue, before and after.
        Both OSes list a queue only once it counted something, so absent means 0 (checks/switch.py)."""
        if platform == "eos":
            sides = [eos_by_long_name(p) for p in self.switch_phases(port, "eos-show-pfc-watchdog-json")]
            return [(side.get(port.port, {}).get(queue, {}).get("stuck", 0), "") for side in sides]
        found = []
        for parsed in self.switch_phases(port, "sonic-show-pfcwd-stats"):
            row = next((r for r in parsed["queues"] if (r["port"], r["queue"]) == (port.port, queue)), None)
            found.append((0, "") if row is None else (row["storm_detected"], row["status"]))
        return found


class IncastBandwidth(_IncastCheck):
    name = "incast_bandwidth"
    description = (
        "The receiver's summed bandwidth during the incast reaches the threshold share of its line rate"
    )
    commands = ("perftest",)

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        fraction = self.thresholds.incast_min_fraction
        floor = fraction * rail.receiver_gbps
        expected = (
            f">= {floor:.1f} Gb/s summed over {len(rail.senders)} senders"
            f" ({fraction:.0%} of {rail.receiver_gbps} Gb/s)"
        )
        try:
            total = self.summed_gbps(rail)
        except InputError as error:
            yield self.error(rail.receiver_target, expected, str(error))
            return
        self.measure(rail.receiver_target, "incast_receiver_gbps", total)
        actual = f"{total:.1f} Gb/s summed over {len(rail.senders)} senders"
        yield self.result(rail.receiver_target, total >= floor, expected, actual)

    def summed_gbps(self, rail: RailIncast) -> float:
        """The senders' ib_write_bw averages summed (what the receiver took in); InputError where a
        capture is unusable or ran outside the lossless class."""
        total = 0.0
        for sender in rail.senders:
            relative = rail.capture(sender)
            parsed = self.artifacts.parsed(relative, "perftest")
            if parsed["error"]:
                raise InputError(f"{relative}: ib_write_bw reported: {parsed['error']}")
            if not parsed["complete"] or not parsed["results"]:
                raise InputError(f"{relative}: incomplete capture (no closing line after the results)")
            measured = parsed["results"][-1].get("bw_avg_gbps")
            if measured is None:
                raise InputError(f"{relative}: no 'BW average' column")
            tclass = parsed.get("traffic_class")
            if self.manifest.transport == "roce" and tclass != self.manifest.traffic_class:
                raise InputError(
                    f"{relative}: ran in traffic class {tclass}, not the lossless class"
                    f" {self.manifest.traffic_class}: the incast did not load the lossless queue"
                )
            total += measured
        return total


SKIP_REASON_MAX_BYTES = 4096


class IncastAlltoall(_IncastCheck):
    name = "incast_alltoall_busbw"
    description = (
        "nccl-tests alltoall across the rail's hosts in the lossless class: no wrong values, and busbw"
        " (each rank's NIC throughput) at the threshold share of the rail's line rate"
    )
    commands = ("nccl-tests",)

    def judge(self, rail: RailIncast) -> Iterator[Result]:
        target = rail.receiver_target
        a2a = rail.alltoall
        if a2a is None:
            why = (
                f"rail {rail.rail}: {PLAN_FILE} has no alltoall pattern (written by an older gpunet-validate)"
            )
            yield self.skipped(target, self.description, why)
            return
        fraction = self.thresholds.incast_alltoall_min_fraction
        floor = self.floor_gbytes(rail)
        expected = (
            f"0 wrong, alltoall busbw >= {floor:.2f} GB/s ({fraction:.0%} of {a2a.gbps} Gb/s)"
            f" at {a2a.bytes} B in traffic class {self.manifest.traffic_class}"
        )
        where = f"rail {rail.rail} ({', '.join(a2a.hosts)})"
        if (reason := self.skip_reason(rail)) is not None:
            yield self.skipped(target, expected, f"{where}: alltoall pattern not run: {reason}")
            return
        try:
            busbw, wrong = self.busbw_gbytes(rail)
        except InputError as error:
            yield self.error(target, expected, f"{where}: {error}")
            return
        self.measure(target, "incast_alltoall_busbw_bytes_per_second", busbw * 1e9)
        gbps = busbw * 8
        share = f"{gbps:.1f} Gb/s a rank ({gbps / a2a.gbps:.0%})"
        actual = f"{where}: {wrong} wrong, busbw {busbw:g} GB/s = {share}"
        yield self.result(target, wrong == 0 and busbw >= floor, expected, actual)

    def floor_gbytes(self, rail: RailIncast) -> float:
        """The busbw floor in GB/s (nccl-tests' unit): the threshold share of the slowest rail NIC."""
        gbps = rail.alltoall.gbps if rail.alltoall is not None else rail.receiver_gbps
        return self.thresholds.incast_alltoall_min_fraction * gbps / 8

    def skip_reason(self, rail: RailIncast) -> str | None:
        """The stage's reason for not running the rail's alltoall (its .skipped.txt), else None."""
        path = os.path.join(os.fspath(self.artifacts.root), rail.alltoall_skipped)
        try:
            data = read_bytes(path, SKIP_REASON_MAX_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError) as error:
            return f"{rail.alltoall_skipped} unreadable ({error})"
        return " ".join(data.decode("utf-8", "replace").split()) or "no reason given"

    def busbw_gbytes(self, rail: RailIncast) -> tuple[float, int]:
        """(out-of-place busbw at the plan's size in GB/s, wrong values); InputError where the
        capture is unusable, is not an alltoall, or ran outside the lossless class."""
        relative = rail.alltoall_capture
        parsed = self.artifacts.parsed(relative, "nccl-tests")
        if parsed["error"]:
            raise InputError(f"{relative}: alltoall_perf failed: {parsed['error']}")
        if parsed["test"] not in (None, "alltoall_perf", "alltoall_perf_mpi"):
            raise InputError(f"{relative}: a {parsed['test']} run, not alltoall_perf")
        if not parsed["complete"] or not parsed["rows"]:
            raise InputError(f"{relative}: incomplete capture (no 'Avg bus bandwidth' footer or no rows)")
        if self.manifest.transport == "roce":
            wanted = f"NCCL_IB_TC={self.manifest.traffic_class}"
            if wanted not in (parsed["command"] or "").split():
                raise InputError(
                    f"{relative}: its command line does not set {wanted}: the alltoall did not"
                    " provably load the lossless queue"
                )
        # alltoall has no in-place variant (src/alltoall.cu: errors not reported in place).
        row = max(parsed["rows"], key=lambda r: r["size_bytes"])
        busbw = row["out_of_place"]["busbw_gbs"]
        if busbw is None:
            raise InputError(f"{relative}: no out-of-place busbw at {row['size_bytes']} B")
        wrong = sum(r["out_of_place"]["wrong"] or 0 for r in parsed["rows"]) + (parsed["out_of_bounds"] or 0)
        return float(busbw), int(wrong)


INCAST_CHECKS = (
    IncastEcnMarks,
    IncastCnp,
    IncastPfcPriority,
    IncastLosslessDrops,
    IncastPfcWatchdog,
    IncastBandwidth,
    IncastAlltoall,
)
