"""Prometheus text exposition of a verdict, for node_exporter's textfile collector.

Series (all gauges, base units as Prometheus' naming guide asks). `source` is "validate" or
"node-check": both files may sit in one node_exporter's textfile folder, and the collector
refuses two series with the same name and labels.

Verdict:
    gpunet_check_status{source,check,category,target,host,nic,rail,switch,port,status}  1: one
        series per result that failed (status="fail") or could not run (status="error")
    gpunet_check_results{source,check,status}     results per check and status, zeros included
    gpunet_checks{source,status}                  results per status
    gpunet_validate_exit_code{source}             what gpunet-validate / gpunet node-check exit with
    gpunet_validate_timestamp_seconds{source}     when this report was written
Measured values, as the checks read them while judging (none with `failures_only`):
    gpunet_pair_bandwidth_bytes_per_second{host,nic,peer_host,peer_nic,rail,switch,port}
        ib_write_bw average per scheduled pair and rail, and
    gpunet_pair_line_rate_bytes_per_second{...}   the slower NIC's line rate of that pair
    gpunet_nccl_busbw_bytes_per_second{run}       nccl-tests peak out-of-place busbw
    gpunet_nccl_busbw_bound_bytes_per_second{run} the planner's bound for that run
    gpunet_ntp_offset_seconds{host}, gpunet_ntp_synchronised{host}
    gpunet_switch_pfc_pause_frames{switch,port,priority,direction}  on each lossless port, the
        lossless priority's (priority="all" on NX-OS, which counts per port)
    gpunet_switch_queue_drop_packets{switch,port,queue}  the lossless queue's (SONiC, EOS, Junos)
    gpunet_switch_ecn_marked_packets{switch,port,queue}  the lossless queue's (EOS, Junos)
Switch counters are as read after the traffic tests.

Why no series for a passing result, and switch counters only where the fabric is lossless: a
state set of every result (4 series each) and every queue and priority of every port were 7
million series and 918 MiB at 4,096 hosts. What an alert or a dashboard asks is which targets have
a problem (gpunet-alerts.yml matches status="fail"), how many passed (gpunet_check_results), and
the lossless class's counters. What is left grows with NICs and lossless ports: 2 series per
scheduled pair, 2 per host and NCCL run, 2-3 per lossless switch port.

A value that was not read (file missing or unreadable, "N/A" in the output) has no series (its
check already says why), never a made-up zero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from gpunet.validate.checks.traffic import PairMeasurement
from gpunet.validate.judge import Verdict
from gpunet.validate.manifest import Manifest, NicExpectation
from gpunet.validate.report.exposition import (
    Family,
    MadeSamples,
    Sample,
    exposition_chunks,
    exposition_text,
    write_atomically,
)
from gpunet.validate.report.grouping import counts_per_check
from gpunet.validate.results import Measurement, Result, Status, counts, exit_code

TARGET_LABELS = ("host", "nic", "rail", "switch", "port")
# Gb/s as bytes per second: promtool's lint asks for bytes as the base unit of data.
_GBPS_AS_BYTES = 1e9 / 8
# The results that get a status series: the ones an operator acts on.
PROBLEMS = (Status.FAIL, Status.ERROR)
# Platforms whose pause counters are per port, not per priority.
_PER_PORT_PAUSE = ("nxos",)

VALIDATE = "validate"
NODE_CHECK = "node-check"


def render_prometheus(verdict: Verdict, failures_only: bool = False) -> str:
    return "".join(prometheus_chunks(verdict, failures_only))


def prometheus_chunks(verdict: Verdict, failures_only: bool = False) -> Iterator[str]:
    """`render_prometheus` in pieces, for `write_textfile` or a stream."""
    found = families(
        verdict.results, verdict.manifest, verdict.measurements, verdict.pairs, VALIDATE, failures_only
    )
    return exposition_chunks(found)


def exposition(
    results: list[Result],
    manifest: Manifest,
    measurements: Iterable[Measurement] = (),
    pairs: Iterable[PairMeasurement] = (),
    source: str = VALIDATE,
    failures_only: bool = False,
) -> str:
    return exposition_text(families(results, manifest, measurements, pairs, source, failures_only))


def families(
    results: list[Result],
    manifest: Manifest,
    measurements: Iterable[Measurement] = (),
    pairs: Iterable[PairMeasurement] = (),
    source: str = VALIDATE,
    failures_only: bool = False,
) -> list[Family]:
    """Every series of the module docstring, as gauge families (measured ones unless failures_only)."""
    found = _verdict_families(results, manifest, source)
    if not failures_only:
        found += _pair_families(pairs, manifest) + _measured_families(measurements, manifest)
    return found


def write_textfile(path: Path, text: str | Iterable[str]) -> None:
    """Write for the textfile collector, atomically (the collector may read at any moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, text)


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


def _verdict_families(results: list[Result], manifest: Manifest, source: str) -> list[Family]:
    status = Family(
        "gpunet_check_status",
        "gpunet check result that failed (status fail) or could not run (status error): 1",
        ("source", "check", "category", "target", *TARGET_LABELS, "status"),
    )
    for result in results:
        if result.status in PROBLEMS:
            labels = target_labels(result.target, manifest)
            status.add(
                (
                    source,
                    result.check,
                    result.category,
                    result.target,
                    *(labels[name] for name in TARGET_LABELS),
                    str(result.status),
                ),
                1,
            )
    per_check = Family(
        "gpunet_check_results", "gpunet check results per check and status", ("source", "check", "status")
    )
    for check, tally in counts_per_check(results).items():
        for state, number in tally.items():
            per_check.add((source, check, str(state)), number)
    totals = Family("gpunet_checks", "gpunet check results per status", ("source", "status"))
    for state, number in counts(results).items():
        totals.add((source, state), number)
    code = Family(
        "gpunet_validate_exit_code",
        "exit code of the run: 0 passed, 3 a check could not run, 4 a check failed",
        ("source",),
        [((source,), exit_code(results))],
    )
    stamp = Family(
        "gpunet_validate_timestamp_seconds",
        "when gpunet wrote these results (Unix time)",
        ("source",),
        [((source,), time.time())],
    )
    return [status, per_check, totals, code, stamp]


