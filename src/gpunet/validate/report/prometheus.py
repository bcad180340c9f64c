"""Prometheus text exposition of a verdict, for node_exporter's textfile collector.

Series (all gauges, base units as Prometheus' naming guide asks):
    gpunet_check_status{source,check,category,target,host,nic,rail,switch,port,status}  1 for
        the result's status, 0 for the other three (a state set: alerts match status="fail")
    gpunet_checks{source,status}                  results per status
    gpunet_validate_exit_code{source}             what gpunet-validate / gpunet node-check exit with
    gpunet_validate_timestamp_seconds{source}     when this report was written
`source` is "validate" or "node-check": both files may sit in one node_exporter's textfile folder,
and the collector refuses two series with the same name and labels.
    gpunet_pair_bandwidth_bytes_per_second{...}    ib_write_bw average per scheduled pair and rail
    gpunet_pair_line_rate_bytes_per_second{...}    the slower NIC's line rate of that pair
    gpunet_nccl_busbw_bytes_per_second{run}       nccl-tests peak out-of-place busbw
    gpunet_nccl_busbw_bound_bytes_per_second{run} the planner's bound for that run
    gpunet_ntp_offset_seconds{host}, gpunet_ntp_synchronised{host}
    gpunet_switch_pfc_pause_frames{switch,port,priority,direction}  after the traffic tests;
        priority="all" where the OS counts pause frames per port, not per priority
    gpunet_switch_queue_drop_packets{switch,port,queue}  queue drops after the tests (SONiC, EOS, Junos)
    gpunet_switch_ecn_marked_packets{switch,port,queue}  ECN (CE) marks per queue after the tests
        (EOS `show qos interfaces ecn counters queue`, Junos `show interfaces queue`)

Values are read through the same parsers the checks use; a file that is missing or unreadable
gives no value series (its check already says why), never a made-up zero.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Gauge, generate_latest, write_to_textfile

from gpunet.validate.artifacts import Artifacts, InputError
from gpunet.validate.checks.switch import per_queue
from gpunet.validate.checks.traffic import PairBandwidth, scheduled_pairs
from gpunet.validate.judge import Verdict
from gpunet.validate.manifest import Manifest, NicExpectation
from gpunet.validate.results import Result, Status, counts, exit_code

TARGET_LABELS = ("host", "nic", "rail", "switch", "port")
_GIGA = 1e9
# Gb/s as bytes per second: promtool's lint asks for bytes as the base unit of data.
_GBPS_AS_BYTES = _GIGA / 8
# Per-port PFC counters of each OS's show command (parsers in validate/parsers/switch_pfc.py).
_PORT_PAUSE_TOOLS = ("nxos-show-interface-pfc", "eos-show-pfc-counters")
# Per-queue counters of EOS and Junos: (drops, ECN marks) tools, read by the checks' own per_queue.
_QUEUE_TOOLS = {
    "eos": ("eos-show-interfaces-counters-queue", "eos-show-qos-ecn-counters-queue"),
    "junos": ("junos-show-interfaces-queue", "junos-show-interfaces-queue"),
}


VALIDATE = "validate"
NODE_CHECK = "node-check"


def render_prometheus(verdict: Verdict) -> str:
    return exposition(verdict.results, verdict.manifest, verdict.artifacts)


def exposition(
    results: list[Result], manifest: Manifest, artifacts: Path | None, source: str = VALIDATE
) -> str:
    return generate_latest(build_registry(results, manifest, artifacts, source)).decode()


def write_textfile(
    results: list[Result], manifest: Manifest, artifacts: Path | None, path: Path, source: str = VALIDATE
) -> None:
    """Write for the textfile collector: prometheus_client writes a temp file beside `path` and
    renames it, so node_exporter never reads a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), build_registry(results, manifest, artifacts, source))


def build_registry(
    results: list[Result], manifest: Manifest, artifacts: Path | None, source: str = VALIDATE
) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=True)
    _add_results(registry, results, manifest, source)
    if artifacts is not None:
        view = Artifacts(artifacts, manifest)
        _add_pairs(registry, view)
        _add_nccl(registry, view)
        _add_ntp(registry, view)
        _add_switch_counters(registry, view)
    return registry


