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
  whose priority has no PFC loses packets under incast;
- a receiver that stops draining (Load.stall_seconds: its NIC pauses the egress port's TC back to
  back) makes the egress port count the pause frames it receives (rx_pfc) and send nothing on the
  queue meanwhile, where the TC is PFC-enabled there (otherwise the switch ignores the pauses).
  SONiC's PFC watchdog then declares a storm on the queue once it has stayed paused without
  transmitting for the port's PFC_WD detection_time: the detection script counts down the
  detection time per poll while the queue holds packets, transmitted none since the last poll and
  received pause frames (sonic-net/sonic-mgmt tests/pfcwd/files/pfc_detect_mellanox.lua at
  83b155f, the copy of sonic-swss's orchagent script it tests with). The watched queues are the
  PFC-enabled priorities of the ports PFC_WD lists (sonic-utilities pfcwd/main.py at 691b1bb
  writes PFC_WD only for ports with pfc_enable); a storm counts one STORM DETECTED
  (pfc_wd_stuck; PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED), and with action drop (the default) every
  packet that reaches the queue from detection to the end of the stall is dropped by the
  watchdog (pfc_wd_tx_drop, `show pfcwd stats` TX OK/DROP: "all subsequent packets destined to the
  output queue are discarded", sonic-mgmt docs/pfcwd/PFCWD_MMU_Change.md). It is RESTORED
  (pfc_wd_recovered) when no pause frame arrives for restoration_time: here when the run goes on
  that long after the stall. A stall shorter than detection_time, or a port PFC_WD does not
  list, gives no storm (the queue just stays paused, and the senders see it in their bandwidth).

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
# SONiC's defaults where a PFC_WD entry leaves them out (sonic-utilities pfcwd/main.py at 691b1bb:
# DEFAULT_DETECTION_TIME, and restoration twice the detection time as `pfcwd start` writes it).
DEFAULT_DETECTION_MS = 200


@dataclass(frozen=True)
class Load:
    """Traffic offered to one egress port of one switch in one DSCP for `seconds`."""

    egress: str
    ingress: tuple[str, ...]  # the ports it enters by (where PFC pauses leave towards the senders)
    dscp: int
    offered_gbps: float
    seconds: float
    # How long the receiver behind the egress port keeps it paused: it stopped draining (0: it drains).
    stall_seconds: float = 0.0


@dataclass(frozen=True)
class Outcome:
    """What the model decided, for the lab's log and the tests."""

    tc: int
    queue: int
    rate_gbps: float
    marked: int
    paused_ports: tuple[str, ...]
    dropped: int
    storm: bool = False  # the PFC watchdog declared a storm on the egress queue
    watchdog_dropped: int = 0


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


def add_counter(state: SwitchState, port: str, counter: str, index: int, amount: int) -> None:
    """Add `amount` to entry `index` of the port's eight-integer `counter` (made where absent)."""
    values = state.counters[port].setdefault(counter, [0] * 8)
    values[index] += amount


# The platforms apply_load models; it refuses the others.
MODELLED_PLATFORMS = ("sonic", "cumulus")


def apply_load(state: SwitchState, load: Load) -> Outcome:
    """Move `state`'s counters as the SONiC config it holds says this load would (a Cumulus
    switch's: as its `nv set` lines say, gpunet.lab.switchsim.traffic_nvue)."""
    if state.platform == "cumulus":
        from gpunet.lab.switchsim.traffic_nvue import apply_nvue_load

        return apply_nvue_load(state, load)
    if state.platform != "sonic":
        raise ValueError(
            f"{state.hostname}: the traffic model reads SONiC's CONFIG_DB or NVUE's lines,"
            f" not {state.platform}"
        )
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
    stalled = _stalled_seconds(config, load, tc)
    sent = int(sent_gbps * 1e9 / 8 * (load.seconds - stalled) / PACKET_BYTES)
    add_counter(state, load.egress, "tx_queue", queue, sent)
    excess_gbps = max(load.offered_gbps - rate, 0.0)
    backlog_bytes = excess_gbps * 1e9 / 8 * load.seconds
    marked, dropped, paused = 0, 0, []
    if excess_gbps > 0:
        threshold = _ecn_min_bytes(config, load.egress, queue)
        if threshold is not None and backlog_bytes > threshold:
            marked = int(sent * excess_gbps / load.offered_gbps)
            add_counter(state, load.egress, "ecn_marked", queue, marked)
        lossless = [port for port in ingress if tc in _pfc_priorities(config, port)]
        for port in lossless:
            add_counter(state, port, "tx_pfc", tc, int(PAUSES_PER_SECOND * load.seconds))
        paused = lossless
        if len(lossless) < len(ingress):  # the share entering by ports without PFC on the TC is lost
            dropped = int(backlog_bytes / PACKET_BYTES * (len(ingress) - len(lossless)) / len(ingress))
            add_counter(state, load.egress, "tx_drop", queue, dropped)
    storm, watchdog_dropped = _watchdog(state, config, load, tc, queue, stalled)
    return Outcome(tc, queue, rate, marked, tuple(paused), dropped, storm, watchdog_dropped)


def _stalled_seconds(config: dict[str, Any], load: Load, tc: int) -> float:
    """How long the egress queue honours the receiver's pauses: the stall, where its TC has PFC there."""
    if load.stall_seconds <= 0 or tc not in _pfc_priorities(config, load.egress):
        return 0.0
    return min(load.stall_seconds, load.seconds)


def _watchdog(
    state: SwitchState, config: dict[str, Any], load: Load, tc: int, queue: int, stalled: float
) -> tuple[bool, int]:
    """The pause frames the stalled receiver sent, and SONiC's PFC watchdog on the egress queue:
    (a storm was detected, packets the watchdog dropped)."""
    if load.stall_seconds <= 0:
        return False, 0
    paused_s = min(load.stall_seconds, load.seconds)
    add_counter(state, load.egress, "rx_pfc", tc, int(PAUSES_PER_SECOND * paused_s))
    entry = _table(config, "PFC_WD").get(load.egress)
    if not stalled or not isinstance(entry, dict):
        return False, 0
    detection = _milliseconds(entry.get("detection_time"), DEFAULT_DETECTION_MS)
    if stalled * 1000 < detection:
        return False, 0
    add_counter(state, load.egress, "pfc_wd_stuck", queue, 1)
    dropped = 0
    if entry.get("action", "drop") == "drop":
        after_detection = stalled - detection / 1000
        dropped = int(load.offered_gbps * 1e9 / 8 * after_detection / PACKET_BYTES)
        add_counter(state, load.egress, "pfc_wd_tx_drop", queue, dropped)
    restoration = _milliseconds(entry.get("restoration_time"), 2 * detection)
    if (load.seconds - stalled) * 1000 >= restoration:
        add_counter(state, load.egress, "pfc_wd_recovered", queue, 1)
    return True, dropped


def _milliseconds(value: Any, default: int) -> int:
    return int(value) if str(value).isdigit() else default


def rail_loads(rail: Any, stall_seconds: float = 0.0) -> dict[str, Load]:
    """The load one incast rail (gpunet.validate.incast.RailIncast, as incast/plan.json holds it)
    puts on the receiver's leaf, by switch: every sender's line rate into the receiver-edge port,
    entering by the senders' edge ports on that leaf, or by its uplinks for senders behind another
    leaf. Only the receiver's leaf is congested (the senders' ports carry their own line rate).
    `stall_seconds`: the receiver stops draining for that long (a stuck host: a storm scenario)."""
    edge = rail.receiver_port
    local = tuple(p.port for p in rail.path if p.role == "sender-edge" and p.switch == edge.switch)
    uplinks = tuple(p.port for p in rail.path if p.role == "receiver-uplink")
    dscp = (rail.traffic_class or 0) >> 2  # the TOS byte: DSCP << 2 | ECN
    offered = float(sum(s.gbps for s in rail.senders))
    seconds = float(rail.seconds)
    return {edge.switch: Load(edge.port, local + uplinks, dscp, offered, seconds, stall_seconds)}