_PAIR_LABELS = ("host", "nic", "peer_host", "peer_nic", "rail", "switch", "port")


def _pair_families(pairs: Iterable[PairMeasurement], manifest: Manifest) -> list[Family]:
    """Two samples a scheduled pair (131,072 pairs at 16,384 hosts), made as they are written."""
    nic_of_rail = {(host.name, nic.rail): nic for host in manifest.hosts.values() for nic in host.nics}
    pairs = list(pairs)

    def labelled() -> Iterator[tuple[tuple[str, ...], PairMeasurement]]:
        for pair in pairs:
            client = nic_of_rail.get((pair.client, pair.rail))
            server = nic_of_rail.get((pair.server, pair.rail))
            if client is not None and server is not None:
                yield (
                    (
                        pair.client,
                        client.name,
                        pair.server,
                        server.name,
                        str(pair.rail),
                        client.switch,
                        client.switch_port,
                    ),
                    pair,
                )

    def measured() -> Iterator[Sample]:
        return ((labels, pair.gbps * _GBPS_AS_BYTES) for labels, pair in labelled() if pair.gbps is not None)

    def line_rate() -> Iterator[Sample]:
        return ((labels, pair.line_rate_gbps * _GBPS_AS_BYTES) for labels, pair in labelled())

    return [
        Family(
            "gpunet_pair_bandwidth_bytes_per_second",
            "ib_write_bw average bandwidth of a scheduled pair on one rail",
            _PAIR_LABELS,
            MadeSamples(measured),
        ),
        Family(
            "gpunet_pair_line_rate_bytes_per_second",
            "line rate of the slower NIC of a scheduled pair",
            _PAIR_LABELS,
            MadeSamples(line_rate),
        ),
    ]


def _measured_families(measurements: Iterable[Measurement], manifest: Manifest) -> list[Family]:
    """The measured values' families; each family's samples made from the measurements as it is
    written (2 million at 16,384 hosts, most of them switch counters)."""
    # One pass sorts them by check (a list of references, not of samples), so each family reads
    # its own check's measurements, not all of them.
    by_check: dict[str, list[Measurement]] = {}
    for measurement in measurements:
        by_check.setdefault(measurement[0], []).append(measurement)
    lossless = str(manifest.lossless_priority)
    priority_of = {
        name: "all" if switch.platform in _PER_PORT_PAUSE else lossless
        for name, switch in manifest.switches.items()
    }

    def read(check: str, quantity: str | None = None) -> Iterator[tuple[str, str, float]]:
        """(target, quantity, value) of `check`'s measurements (of `quantity` only, if given)."""
        for _, target, measured, value in by_check.get(check, ()):
            if quantity is None or measured == quantity:
                yield target, measured, value

    def per_host(quantity: str) -> Callable[[], Iterator[Sample]]:
        return lambda: (((target,), value) for target, _, value in read("ntp_offset", quantity))

    def busbw() -> Iterator[Sample]:
        return (((target.removeprefix("nccl:"),), value) for target, _, value in read("nccl_busbw"))

    def pauses() -> Iterator[Sample]:
        for target, quantity, value in read("switch_pfc"):
            switch, _, port = target.partition(":")
            direction = quantity.partition("_")[0]  # rx_pause_frames, tx_pause_frames
            yield (switch, port, priority_of.get(switch, lossless), direction), value

    def lossless_queue(check: str) -> Callable[[], Iterator[Sample]]:
        def made() -> Iterator[Sample]:
            for target, _, value in read(check):
                switch, _, port = target.partition(":")
                yield (switch, port, lossless), value

        return made

    bound = Family(
        "gpunet_nccl_busbw_bound_bytes_per_second", "the planner's bus bandwidth bound for a run", ("run",)
    )
    for run in manifest.nccl_runs.values():
        bound.add((run.name,), run.bound_busbw_gbs * 1e9)
    return [
        Family(
            "gpunet_nccl_busbw_bytes_per_second",
            "nccl-tests peak out-of-place bus bandwidth of a run",
            ("run",),
            MadeSamples(busbw),
        ),
        bound,
        Family(
            "gpunet_ntp_offset_seconds",
            "chrony's system time offset (signed)",
            ("host",),
            MadeSamples(per_host("offset_seconds")),
        ),
        Family(
            "gpunet_ntp_synchronised",
            "1 when chrony says the clock is synchronised",
            ("host",),
            MadeSamples(per_host("synchronised")),
        ),
        Family(
            "gpunet_switch_pfc_pause_frames",
            "PFC pause frames a lossless switch port received (rx) or sent (tx) on the lossless priority, "
            "read after the traffic tests",
            ("switch", "port", "priority", "direction"),
            MadeSamples(pauses),
        ),
        Family(
            "gpunet_switch_queue_drop_packets",
            "packets the lossless queue of a switch port dropped, read after the traffic tests",
            ("switch", "port", "queue"),
            MadeSamples(lossless_queue("lossless_queue_drops")),
        ),
        Family(
            "gpunet_switch_ecn_marked_packets",
            "packets the lossless queue of a switch port marked with ECN (CE), read after the traffic tests",
            ("switch", "port", "queue"),
            MadeSamples(lossless_queue("switch_ecn")),
        ),
    ]