def target_labels(target: str, manifest: Manifest) -> dict[str, str]:
    """host, nic, rail, switch, port of a result's target ("" where they do not apply). A pair
    target is labelled by its client end; a host:nic target also names the leaf port it is cabled to."""
    labels = dict.fromkeys(TARGET_LABELS, "")
    first = target.split("<->", 1)[0]
    device, _, part = first.partition(":")
    if device in manifest.hosts:
        labels["host"] = device
        nic = manifest.hosts[device].nic(part) if part else None
        if nic is not None:
            labels.update(_nic_labels(nic))
    elif device in manifest.switches:
        labels["switch"], labels["port"] = device, part
    return labels


def _nic_labels(nic: NicExpectation) -> dict[str, str]:
    return {"nic": nic.name, "rail": str(nic.rail), "switch": nic.switch, "port": nic.switch_port}


def _add_results(registry: CollectorRegistry, results: list[Result], manifest: Manifest, source: str) -> None:
    status = Gauge(
        "gpunet_check_status",
        "gpunet check result per check and target: 1 for its status, 0 for the others",
        ["source", "check", "category", "target", *TARGET_LABELS, "status"],
        registry=registry,
    )
    for result in results:
        labels = target_labels(result.target, manifest)
        for state in Status:
            status.labels(
                source=source,
                check=result.check,
                category=result.category,
                target=result.target,
                **labels,
                status=state,
            ).set(1 if result.status == state else 0)
    totals = Gauge(
        "gpunet_checks", "gpunet check results per status", ["source", "status"], registry=registry
    )
    for state, number in counts(results).items():
        totals.labels(source=source, status=state).set(number)
    Gauge(
        "gpunet_validate_exit_code",
        "exit code of the run: 0 passed, 3 a check could not run, 4 a check failed",
        ["source"],
        registry=registry,
    ).labels(source=source).set(exit_code(results))
    Gauge(
        "gpunet_validate_timestamp_seconds",
        "when gpunet wrote these results (Unix time)",
        ["source"],
        registry=registry,
    ).labels(source=source).set(time.time())


def _add_pairs(registry: CollectorRegistry, artifacts: Artifacts) -> None:
    names = ["host", "nic", "peer_host", "peer_nic", "rail", "switch", "port"]
    measured = Gauge(
        "gpunet_pair_bandwidth_bytes_per_second",
        "ib_write_bw average bandwidth of a scheduled pair on one rail",
        names,
        registry=registry,
    )
    line_rate = Gauge(
        "gpunet_pair_line_rate_bytes_per_second",
        "line rate of the slower NIC of a scheduled pair",
        names,
        registry=registry,
    )
    context = PairBandwidth(artifacts)
    for ends in scheduled_pairs(context):
        relative = artifacts.pair_file(
            ends.round, ends.client.name, ends.server.name, ends.client_nic.name, "ib_write_bw"
        )
        labels = {
            "host": ends.client.name,
            "nic": ends.client_nic.name,
            "peer_host": ends.server.name,
            "peer_nic": ends.server_nic.name,
            "rail": str(ends.client_nic.rail),
            "switch": ends.client_nic.switch,
            "port": ends.client_nic.switch_port,
        }
        line_rate.labels(**labels).set(context.line_rate(ends) * _GBPS_AS_BYTES)
        parsed = _read(artifacts, relative, "perftest")
        if parsed and parsed["results"] and parsed["results"][-1]["bw_avg_gbps"] is not None:
            measured.labels(**labels).set(parsed["results"][-1]["bw_avg_gbps"] * _GBPS_AS_BYTES)


def _add_nccl(registry: CollectorRegistry, artifacts: Artifacts) -> None:
    peak = Gauge(
        "gpunet_nccl_busbw_bytes_per_second",
        "nccl-tests peak out-of-place bus bandwidth of a run",
        ["run"],
        registry=registry,
    )
    bound = Gauge(
        "gpunet_nccl_busbw_bound_bytes_per_second",
        "the planner's bus bandwidth bound for a run",
        ["run"],
        registry=registry,
    )
    for run in artifacts.manifest.nccl_runs.values():
        bound.labels(run=run.name).set(run.bound_busbw_gbs * _GIGA)
        parsed = _read(artifacts, f"nccl/{run.name}.txt", "nccl-tests")
        rows = [row["out_of_place"]["busbw_gbs"] for row in (parsed or {}).get("rows", [])]
        rows = [value for value in rows if value is not None]
        if rows:
            peak.labels(run=run.name).set(max(rows) * _GIGA)


