"""A SIMULATION of what an incast does to a simulated SONiC switch's counters (LAB EQUIPMENT: no
buffer, no wire, no DCQCN loop; a few rules that make the counters move the way the switch's
running configuration says they should).

The lab has no RDMA NIC, so no real traffic ever crosses a simulator. This model stands in for it:
given the load offered to one egress port in one DSCP and the ports it enters by, it derives what
the switch would do from the CONFIG_DB the simulator holds (what was pushed to it, never gpunet's
design code), so a policy with ECN off or PFC on the wrong priority makes the incast checks fail:

- class: DSCP -> TC by the ingress port's PORT_QOS_MAP dscp_to_tc_map (DSCP_TO_TC_MAP; absent
  = TC 0), TC -> queue by the egress port's tc_to_queue_map (TC_TO_QUEUE_MAP; absent = the TC);
- the egress port drains at PORT speed (Mb/s); what is offered beyond it is the backlog rate;
- ECN marks on the egress queue only when QUEUE|<port>|<queue> names a WRED_PROFILE whose `ecn`
  is not ecn_none and the backlog of the test (excess bytes) passes its green_min_threshold:
  then a share (1 - rate/offered) of the packets sent on that queue is counted as marked;
- pause frames on the TC only where it is in the ingress port's PORT_QOS_MAP pfc_enable: the
  ingress ports send them (tx_pfc) to the senders; a lossless class drops nothing;
- otherwise the backlog is dropped on the egress queue (tx_drop): a queue meant to be lossless
  whose priority has no PFC loses packets under incast.

Counters are the simulator's (SwitchState.counters: eight integers per port each), in packets of
1024 bytes as every simulated queue counter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpunet.lab.switchsim.state import SwitchState

PACKET_BYTES = 1024
# Pause frames an ingress port sends per second of backlog (a 400G port under a 2x incast sends
# tens of thousands; the checks only ask for the sign).
PAUSES_PER_SECOND = 20_000


@dataclass(frozen=True)
class Load:
    """Traffic offered to one egress port of one switch in one DSCP for `seconds`."""

    egress: str
    ingress: tuple[str, ...]  # the ports it enters by (where PFC pauses leave towards the senders)
    dscp: int
    offered_gbps: float
    seconds: float


@dataclass(frozen=True)
class Outcome:
    """What the model decided, for the lab's log and the tests."""

    tc: int
    queue: int
    rate_gbps: float
    marked: int
    paused_ports: tuple[str, ...]
    dropped: int


def _table(config: dict[str, Any], name: str) -> dict[str, Any]:
    value = config.get(name, {})
    return value if isinstance(value, dict) else {}


def _mapped(config: dict[str, Any], table: str, port: str, field: str, key: int, default: int) -> int:
    map_name = _table(config, "PORT_QOS_MAP").get(port, {}).get(field)
    value = _table(config, table).get(str(map_name), {}).get(str(key))
    return int(value) if str(value).isdigit() else default


def _pfc_priorities(config: dict[str, Any], port: str) -> set[int]:
    enabled = str(_table(config, "PORT_QOS_MAP").get(port, {}).get("pfc_enable", ""))
    return {int(p) for p in enabled.split(",") if p.strip().isdigit()}


def _ecn_min_bytes(config: dict[str, Any], port: str, queue: int) -> int | None:
    """The green min threshold of the queue's ECN-marking WRED profile; None: the queue does not mark."""
    profile_name = _table(config, "QUEUE").get(f"{port}|{queue}", {}).get("wred_profile")
    profile = _table(config, "WRED_PROFILE").get(str(profile_name))
    if not isinstance(profile, dict) or profile.get("ecn", "ecn_none") == "ecn_none":
        return None
    threshold = str(profile.get("green_min_threshold", "0"))
    return int(threshold) if threshold.isdigit() else 0


def _add(state: SwitchState, port: str, counter: str, index: int, amount: int) -> None:
    values = state.counters[port].setdefault(counter, [0] * 8)
    values[index] += amount


def apply_load(state: SwitchState, load: Load) -> Outcome:
    """Move `state`'s counters as the SONiC config it holds says this load would."""
    if state.platform != "sonic":
        raise ValueError(f"{state.hostname}: the traffic model reads SONiC's CONFIG_DB, not {state.platform}")
    config: dict[str, Any] = state.config if isinstance(state.config, dict) else {}
    for port in (load.egress, *load.ingress):
        if port not in state.counters:
            raise ValueError(f"{state.hostname}: no port {port}")
    ingress = load.ingress or (load.egress,)
    tc = _mapped(config, "DSCP_TO_TC_MAP", ingress[0], "dscp_to_tc_map", load.dscp, 0)
    queue = _mapped(config, "TC_TO_QUEUE_MAP", load.egress, "tc_to_queue_map", tc, tc)
    speed = str(_table(config, "PORT").get(load.egress, {}).get("speed", "0"))
    rate = int(speed) / 1000 if speed.isdigit() else 0.0
    sent_gbps = min(load.offered_gbps, rate)
    sent = int(sent_gbps * 1e9 / 8 * load.seconds / PACKET_BYTES)
    _add(state, load.egress, "tx_queue", queue, sent)
    excess_gbps = max(load.offered_gbps - rate, 0.0)
    backlog_bytes = excess_gbps * 1e9 / 8 * load.seconds
    marked, dropped, paused = 0, 0, []
    if excess_gbps > 0:
        threshold = _ecn_min_bytes(config, load.egress, queue)
        if threshold is not None and backlog_bytes > threshold:
            marked = int(sent * excess_gbps / load.offered_gbps)
            _add(state, load.egress, "ecn_marked", queue, marked)
        lossless = [port for port in ingress if tc in _pfc_priorities(config, port)]
        for port in lossless:
            _add(state, port, "tx_pfc", tc, int(PAUSES_PER_SECOND * load.seconds))
        paused = lossless
        if len(lossless) < len(ingress):  # the share entering by ports without PFC on the TC is lost
            dropped = int(backlog_bytes / PACKET_BYTES * (len(ingress) - len(lossless)) / len(ingress))
            _add(state, load.egress, "tx_drop", queue, dropped)
    return Outcome(tc, queue, rate, marked, tuple(paused), dropped)


def rail_loads(rail: Any) -> dict[str, Load]:
    """The load one incast rail (gpunet.validate.incast.RailIncast, as incast/plan.json holds it)
    puts on the receiver's leaf, by switch: every sender's line rate into the receiver-edge port,
    entering by the senders' edge ports on that leaf, or by its uplinks for senders behind another
    leaf. Only the receiver's leaf is congested (the senders' ports carry their own line rate)."""
    edge = rail.receiver_port
    local = tuple(p.port for p in rail.path if p.role == "sender-edge" and p.switch == edge.switch)
    uplinks = tuple(p.port for p in rail.path if p.role == "receiver-uplink")
    dscp = (rail.traffic_class or 0) >> 2  # the TOS byte: DSCP << 2 | ECN
    offered = float(sum(s.gbps for s in rail.senders))
    return {edge.switch: Load(edge.port, local + uplinks, dscp, offered, float(rail.seconds))}
