"""A SIMULATION of what an incast does to a simulated Cumulus Linux switch's counters (LAB
EQUIPMENT), the NVUE counterpart of gpunet.lab.switchsim.traffic's SONiC model: the same rules
(drain at the port's speed, mark over the ECN minimum threshold, pause where PFC covers the
priority, drop otherwise), decided from the `nv set` lines the simulator holds (what was pushed
to it, never gpunet's design code). Command words as NVIDIA's NVUE reference lists them
(../shared/vendor-schemas/nvue/nv-set-commands-5.10.txt):

- class: DSCP -> switch priority by `nv set qos mapping <profile> dscp <d> switch-priority <sp>`
  of the ingress port's mapping profile (`nv set interface <if> qos mapping profile <profile>`,
  else default-global; unmapped = 0); switch priority -> traffic class by `nv set qos
  egress-queue-mapping default-global switch-priority <sp> traffic-class <tc>` (NVUE has no
  per-interface egress-queue-mapping; unmapped = the priority);
- the egress port drains at `nv set interface <if> link speed <n>G`; what is offered beyond it
  is the backlog rate;
- ECN marks on the traffic class only where the egress port's congestion-control profile
  (`nv set interface <if> qos congestion-control profile <profile>`, else default-global) has
  `traffic-class <tc> ecn enable` and the backlog passes its `min-threshold` (bytes; none set:
  0 [U]); then a share (1 - rate/offered) of what it sent is counted as marked (`ecn_marked`);
- pause frames on the switch priority only where the ingress port's PFC profile (`nv set
  interface <if> qos pfc profile <profile>`, else default-global where one is configured [U])
  lists `switch-priority <sp>` and its `tx` is not disable: those ports send them (`tx_pfc`);
- otherwise the share of the backlog entering by ports without PFC on the priority is dropped on
  the traffic class (`tx_drop`, printed as tx-uc-buffer-discards);
- a stalled receiver makes the egress port count the pauses it receives (`rx_pfc`) and send
  nothing meanwhile, where its PFC profile covers the priority with `rx` not disable. No PFC
  watchdog storm is modelled: no NVUE command shows one (docs/validation.md).

Counters are in packets of 1024 bytes, as every simulated queue counter; `tx_queue`,
`ecn_marked` and `tx_drop` are per traffic class, `rx_pfc`/`tx_pfc` per switch priority.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import PACKET_BYTES, PAUSES_PER_SECOND, Load, Outcome, add_counter

GLOBAL = "default-global"
_SPEED = re.compile(r"^(\d+)G$")


@dataclass
class NvueQos:
    """The QoS the simulator's `nv set` lines configure, as the model reads it."""

    dscp_sp: dict[str, dict[int, int]] = field(default_factory=dict)  # mapping profile -> DSCP -> sp
    sp_tc: dict[int, int] = field(default_factory=dict)  # default-global egress-queue-mapping
    ecn: dict[str, dict[int, dict[str, str]]] = field(default_factory=dict)  # cc profile -> tc -> settings
    pfc: dict[str, dict[str, object]] = field(default_factory=dict)  # pfc profile -> priorities, tx, rx
    interfaces: dict[str, dict[str, str]] = field(default_factory=dict)  # port -> profile kind / speed

    @classmethod
    def from_lines(cls, lines: list[str]) -> NvueQos:
        qos = cls()
        for line in lines:
            words = line.split()
            if words[:2] != ["nv", "set"]:
                continue
            words = words[2:]
            if words[:2] == ["qos", "mapping"] and len(words) == 7 and words[3] == "dscp":
                if words[4].isdigit() and words[5] == "switch-priority" and words[6].isdigit():
                    qos.dscp_sp.setdefault(words[2], {})[int(words[4])] = int(words[6])
            elif words[:3] == ["qos", "egress-queue-mapping", GLOBAL] and len(words) == 7:
                if words[3] == "switch-priority" and words[5] == "traffic-class" and words[4].isdigit():
                    qos.sp_tc[int(words[4])] = int(words[6]) if words[6].isdigit() else int(words[4])
            elif (
                words[:2] == ["qos", "congestion-control"] and len(words) == 7 and words[3] == "traffic-class"
            ):
                if words[4].isdigit():
                    qos.ecn.setdefault(words[2], {}).setdefault(int(words[4]), {})[words[5]] = words[6]
            elif words[:2] == ["qos", "pfc"] and len(words) == 5:
                profile = qos.pfc.setdefault(words[2], {"priorities": set(), "tx": "", "rx": ""})
                if words[3] == "switch-priority" and words[4].isdigit():
                    profile["priorities"].add(int(words[4]))  # type: ignore[attr-defined]
                elif words[3] in ("tx", "rx"):
                    profile[words[3]] = words[4]
            elif (
                words[:1] == ["interface"] and len(words) == 6 and words[2] == "qos" and words[4] == "profile"
            ):
                qos.interfaces.setdefault(words[1], {})[words[3]] = words[5]
            elif words[:1] == ["interface"] and len(words) == 5 and words[2:4] == ["link", "speed"]:
                qos.interfaces.setdefault(words[1], {})["speed"] = words[4]
        return qos

    def _profile(self, port: str, kind: str) -> str:
        return self.interfaces.get(port, {}).get(kind, GLOBAL)

    def switch_priority(self, port: str, dscp: int) -> int:
        return self.dscp_sp.get(self._profile(port, "mapping"), {}).get(dscp, 0)

    def traffic_class(self, priority: int) -> int:
        return self.sp_tc.get(priority, priority)

    def speed_gbps(self, port: str) -> float:
        match = _SPEED.match(self.interfaces.get(port, {}).get("speed", ""))
        return float(match[1]) if match else 0.0

    def ecn_min_bytes(self, port: str, tc: int) -> int | None:
        """The min threshold of the traffic class's ECN marking on `port`; None: it does not mark."""
        settings = self.ecn.get(self._profile(port, "congestion-control"), {}).get(tc, {})
        if settings.get("ecn") != "enable":
            return None
        threshold = settings.get("min-threshold", "0")
        return int(threshold) if threshold.isdigit() else 0

    def pfc_covers(self, port: str, priority: int, direction: str) -> bool:
        """Whether the port's PFC profile has the priority with `direction` (tx/rx) not disabled."""
        profile = self.pfc.get(self._profile(port, "pfc"))
        if profile is None:
            return False
        return priority in profile["priorities"] and profile[direction] != "disable"  # type: ignore[operator]


