"""The `link_qos` check: both ends of every host cable agree on QoS.

Per planned host link (a NIC and the leaf port the plan cables it to): the NIC's live QoS from
its mlnx_qos capture against the switch port at the other end, as rendered (the manifest: the
port lossless or not, the fabric's trust and DSCP policy, the queue plan both ends are rendered
from) and as running where the switch_pfc captures show it (switch_port_qos.py: PFC-enabled
priorities on every OS, trust on Cumulus). Compared: trust, the DSCP -> priority map of the
policy's DSCPs (RoCE, CNP), the PFC-enabled priorities, the ETS of the lossless priority's class,
and the MTU.

MTU: the netdev's live MTU from its ip-link-json capture (`ip -j link show dev <netdev>`) must be
at most the leaf port's rendered MTU (the manifest's switch_port_mtu: the port's or the fabric's
MTU, clamped to the OS's maximum; a larger host frame is dropped at the leaf) and equal to the MTU
roce_host sets (the host's roce_host_mtu where the inventory sets one, else the fabric's host_mtu;
with roce_host_mtu 0 roce_host leaves the MTU alone and only the leaf's bound is judged). Compared
as the inventory's own MTU rule compares them (model/crosschecks.py mtu: host_mtu, or the host's
roce_host_mtu, <= the leaf port's MTU). The leaf's side is the rendered intent
only: none of the switch captures the verify stage collects prints a port's MTU (the PFC shows of
collect/switch_commands.py, and Junos' `show interfaces extensive` is reduced to its PFC lines),
so a leaf running another MTU than rendered is not seen here. A missing or unreadable MTU capture
leaves the MTU unjudged and says so in the note; a manifest written before the MTU was recorded
judges the rest alone.

nic_qos and nic_ets judge the NIC against roce_host alone and switch_pfc the switch alone; this
check names the link when the two ends differ from each other, which is what loses packets (a
NIC pausing on a priority its leaf does not honour, a DSCP the two map to different classes).
One result per link: pass, or fail naming each differing value on both ends and the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpunet.validate.artifacts import InputError
from gpunet.validate.checks.base import HOSTS, RDMA_NICS, Check, read_host
from gpunet.validate.checks.host import RERUN
from gpunet.validate.manifest import HostExpectation, NicExpectation, SwitchExpectation
from gpunet.validate.results import Result, Status
from gpunet.validate.switch_port_qos import PHASE, PortQos, running_ports

MTU_TOOL = "ip-link-json"  # verify_host's `ip -j link show dev <netdev>` (collect_plan.host_commands)
_MTU_PLAN = (
    "lower {knob} to at most {mtu} (the leaf port's rendered MTU) or raise the port's, then rerun roce_host"
)
_MTU_LEFT_ALONE = (
    "set {host}'s roce_host_mtu to at most {mtu} (the leaf port's rendered MTU; it is 0, so roce_host"
    " leaves the netdev's MTU alone) and rerun roce_host"
)
_PUSH = "push {switch}'s rendered configuration (playbooks/switches.yml --limit {switch})"
_PLAN = (
    "mark {switch}:{port} lossless in the inventory (gpunet_ports[].lossless; a port cabled to a host"
    " is lossless unless set false), render and push {switch}"
)


def _prios(values: tuple[int, ...] | list[int] | None) -> str:
    return "?" if values is None else "[" + ",".join(map(str, values)) + "]"


class LinkQos(Check):
    name = "link_qos"
    description = "each host NIC's live QoS matches the switch port its cable ends on, rendered and running"
    categories = ("qos",)
    judged_per = HOSTS  # a host's results come from its own captures and its leaves' PFC captures
    commands = ("mlnx_qos", MTU_TOOL, *sorted({"sonic-show-pfc-priority", "nxos-show-interface-pfc",
                                                "eos-show-pfc", "cumulus-nv-show-qos-roce",
                                                "junos-show-cos-interface",
                                                "junos-show-cos-congestion-notification"}))  # fmt: skip
    # Batched with the NIC checks by mlnx_qos alone (parsed once there, host by host in parts); the
    # few leaves' PFC captures are parsed once more in that process (sharing them would join
    # switch_pfc's batch, which is judged switch by switch).
    reads = ("mlnx_qos",)
    weight = 2
    needs = RDMA_NICS

    def run(self) -> Iterator[Result]:
        self._running: dict[str, Any] = {}
        self._lossless = {name: set(s.lossless_ports) for name, s in self.manifest.switches.items()}
        for host in self.manifest.hosts.values():
            for nic in host.nics:
                yield self._judge(host, nic)

    def _judge(self, host: HostExpectation, nic: NicExpectation) -> Result:
        m = self.manifest
        near, far = f"{host.name}:{nic.netdev}", f"{nic.switch}:{nic.switch_port}"
        target = f"{host.name}:{nic.name}<->{far}"
        switch = m.switches.get(nic.switch)
        if switch is None:
            return Result(self.name, target, Status.ERROR, "the leaf of the plan", "no expectation",
                          f"the manifest has no switch {nic.switch}: re-collect", "qos")  # fmt: skip
        lossless = nic.switch_port in self._lossless[nic.switch]
        dscps = {m.roce_dscp: m.lossless_priority}
        if m.cnp_dscp is not None and m.cnp_priority is not None:
            dscps[m.cnp_dscp] = m.cnp_priority
        rendered_pfc = (m.lossless_priority,) if lossless else ()
        ets_plan = _lossless_class_plan(nic, m.lossless_priority)
        port_mtu, policy_mtu, mtu_source = nic.switch_port_mtu, m.host_mtu, "host_mtu"
        if host.mtu is not None and host.mtu != m.host_mtu:
            # 0: roce_host leaves the MTU alone, so there is no intent to hold the netdev to.
            policy_mtu, mtu_source = host.mtu or None, "roce_host_mtu"
        expected = (
            f"{far} rendered: {'lossless' if lossless else 'lossy'}, trust {m.trust}, "
            + ", ".join(f"DSCP {d} -> priority {p}" for d, p in dscps.items())
            + f", PFC on {_prios(rendered_pfc)}"
            + (f", lossless class {ets_plan}" if ets_plan else "")
            + (f", MTU {port_mtu}" if port_mtu is not None else "")
            + (f"; {near} MTU {policy_mtu} ({mtu_source})" if policy_mtu is not None else "")
        )
        qos, problem = read_host(self, host, "mlnx_qos", target, expected, nic.netdev)
        if problem:
            return problem
        running, unread = self._port(switch, nic.switch_port)
        host_pfc = tuple(qos["pfc_priorities"])
        live_ets = _lossless_class_live(qos, m.lossless_priority)
        wrong: list[str] = []
        fixes: list[str] = []
        host_fix, push_fix = RERUN.format(host=host.name), _PUSH.format(switch=nic.switch)
        if not lossless and host_pfc:
            wrong.append(f"plan: {far} is lossy while {near} runs PFC on {_prios(host_pfc)}")
            fixes.append(_PLAN.format(switch=nic.switch, port=nic.switch_port))
        if qos["trust"] != m.trust:
            wrong.append(f"trust: {near} {qos['trust']}, {far} rendered {m.trust}")
            fixes.append(host_fix)
        if running.trust is not None and m.trust not in running.trust.split(","):
            wrong.append(f"trust: {far} running {running.trust}, rendered {m.trust}")
            fixes.append(push_fix)
        for dscp, prio in dscps.items():
            seen = qos["dscp_to_priority"].get(str(dscp))
            if seen != prio:
                wrong.append(f"DSCP {dscp}: {near} -> priority {seen}, {far} rendered -> priority {prio}")
                fixes.append(host_fix)
        if lossless and host_pfc != rendered_pfc:
            wrong.append(f"PFC: {near} on {_prios(host_pfc)}, {far} rendered on {_prios(rendered_pfc)}")
            fixes.append(host_fix)
        if running.pfc is not None and running.pfc != rendered_pfc:
            wrong.append(
                f"PFC: {far} running on {_prios(running.pfc)}"
                f"{f' ({running.note})' if running.note else ''}, rendered on {_prios(rendered_pfc)}"
                f", {near} on {_prios(host_pfc)}"
            )
            fixes.append(push_fix)
        if ets_plan and live_ets != ets_plan:
            wrong.append(f"ETS: {near} lossless class {live_ets}, queue plan {ets_plan}")
            fixes.append(host_fix)
        judge_mtu = port_mtu is not None or policy_mtu is not None
        live_mtu, mtu_unread = self._mtu(host, nic) if judge_mtu else (None, "")
        above = False
        if live_mtu is not None and port_mtu is not None and live_mtu > port_mtu:
            above = True
            wrong.append(
                f"MTU: {near} {live_mtu} above {far} rendered {port_mtu} (the leaf drops the larger frames)"
            )
            if host.mtu == 0:
                fixes.append(_MTU_LEFT_ALONE.format(host=host.name, mtu=port_mtu))
            elif policy_mtu is not None and policy_mtu > port_mtu:  # the inventory itself is over
                knob = (
                    f"{host.name}'s roce_host_mtu"
                    if mtu_source == "roce_host_mtu"
                    else "gpunet_fabric.host_mtu"
                )
                fixes.append(_MTU_PLAN.format(knob=knob, mtu=port_mtu))
            else:
                fixes.append(host_fix)
        if live_mtu is not None and policy_mtu is not None and live_mtu != policy_mtu:
            wrong.append(
                f"MTU: {near} {live_mtu}, the inventory's {mtu_source} {policy_mtu}"
                + (f" ({far} rendered {port_mtu})" if port_mtu is not None and not above else "")
            )
            fixes.append(host_fix)
        running_text = (
            f"; {far} running PFC on {_prios(running.pfc)}"
            + (f", trust {running.trust}" if running.trust is not None else "")
            if running.pfc is not None
            else ""
        )
        actual = (
            f"{near}: trust {qos['trust']}, "
            + ", ".join(f"DSCP {d} -> priority {qos['dscp_to_priority'].get(str(d))}" for d in dscps)
            + f", PFC on {_prios(host_pfc)}"
            + (f", lossless class {live_ets}" if ets_plan else "")
            + (f", MTU {live_mtu}" if live_mtu is not None else "")
            + running_text
        )
        pfc_note = unread or (f"{far} running PFC not shown: {running.note}" if running.pfc is None else "")
        note = "; ".join(part for part in (pfc_note, mtu_unread) if part)
        if not wrong:
            return self.result(target, True, expected, actual, note)
        message = "; ".join(wrong) + "; fix: " + "; ".join(dict.fromkeys(fixes))
        return self.result(target, False, expected, actual, message + (f" ({note})" if note else ""))

    def _mtu(self, host: HostExpectation, nic: NicExpectation) -> tuple[int | None, str]:
        """The netdev's live MTU, or None and why it is not judged (a missing or unreadable capture,
        the netdev not listed, no mtu printed)."""
        try:
            links = self.artifacts.host(host.name, MTU_TOOL, nic.netdev)["links"]
        except InputError as error:
            return None, f"MTU not judged: {error}"
        found = next((link for link in links if link["ifname"] == nic.netdev), None)
        if found is None:
            return None, f"MTU not judged: {MTU_TOOL}.{nic.netdev} lists no {nic.netdev}"
        if found["mtu"] is None:
            return None, f"MTU not judged: {MTU_TOOL}.{nic.netdev} prints no mtu for {nic.netdev}"
        return found["mtu"], ""

    def _port(self, switch: SwitchExpectation, port: str) -> tuple[PortQos, str]:
        """The port's running QoS and, where the captures could not be read, why (the switch_pfc
        check reports that error too; the link is then judged against the rendered intent)."""
        if switch.name not in self._running:

            def read(tool: str) -> dict[str, Any]:
                return self.artifacts.switch(switch.name, PHASE, tool)

            try:
                self._running[switch.name] = running_ports(switch.platform, read)
            except InputError as error:
                self._running[switch.name] = f"{switch.name} running QoS not read: {error}"
        found = self._running[switch.name]
        if isinstance(found, str):
            return PortQos(None), found
        return found(port), ""


def _lossless_class_plan(nic: NicExpectation, prio: int) -> str:
    """TSA and share of the class the plan puts the lossless priority in ("" where roce_host leaves
    the map or ETS alone, or the manifest predates them: nothing planned to compare)."""
    if nic.prio_tc is None or nic.tc_tsa is None or nic.tc_bw is None or nic.left_alone is None:
        return ""
    if {"prio_tc", "ets"} & set(nic.left_alone) or not nic.prio_tc:
        return ""
    tc = nic.prio_tc[prio]
    return _class_text(tc, nic.tc_tsa[tc], nic.tc_bw[tc])


def _lossless_class_live(qos: dict[str, Any], prio: int) -> str:
    for tc in qos["tcs"]:
        if prio in tc["priorities"]:
            return _class_text(tc["tc"], tc["tsa"], tc["bw_percent"] or 0)
    return "not listed"


def _class_text(tc: int, tsa: str, bw: int) -> str:
    return f"tc{tc} {tsa} {bw}%" if tsa == "ets" else f"tc{tc} {tsa}"