def _add_ntp(registry: CollectorRegistry, artifacts: Artifacts) -> None:
    offset = Gauge(
        "gpunet_ntp_offset_seconds", "chrony's system time offset (signed)", ["host"], registry=registry
    )
    synchronised = Gauge(
        "gpunet_ntp_synchronised", "1 when chrony says the clock is synchronised", ["host"], registry=registry
    )
    for host in artifacts.manifest.hosts:
        parsed = _read(artifacts, f"hosts/{host}/chronyc-tracking.txt", "chronyc-tracking")
        if parsed is None:
            continue
        offset.labels(host=host).set(parsed["system_time_offset_ms"] / 1000)
        synchronised.labels(host=host).set(1 if parsed["synchronised"] else 0)


def _add_switch_counters(registry: CollectorRegistry, artifacts: Artifacts) -> None:
    pause = Gauge(
        "gpunet_switch_pfc_pause_frames",
        "PFC pause frames a switch port received (rx) or sent (tx), read after the traffic tests",
        ["switch", "port", "priority", "direction"],
        registry=registry,
    )
    drops = Gauge(
        "gpunet_switch_queue_drop_packets",
        "packets a switch queue dropped, read after the traffic tests",
        ["switch", "port", "queue"],
        registry=registry,
    )
    ecn = Gauge(
        "gpunet_switch_ecn_marked_packets",
        "packets a switch queue marked with ECN (CE), read after the traffic tests",
        ["switch", "port", "queue"],
        registry=registry,
    )
    for switch in artifacts.manifest.switches:
        for port, priority, direction, value in _pause_counters(artifacts, switch):
            pause.labels(switch=switch, port=port, priority=priority, direction=direction).set(value)
        queues = _after(artifacts, switch, "sonic-show-queue-counters")
        for row in (queues or {}).get("queues", []):
            if row["drop_pkts"] is not None:
                drops.labels(switch=switch, port=row["port"], queue=row["queue"]).set(row["drop_pkts"])
        tools = _QUEUE_TOOLS.get(artifacts.manifest.switches[switch].platform)
        for gauge, counter, tool in zip((drops, ecn), ("drops", "ecn"), tools or (), strict=False):
            parsed = _after(artifacts, switch, tool)
            for (port, queue), value in (per_queue(parsed, counter) if parsed else {}).items():
                if value is not None:
                    gauge.labels(switch=switch, port=port, queue=str(queue)).set(value)


def _pause_counters(artifacts: Artifacts, switch: str) -> Iterator[tuple[str, str, str, int]]:
    sonic = _after(artifacts, switch, "sonic-show-pfc-counters")
    for direction in ("rx", "tx"):
        for port, per_priority in (sonic or {}).get(direction, {}).items():
            yield from (
                (port, str(prio), direction, value)
                for prio, value in enumerate(per_priority)
                if value is not None
            )
    for tool in _PORT_PAUSE_TOOLS:
        parsed = _after(artifacts, switch, tool)
        for port, row in (parsed or {}).get("interfaces", {}).items():
            yield from _rx_tx(port, "all", row)
    junos = _after(artifacts, switch, "junos-show-interfaces-extensive")
    for port, row in (junos or {}).get("interfaces", {}).items():
        for prio, counters in row.get("priorities", {}).items():
            yield from _rx_tx(port, str(prio), counters)


def _rx_tx(port: str, priority: str, row: dict[str, Any]) -> Iterable[tuple[str, str, str, int]]:
    return (
        (port, priority, direction, row[f"{direction}_pause"])
        for direction in ("rx", "tx")
        if row.get(f"{direction}_pause") is not None
    )


def _after(artifacts: Artifacts, switch: str, tool: str) -> dict[str, Any] | None:
    return _read(artifacts, f"switches/{switch}/after/{tool}.txt", tool)


def _read(artifacts: Artifacts, relative: str, tool: str) -> dict[str, Any] | None:
    try:
        return artifacts.parsed(relative, tool)
    except InputError:
        return None
