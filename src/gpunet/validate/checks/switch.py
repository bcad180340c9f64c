"""Switch checks from the PFC/ECN/queue show commands collected before and after the traffic tests.

Which show command answers which question differs per OS; a switch whose collected commands
cannot answer any check's question is listed as "not checked" with the reason (validate.coverage),
and docs/validation.md lists the gaps per OS.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

from gpunet.validate.artifacts import InputError
from gpunet.validate.checks.base import SWITCHES, Check
from gpunet.validate.manifest import SwitchExpectation
from gpunet.validate.results import Result, Status

AFTER = "after"
BEFORE = "before"


class _SwitchCheck(Check):
    categories = ("switch",)
    judged_per = SWITCHES
    platforms: tuple[str, ...] = ()

    def run(self) -> Iterator[Result]:
        for switch in self.manifest.switches.values():
            if switch.platform in self.platforms and switch.lossless_ports:
                yield from self.judge(switch)

    @abstractmethod
    def judge(self, switch: SwitchExpectation) -> Iterator[Result]: ...

    def read(
        self, switch: SwitchExpectation, phase: str, tool: str, subset: str | None = None
    ) -> dict[str, Any]:
        return self.artifacts.switch(switch.name, phase, tool, subset)

    def error(self, target: str, expected: str, error: InputError) -> Result:
        return Result(self.name, target, Status.ERROR, expected, "no input", str(error), self.categories[0])


class SwitchPfc(_SwitchCheck):
    name = "switch_pfc"
    description = "PFC is on for the lossless priority on every lossless switch port"
    commands = (
        "sonic-show-pfc-priority",
        "sonic-show-pfc-counters",  # for the measurements only (the Prometheus report)
        "nxos-show-interface-pfc",
        "cumulus-nv-show-qos-roce",
        "eos-show-pfc",
        "eos-show-pfc-watchdog-json",
        "eos-show-pfc-counters-detail-json",
        "junos-show-interfaces-extensive",
        "junos-show-cos-interface",
        "junos-show-cos-congestion-notification",
    )
    platforms = ("sonic", "nxos", "cumulus", "eos", "junos")

    def judge(self, switch: SwitchExpectation) -> Iterator[Result]:
        if switch.platform == "eos":
            yield from self._judge_eos(switch)
            return
        if switch.platform == "junos":
            yield from self._judge_junos(switch)
            return
        prio = self.manifest.lossless_priority
        expected = f"PFC on priority {prio}"
        try:
            if switch.platform == "cumulus":
                settings = self.read(switch, AFTER, "cumulus-nv-show-qos-roce")["settings"]
                configured = parse_priorities(settings.get("pfc.pfc-priority"))
                actual = f"pfc-priority {settings.get('pfc.pfc-priority')}"
                yield self.result(switch.name, prio in configured, expected, actual)
                return
            if switch.platform == "sonic":
                table = self.read(switch, AFTER, "sonic-show-pfc-priority")["interfaces"]
                per_port = {port: table.get(port) for port in switch.lossless_ports}
                self._measure_sonic_pauses(switch)
            else:
                table = self.read(switch, AFTER, "nxos-show-interface-pfc")["interfaces"]
                for port in switch.lossless_ports:  # NX-OS counts pause frames per port
                    self._measure_pauses(f"{switch.name}:{port}", table.get(port, {}))
                per_port = {
                    port: table[port]["priorities"] if table.get(port, {}).get("oper") == "On" else []
                    for port in switch.lossless_ports
                    if port in table
                } | {port: None for port in switch.lossless_ports if port not in table}
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        for port, priorities in per_port.items():
            actual = "port not listed" if priorities is None else f"PFC on {priorities or 'no priority'}"
            yield self.result(
                f"{switch.name}:{port}", bool(priorities) and prio in priorities, expected, actual
            )

    def _measure_pauses(self, target: str, counters: dict[str, Any]) -> None:
        for direction in ("rx", "tx"):
            self.measure(target, f"{direction}_pause_frames", counters.get(f"{direction}_pause"))

    def _measure_sonic_pauses(self, switch: SwitchExpectation) -> None:
        """`show pfc counters` on the lossless priority: read only for the measurements (the
        verdict is `show pfc priority`'s), so a missing capture changes no result."""
        if self.measurements is None:
            return
        try:
            counters = self.read(switch, AFTER, "sonic-show-pfc-counters")
        except InputError:
            return
        prio = self.manifest.lossless_priority
        for port in switch.lossless_ports:
            for direction in ("rx", "tx"):
                per_priority = counters.get(direction, {}).get(port)
                if per_priority is not None:
                    self.measure(f"{switch.name}:{port}", f"{direction}_pause_frames", per_priority[prio])

    def _judge_eos(self, switch: SwitchExpectation) -> Iterator[Result]:
        """`show priority-flow-control`: PFC enabled on the lossless priority of every lossless port
        (and globally); during the tests the PFC watchdog found no stuck lossless queue and pause
        frames came only on the lossless priority (`counters detail | json`)."""
        prio = self.manifest.lossless_priority
        expected = (
            f"PFC on priority {prio}, pause frames only on priority {prio} and no watchdog-stuck "
            f"queue {prio} during the tests"
        )
        try:
            status = self.read(switch, AFTER, "eos-show-pfc")
            stuck_before = eos_by_long_name(self.read(switch, BEFORE, "eos-show-pfc-watchdog-json"))
            stuck_after = eos_by_long_name(self.read(switch, AFTER, "eos-show-pfc-watchdog-json"))
            pauses_before = eos_by_long_name(self.read(switch, BEFORE, "eos-show-pfc-counters-detail-json"))
            pauses_after = eos_by_long_name(self.read(switch, AFTER, "eos-show-pfc-counters-detail-json"))
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        ports = eos_by_long_name(status)
        for port in switch.lossless_ports:
            target = f"{switch.name}:{port}"
            self._measure_pauses(target, pauses_after.get(port, {}).get(prio, {}))
            row = ports.get(port)
            if status["global_enabled"] is False:
                yield self.result(target, False, expected, "Global PFC : Disabled")
            elif row is None:
                yield self.result(target, False, expected, "port not listed")
            elif not row["enabled"] or prio not in row["priorities"]:
                state = "enabled" if row["enabled"] else "disabled"
                yield self.result(
                    target, False, expected, f"PFC {state} on {row['priorities'] or 'no priority'}"
                )
            elif not row["active"]:
                yield self.result(target, False, expected, f"PFC on {row['priorities']} but not active")
            elif prio not in pauses_after.get(port, {}) or prio not in pauses_before.get(port, {}):
                yield self.result(target, False, expected, f"priority {prio} not in the PFC frame counters")
            else:
                deltas = _pause_deltas(pauses_before[port], pauses_after[port])
                stuck = _counter(stuck_after, port, prio, "stuck") - _counter(
                    stuck_before, port, prio, "stuck"
                )
                # The Yes/No table does not show the watchdog; the letters table does (W).
                watchdog = {True: ", watchdog on", False: ", watchdog off", None: ""}[row["watchdog"]]
                wrong = {p: n for p, n in sorted(deltas.items()) if p != prio and n}
                pauses = ", ".join(f"{n} pause frames on priority {p}" for p, n in wrong.items()) or (
                    f"{deltas[prio]} pause frames on priority {prio}"
                )
                actual = (
                    f"PFC on {row['priorities']}{watchdog}, {pauses}, "
                    f"{stuck} watchdog-stuck events on queue {prio}"
                )
                yield self.result(target, stuck == 0 and not wrong, expected, actual)

    def _judge_junos(self, switch: SwitchExpectation) -> Iterator[Result]:
        """`show class-of-service interface`: a congestion-notification profile on every lossless
        port, and where `show class-of-service congestion-notification` prints the profile's
        IEEE 802.1p table, PFC enabled there on the lossless priority; `show interfaces
        extensive`: pause frames during the tests only on the lossless priority."""
        prio = self.manifest.lossless_priority
        expected = (
            f"a PFC profile enabling priority {prio}, pause frames only on priority {prio} during the tests"
        )
        try:
            cos = self.read(switch, AFTER, "junos-show-cos-interface")["interfaces"]
            profiles = self.read(switch, AFTER, "junos-show-cos-congestion-notification")["profiles"]
            before = self.read(switch, BEFORE, "junos-show-interfaces-extensive")["interfaces"]
            after = self.read(switch, AFTER, "junos-show-interfaces-extensive")["interfaces"]
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        for port in switch.lossless_ports:
            target = f"{switch.name}:{port}"
            priorities = after.get(port, {}).get("priorities", {})
            self._measure_pauses(target, {int(p): c for p, c in priorities.items()}.get(prio, {}))
            configured, state = _junos_pfc_state(cos.get(port), profiles, prio)
            if not configured:
                yield self.result(target, False, expected, state)
                continue
            if port not in after or port not in before:
                yield self.result(target, False, expected, f"{state}; port not in show interfaces extensive")
                continue
            if not after[port]["pfc_block"] or not before[port]["pfc_block"]:
                yield self.result(
                    target, False, expected, f"{state}; no MAC Priority Flow Control Statistics"
                )
                continue
            deltas = {
                int(p): sum(after[port]["priorities"][p][k] - before[port]["priorities"][p].get(k, 0)
                            for k in ("rx_pause", "tx_pause"))
                for p in after[port]["priorities"]
                if p in before[port]["priorities"]
            }  # fmt: skip
            wrong = {p: n for p, n in sorted(deltas.items()) if p != prio and n}
            if wrong:
                seen = ", ".join(f"{n} on priority {p}" for p, n in wrong.items())
                yield self.result(target, False, expected, f"{state}; pause frames {seen}")
                continue
            yield self.result(
                target, True, expected, f"{state}; {deltas.get(prio, 0)} pause frames on priority {prio}"
            )


def _junos_pfc_state(cos: dict[str, Any] | None, profiles: dict[str, Any], prio: int) -> tuple[bool, str]:
    """(whether the port's PFC configuration is right, what was seen)."""
    if cos is None:
        return False, "port not in show class-of-service interface"
    if cos["congestion_notification"] is None:
        return False, "no Congestion-notification line for the port"
    if not cos["congestion_notification"]:
        return False, "Congestion-notification: Disabled"
    name = cos["profile"]
    if name is None:
        return True, "congestion-notification enabled (no profile named)"
    profile = profiles.get(name, {}).get("input")
    if profile is None:
        return False, f"input profile {name} not in show class-of-service congestion-notification"
    if not profile["priorities"]:
        # A DSCP-based profile prints no IEEE 802.1p table we know of: the profile is attached.
        return True, f"profile {name} attached (no IEEE 802.1p PFC table printed)"
    if not profile["priorities"].get(prio):
        enabled = sorted(p for p, on in profile["priorities"].items() if on)
        return False, f"profile {name}: PFC on {enabled or 'no priority'}, not on priority {prio}"
    return True, f"profile {name} PFC on {sorted(p for p, on in profile['priorities'].items() if on)}"


def eos_by_long_name(parsed: dict[str, Any]) -> dict[str, Any]:
    return {_eos_long_name(port): value for port, value in parsed["interfaces"].items()}


def _pause_deltas(before: dict[int, Any], after: dict[int, Any]) -> dict[int, int]:
    """PFC frames received plus sent per priority between the two captures."""
    return {
        prio: sum(after[prio][k] - before[prio][k] for k in ("rx_pause", "tx_pause"))
        for prio in after
        if prio in before
    }


def _counter(watchdog: dict[str, Any], port: str, queue: int, key: str) -> int:
    """A watchdog counter; EOS lists a port only after its first event, so absent means 0."""
    return watchdog.get(port, {}).get(queue, {}).get(key, 0)


def parse_priorities(text: str | None) -> list[int]:
    return [int(p) for p in (text or "").split(",") if p.strip().isdigit()]


class SwitchEcn(_SwitchCheck):
    name = "switch_ecn"
    description = "ECN marking is on for the lossless traffic class with the designed thresholds"
    commands = (
        "sonic-show-ecn",
        "cumulus-nv-show-qos-roce",
        "eos-show-qos-ecn-counters-queue",
        "junos-show-interfaces-queue",
    )
    platforms = ("sonic", "cumulus", "eos", "junos")

    def judge(self, switch: SwitchExpectation) -> Iterator[Result]:
        m = self.manifest
        if switch.platform in ("eos", "junos"):
            yield from self._judge_ecn_counters(switch)
            return
        try:
            if switch.platform == "cumulus":
                expected = f"ECN mode, enabled on TC {m.lossless_priority}"
                settings = self.read(switch, AFTER, "cumulus-nv-show-qos-roce")["settings"]
                mode = settings.get("congestion-control.congestion-mode")
                tcs = parse_priorities(settings.get("congestion-control.enabled-tc"))
                actual = f"{mode} mode, enabled on TC {','.join(map(str, tcs)) or 'none'}"
                yield self.result(switch.name, mode == "ECN" and m.lossless_priority in tcs, expected, actual)
                return
            expected = (
                f"an ECN profile with green thresholds {m.ecn_min_threshold_kb * 1024}-"
                f"{m.ecn_max_threshold_kb * 1024} bytes"
            )
            parsed = self.read(switch, AFTER, "sonic-show-ecn")
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        wanted = (m.ecn_min_threshold_kb * 1024, m.ecn_max_threshold_kb * 1024)
        # A multi-ASIC switch: each namespace's ports mark by that namespace's WRED profiles, so
        # every namespace needs one (a profile of another ASIC marks none of its ports).
        per_namespace = parsed.get("namespace_profiles") or {"": parsed["profiles"]}
        seen, ok = [], True
        for namespace, profiles in per_namespace.items():
            where = f"{namespace}: " if namespace else ""
            seen += [
                f"{where}{name} {p.get('ecn')} {p.get('green_min_threshold')}-{p.get('green_max_threshold')}"
                for name, p in profiles.items()
            ] or [f"{where}no profile"]
            ok = ok and any(
                p.get("ecn") not in (None, "ecn_none")
                and (p.get("green_min_threshold"), p.get("green_max_threshold")) == wanted
                for p in profiles.values()
            )
        yield self.result(switch.name, ok, expected, "; ".join(seen))

    def _judge_ecn_counters(self, switch: SwitchExpectation) -> Iterator[Result]:
        """EOS and Junos print no ECN profile view we collect: the lossless queue of every lossless
        port must keep an ECN-marked counter (ECN is on there); the marks during the tests are shown."""
        queue = self.manifest.lossless_priority
        expected = f"an ECN-marked counter on queue {queue}"
        try:
            before = per_queue(self.read(switch, BEFORE, _ECN_TOOLS[switch.platform]), "ecn")
            after = per_queue(self.read(switch, AFTER, _ECN_TOOLS[switch.platform]), "ecn")
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        for port in switch.lossless_ports:
            marks_after, marks_before = after.get((port, queue)), before.get((port, queue))
            self.measure(f"{switch.name}:{port}", "ecn_marked_packets", marks_after)
            if marks_after is None:
                actual = "port not listed" if port not in {p for p, _ in after} else "no ECN counter"
                yield self.result(f"{switch.name}:{port}", False, expected, f"queue {queue}: {actual}")
                continue
            delta = marks_after - (marks_before or 0)
            yield self.result(f"{switch.name}:{port}", True, expected, f"{delta} ECN marks on queue {queue}")


class LosslessQueueDrops(_SwitchCheck):
    name = "lossless_queue_drops"
    description = "No packet was dropped on the lossless queue of a lossless port during the traffic tests"
    commands = (
        "sonic-show-queue-counters",
        "eos-show-interfaces-counters-queue",
        "junos-show-interfaces-queue",
    )
    platforms = ("sonic", "eos", "junos")
    weight = 7

    def judge(self, switch: SwitchExpectation) -> Iterator[Result]:
        if switch.platform in QUEUE_TOOLS:
            yield from self._judge_queue_drops(switch)
            return
        queue = f"UC{self.manifest.lossless_priority}"
        expected = f"0 drops on {queue} between before and after"
        try:
            # Only the lossless queue's rows: 128 of a 128-port switch's 1,024.
            before = sonic_queue_drops(self.read(switch, BEFORE, "sonic-show-queue-counters", queue), queue)
            after = sonic_queue_drops(self.read(switch, AFTER, "sonic-show-queue-counters", queue), queue)
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        for port in switch.lossless_ports:
            if port not in after or port not in before:
                yield self.result(f"{switch.name}:{port}", False, expected, "port not in queue counters")
                continue
            self.measure(f"{switch.name}:{port}", "drop_packets", after[port])
            delta = (after[port] or 0) - (before[port] or 0)
            yield self.result(f"{switch.name}:{port}", delta == 0, expected, f"{delta} drops on {queue}")

    def _judge_queue_drops(self, switch: SwitchExpectation) -> Iterator[Result]:
        queue = self.manifest.lossless_priority
        expected = f"0 drops on queue {queue} between before and after"
        tool = QUEUE_TOOLS[switch.platform]
        try:
            parsed_before, parsed_after = self.read(switch, BEFORE, tool), self.read(switch, AFTER, tool)
        except InputError as error:
            yield self.error(switch.name, expected, error)
            return
        before, after = per_queue(parsed_before, "drops"), per_queue(parsed_after, "drops")
        for port in switch.lossless_ports:
            for parsed, counters in ((parsed_before, before), (parsed_after, after)):
                # EOS `detail` lists only queues that counted something: no row is zero.
                if parsed.get("zero_rows_omitted") and (port, queue) not in counters:
                    counters[(port, queue)] = 0
            if after.get((port, queue)) is None or before.get((port, queue)) is None:
                yield self.result(
                    f"{switch.name}:{port}", False, expected, f"queue {queue} not in the counters"
                )
                continue
            self.measure(f"{switch.name}:{port}", "drop_packets", after[(port, queue)])
            delta = after[(port, queue)] - before[(port, queue)]
            yield self.result(
                f"{switch.name}:{port}", delta == 0, expected, f"{delta} drops on queue {queue}"
            )


# The per-queue counter command of the platforms whose drops and ECN marks come from one.
QUEUE_TOOLS = {
    "eos": "eos-show-interfaces-counters-queue",
    "junos": "junos-show-interfaces-queue",
}
_ECN_TOOLS = {"eos": "eos-show-qos-ecn-counters-queue", "junos": "junos-show-interfaces-queue"}


def per_queue(parsed: dict[str, Any], counter: str) -> dict[tuple[str, int], int | None]:
    """(port as the inventory names it, queue) -> dropped or ECN-marked packets, for EOS and Junos."""
    if "interfaces" in parsed:  # Junos
        key = "ecn_ce_packets" if counter == "ecn" else "tail_dropped_packets"
        values: dict[tuple[str, int], int | None] = {}
        for port, interface in parsed["interfaces"].items():
            for queue, counters in interface["queues"].items():
                drops = [counters.get(k) for k in ("tail_dropped_packets", "red_dropped_packets")]
                value = counters.get(key) if counter == "ecn" else _sum_known(drops)
                values[(port, int(queue))] = value
        return values
    key = "ecn_marked_packets" if counter == "ecn" else "drop_packets"
    return {(_eos_long_name(row["port"]), row["queue"]): row.get(key) for row in parsed["queues"]}


def _sum_known(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _eos_long_name(port: str) -> str:
    return "Ethernet" + port[2:] if port.startswith("Et") and not port.startswith("Ethernet") else port


def sonic_queue_drops(parsed: dict[str, Any], queue: str) -> dict[str, int | None]:
    """port -> dropped packets of `queue` (None where SONiC prints N/A)."""
    return {row["port"]: row["drop_pkts"] for row in parsed["queues"] if row["queue"] == queue}


# Which platforms' output each switch check reads (for the "not checked" reason of the others).
SWITCH_CHECK_PLATFORMS: dict[str, tuple[str, ...]] = {
    check.name: check.platforms for check in (SwitchPfc, SwitchEcn, LosslessQueueDrops)
}