def apply_nvue_load(state: SwitchState, load: Load) -> Outcome:
    """Move a Cumulus `state`'s counters as the `nv set` lines it holds say this load would.
    The Outcome's `tc` is the switch priority, its `queue` the traffic class."""
    lines = state.config if isinstance(state.config, list) else []
    qos = NvueQos.from_lines([str(line) for line in lines])
    for port in (load.egress, *load.ingress):
        if port not in state.counters:
            raise ValueError(f"{state.hostname}: no port {port}")
    ingress = load.ingress or (load.egress,)
    priority = qos.switch_priority(ingress[0], load.dscp)
    tc = qos.traffic_class(priority)
    rate = qos.speed_gbps(load.egress)
    stalled = 0.0
    if load.stall_seconds > 0:
        add_counter(
            state,
            load.egress,
            "rx_pfc",
            priority,
            int(PAUSES_PER_SECOND * min(load.stall_seconds, load.seconds)),
        )
        if qos.pfc_covers(load.egress, priority, "rx"):
            stalled = min(load.stall_seconds, load.seconds)
    sent = int(min(load.offered_gbps, rate) * 1e9 / 8 * (load.seconds - stalled) / PACKET_BYTES)
    add_counter(state, load.egress, "tx_queue", tc, sent)
    excess_gbps = max(load.offered_gbps - rate, 0.0)
    backlog_bytes = excess_gbps * 1e9 / 8 * load.seconds
    marked, dropped, paused = 0, 0, []
    if excess_gbps > 0:
        threshold = qos.ecn_min_bytes(load.egress, tc)
        if threshold is not None and backlog_bytes > threshold:
            marked = int(sent * excess_gbps / load.offered_gbps)
            add_counter(state, load.egress, "ecn_marked", tc, marked)
        paused = [port for port in ingress if qos.pfc_covers(port, priority, "tx")]
        for port in paused:
            add_counter(state, port, "tx_pfc", priority, int(PAUSES_PER_SECOND * load.seconds))
        if len(paused) < len(ingress):
            dropped = int(backlog_bytes / PACKET_BYTES * (len(ingress) - len(paused)) / len(ingress))
            add_counter(state, load.egress, "tx_drop", tc, dropped)
    return Outcome(priority, tc, rate, marked, tuple(paused), dropped)
