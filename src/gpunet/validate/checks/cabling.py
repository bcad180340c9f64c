"""The `cabling` check: every planned link against the LLDP neighbours both ends saw.

The judging is validate.cabling's (the same as `gpunet cabling`); this module reads the captures
from the artifacts folder and turns its verdict into results, so every report format shows the
findings. One result per planned link judged as planned (pass), per finding (fail: the class,
every end named as host:nic or switch:port in the target, the fix in the message), per device
whose capture is missing or unreadable (error), and per link that could not be judged (error
where both ends were read but neither names the other, `not checked` where no end was captured:
those devices' errors already say why).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from gpunet.validate.artifacts import InputError
from gpunet.validate.cabling import End, Finding, Link, Verdict, judge_cabling
from gpunet.validate.cabling_speed import SpeedFinding, speed_findings
from gpunet.validate.checks.base import Check
from gpunet.validate.parsers.mstconfig import value_number
from gpunet.validate.results import Result, Status

CHECK = "cabling"
HOST_TOOL = "lldpctl-json"
_RX_MODE = re.compile(r"^LLDP_NB_RX_MODE_P\d+$")
PHASE = "before"  # the switches' captures before the traffic tests (links do not move meanwhile)
# The LLDP capture each switch OS is read from, first found first: the OS's own command where its
# layout is known (parsers/lldp_switch.py), lldpd's JSON where the OS runs lldpd (SONiC, Cumulus).
# SONiC: lldpctl's JSON first (it carries the port id subtypes the table leaves out).
LLDP_TOOLS: dict[str, tuple[str, ...]] = {
    "sonic": ("lldpctl-json", "sonic-show-lldp-table"),
    "cumulus": ("lldpctl-json",),
    "eos": ("eos-show-lldp-neighbors-detail-json", "lldpctl-json"),
    "nxos": ("nxos-show-lldp-neighbors-detail-json", "lldpctl-json"),
    "junos": ("junos-show-lldp-neighbors-json", "lldpctl-json"),
}
# verify_host's `mstconfig -d <bdf> query LLDP_NB_...` of each NIC (collect_plan.MSTCONFIG_LLDP_SCRIPT).
FIRMWARE_TOOL = "mstconfig-lldp"
ALL_TOOLS = tuple(dict.fromkeys((HOST_TOOL, *(tool for tools in LLDP_TOOLS.values() for tool in tools))))


def switch_tools(platform: str) -> tuple[str, ...]:
    return LLDP_TOOLS.get(platform, (HOST_TOOL,))


def end_target(end: End) -> str:
    return f"{end.device}:{end.port}"


def link_target(link: Link) -> str:
    return f"{end_target(link.a)}<->{end_target(link.b)}"


class Cabling(Check):
    name = CHECK
    description = "every planned link seen by LLDP from both ends with the names the plan gives"
    categories = ("cabling",)
    # ibstat: the host NIC's rate, the link's (cabling_speed.py); not judged where not collected.
    # mstconfig-lldp.<nic>: the NIC firmware's LLDP agent, read only for a NIC that saw no
    # neighbour on a link judged from the switch end (FIRMWARE_TOOL below).
    commands = (*ALL_TOOLS, "ibstat", FIRMWARE_TOOL)
    # Batched by its LLDP files alone: sharing ibstat would put it in nic_port_state's batch, which
    # is then no longer judged host by host in parts (batches.Batch.judged_per); ibstat is parsed
    # once more in its own process instead. No other check reads mstconfig-lldp.
    reads = ALL_TOOLS
    weight = 2

    def run(self) -> Iterator[Result]:
        captures: dict[str, dict[str, Any] | None] = {}
        errors: list[Result] = []
        for host in self.manifest.hosts:
            captures[host] = self._read(errors, host, lambda h=host: self.artifacts.host(h, HOST_TOOL))
        old_manifest = []
        for switch in self.manifest.switches.values():
            if switch.ports is None:
                old_manifest.append(switch.name)
            tool = self._switch_tool(switch.name, switch.platform)
            captures[switch.name] = self._read(
                errors, switch.name, lambda s=switch.name, t=tool: self.artifacts.switch(s, PHASE, t)
            )
        if old_manifest:
            yield Result(
                self.name,
                self.manifest.fabric,
                Status.ERROR,
                "the switch ports of the plan",
                "no input",
                "manifest.json was written before switch ports were recorded "
                f"({', '.join(old_manifest[:3])}{', ...' if len(old_manifest) > 3 else ''}): collect again",
                self.categories[0],
            )
            return
        yield from errors
        rates = {host: self._rates(host) for host in self.manifest.hosts}
        speeds = {finding.target: finding for finding in speed_findings(self.manifest, rates)}
        yield from self.results(judge_cabling(self.manifest, captures), captures, speeds)

    def _rates(self, host: str) -> dict[str, Any] | None:
        try:
            return self.artifacts.host(host, "ibstat")
        except InputError:
            return None  # nic_port_state names the missing ibstat; the speed is not judged here

    def _firmware_agent(self, end: End) -> str | None:
        """What the NIC's mstconfig capture says of its firmware LLDP agent where that agent
        receives (LLDP_NB_RX_MODE_P<n> not OFF): it takes the frames lldpd would see. None where
        it is off, or the capture is missing or unreadable (the link is judged as before)."""
        try:
            parsed = self.artifacts.host(end.device, FIRMWARE_TOOL, end.port)
        except InputError:
            return None
        on = []
        bdf = ""
        for device in parsed["devices"]:
            bdf = bdf or device["device"] or ""
            for name, values in device["parameters"].items():
                if not _RX_MODE.match(name):
                    continue
                # The running value where the table shows it (`-e`), else the next boot's.
                known = [
                    v for c in ("current", "next_boot") if value_number(v := values.get(c, "")) is not None
                ]
                if known and value_number(known[0]) != 0:
                    on.append((name, known[0]))
        if not on:
            return None
        shown = ", ".join(f"{name} {value}" for name, value in on)
        off = " ".join(f"{name}=0" for name, _ in on)
        return (
            f"the NIC firmware's LLDP agent is on ({shown}): it takes the frames; set lldpd_enabled: "
            f"false for this host, or turn it off (mstconfig -d {bdf or '<pci address>'} set {off}, "
            "needs a NIC reset)"
        )

    def _switch_tool(self, switch: str, platform: str) -> str:
        tools = switch_tools(platform)
        for tool in tools:
            if os.path.lexists(os.path.join(self.artifacts.root, "switches", switch, PHASE, f"{tool}.txt")):
                return tool
        return tools[0]

    def _read(self, errors: list[Result], device: str, read: Any) -> dict[str, Any] | None:
        try:
            return read()
        except InputError as error:
            errors.append(
                Result(
                    self.name,
                    device,
                    Status.ERROR,
                    "an LLDP neighbour capture",
                    "no input",
                    f"{error}; its links are judged from the other end",
                    self.categories[0],
                )
            )
            return None

    def results(
        self,
        verdict: Verdict,
        captures: dict[str, dict[str, Any] | None],
        speeds: dict[str, SpeedFinding] | None = None,
    ) -> Iterator[Result]:
        speeds = speeds or {}
        one_end = {link: reason for link, reason in verdict.one_end}
        silent_hosts: dict[Link, list[End]] = {}
        for link, end in verdict.silent:
            if end.kind == "host":
                silent_hosts.setdefault(link, []).append(end)
        for finding in verdict.findings:
            yield self._finding(finding)
        wrong = {(f.ends[0], f.ends[1]) for f in verdict.findings if f.kind != "extra_neighbour"}
        wrong |= {(f.ends[2], f.ends[3]) for f in verdict.findings if f.kind == "swapped"}
        unjudged = {link for link, _ in verdict.not_checked}
        for link in verdict.links:
            if (link.a, link.b) in wrong or link in unjudged:
                continue
            target = link_target(link)
            if (slow := speeds.get(target)) is not None:
                expected = f"{link.a} <-> {link.b} up at {slow.planned_gbps} Gb/s"
                yield self.result(target, False, expected, slow.message(), slow.fix())
                continue
            note = one_end.get(link, "")
            firmware = [found for end in silent_hosts.get(link, []) if (found := self._firmware_agent(end))]
            note = "; ".join([note, *firmware]) if firmware else note
            yield self.result(target, True, f"cabled to {link.b}", "as planned", note)
        for link, reason in verdict.not_checked:
            both_read = all(captures.get(end.device) is not None for end in (link.a, link.b))
            status = Status.ERROR if both_read else Status.NOT_CHECKED
            yield Result(
                self.name, link_target(link), status, f"cabled to {link.b}", "not judged", reason, "cabling"
            )

    def _finding(self, finding: Finding) -> Result:
        ends = finding.ends
        if finding.kind == "swapped":
            expected = f"{ends[0]} <-> {ends[1]} and {ends[2]} <-> {ends[3]}"
        elif finding.kind == "extra_neighbour":
            expected = f"no neighbour on {ends[0]} but the plan's"
        else:
            expected = f"{ends[0]} <-> {ends[1]}"
        seen = "" if finding.seen_from == "both ends" else f"; seen from {finding.seen_from}"
        return Result(
            self.name,
            "<->".join(end_target(end) for end in ends),
            Status.FAIL,
            expected,
            f"{finding.kind}: {finding.message}",
            f"fix: {finding.fix}{seen}",
            self.categories[0],
        )
