"""The reports' incast evidence, per rail: who received and who sent, each path port's counters
before and after the stage with their delta, the NICs' CNP counters, the receiver's bandwidth
against its line rate, the alltoall pattern's busbw against its floor, and each check's verdict;
a one-line verdict per rail first, for the person deciding whether a rollout continues. Values
only: the HTML and Markdown templates (templates/report/incast.*.j2) print them.

The counters are read with the incast checks' own readers (checks/incast.py), so the numbers shown
are the ones judged; a counter a check could not read is shown as "-" with the check's verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpunet.validate.artifacts import Artifacts, InputError
from gpunet.validate.checks.incast import (
    ECN_TOOLS,
    INCAST_CHECKS,
    NO_DROP_COUNTER,
    NO_PAUSE_COUNTER,
    IncastAlltoall,
    IncastBandwidth,
    IncastCnp,
    IncastEcnMarks,
    IncastLosslessDrops,
    IncastPfcPriority,
    IncastPfcWatchdog,
    read_plan,
)
from gpunet.validate.incast import PathPort, RailIncast
from gpunet.validate.judge import Verdict
from gpunet.validate.results import Result, Status

CHECKS = tuple(check.name for check in INCAST_CHECKS)
# A rail's verdict is its worst result.
_RANK = {Status.FAIL: 0, Status.ERROR: 1, Status.PASS: 2, Status.SKIPPED: 3, Status.NOT_CHECKED: 4}
NO_VALUE = "-"
NIC_COUNTERS = {
    "receiver": ("np_ecn_marked_roce_packets", "np_cnp_sent", "out_of_sequence"),
    "sender": ("rp_cnp_handled", "rp_cnp_ignored"),
}


@dataclass(frozen=True)
class Reading:
    """One counter of one port or NIC around the stage, and the verdict of the check judging it."""

    counter: str
    before: str
    after: str
    delta: str
    status: str  # a Status value, or "" where no check judged this counter here


@dataclass(frozen=True)
class PortView:
    target: str
    role: str
    readings: tuple[Reading, ...]


@dataclass(frozen=True)
class NicView:
    target: str
    role: str  # receiver or sender
    readings: tuple[Reading, ...]


@dataclass(frozen=True)
class CheckLine:
    check: str
    status: str
    actual: str  # the first problem's actual value, or a count of what passed


@dataclass(frozen=True)
class RailView:
    rail: int
    status: str
    headline: str
    receiver: str
    receiver_gbps: int
    senders: tuple[str, ...]
    oversubscription: float
    measured_gbps: float | None
    floor_gbps: float
    bandwidth_status: str
    alltoall: str  # the alltoall pattern's evidence, one line
    alltoall_status: str
    checks: tuple[CheckLine, ...]
    ports: tuple[PortView, ...]
    nics: tuple[NicView, ...]

    @property
    def bandwidth(self) -> str:
        floor = f"floor {self.floor_gbps:.1f} Gb/s ({self.floor_gbps / self.receiver_gbps:.0%})"
        if self.measured_gbps is None:
            return f"not measured (the senders' captures are unusable), {floor}"
        share = self.measured_gbps / self.receiver_gbps
        return (
            f"{self.measured_gbps:.1f} Gb/s received of a {self.receiver_gbps} Gb/s line rate ({share:.0%}),"
            f" {floor}"
        )

    @property
    def offered(self) -> str:
        return f"{len(self.senders)} senders offering {self.oversubscription:.2f}x the receiver's line rate"


def incast_view(verdict: Verdict) -> list[RailView]:
    """One view per rail of the stage's plan; empty where no incast check was judged or the plan
    cannot be read (the checks' own results say why)."""
    incast_results = [r for r in verdict.results if r.check in CHECKS]
    if not incast_results:
        return []
    try:
        plan = read_plan(verdict.artifacts)
    except InputError:
        return []
    if not plan:
        return []
    artifacts = Artifacts(verdict.artifacts, verdict.manifest)
    readers = _Readers(artifacts)
    by_target: dict[tuple[str, str], Result] = {(r.check, r.target): r for r in incast_results}
    return [_rail_view(rail, readers, by_target, verdict) for rail in plan]


class _Readers:
    """The incast checks over one artifacts folder, for their counter readers."""

    def __init__(self, artifacts: Artifacts) -> None:
        self.ecn = IncastEcnMarks(artifacts)
        self.pauses = IncastPfcPriority(artifacts)
        self.drops = IncastLosslessDrops(artifacts)
        self.watchdog = IncastPfcWatchdog(artifacts)
        self.bandwidth = IncastBandwidth(artifacts)
        self.alltoall = IncastAlltoall(artifacts)
        self.prio = artifacts.manifest.lossless_priority


def _rail_view(
    rail: RailIncast, readers: _Readers, by_target: dict[tuple[str, str], Result], verdict: Verdict
) -> RailView:
    targets = {p.target for p in rail.path} | {rail.receiver_target} | {s.target for s in rail.senders}
    mine = [r for (_, target), r in by_target.items() if target in targets]
    checks = tuple(_check_line(name, [r for r in mine if r.check == name]) for name in CHECKS)
    status = min((Status(line.status) for line in checks if line.status), key=_RANK.get, default=None)
    ports = tuple(_port_view(port, readers, by_target) for port in rail.path)
    nics = (_nic_view(rail.receiver_target, "receiver", readers, by_target),)
    nics += tuple(_nic_view(s.target, "sender", readers, by_target) for s in rail.senders)
    try:
        measured: float | None = readers.bandwidth.summed_gbps(rail)
    except (InputError, KeyError):
        measured = None
    bandwidth = by_target.get((IncastBandwidth.name, rail.receiver_target))
    fraction = verdict.manifest.thresholds.incast_min_fraction
    return RailView(
        rail=rail.rail,
        status=str(status) if status else str(Status.NOT_CHECKED),
        headline=_headline(rail, status, mine),
        receiver=rail.receiver_target,
        receiver_gbps=rail.receiver_gbps,
        senders=tuple(s.target for s in rail.senders),
        oversubscription=rail.oversubscription,
        measured_gbps=measured,
        floor_gbps=fraction * rail.receiver_gbps,
        bandwidth_status=str(bandwidth.status) if bandwidth else "",
        alltoall=_alltoall_text(rail, readers.alltoall),
        alltoall_status=_status(by_target, IncastAlltoall.name, rail.receiver_target),
        checks=checks,
        ports=ports,
        nics=nics,
    )


def _alltoall_text(rail: RailIncast, reader: IncastAlltoall) -> str:
    """nccl-tests alltoall across the rail's hosts: its busbw against the floor, or why there is none."""
    a2a = rail.alltoall
    if a2a is None:
        return "not planned (the plan predates the alltoall pattern)"
    floor = reader.floor_gbytes(rail)
    hosts = ", ".join(a2a.hosts)
    if (reason := reader.skip_reason(rail)) is not None:
        return f"not run across {hosts}: {reason}"
    try:
        busbw, wrong = reader.busbw_gbytes(rail)
    except (InputError, KeyError):
        return f"not measured across {hosts} (the capture is unusable), floor {floor:.2f} GB/s"
    share = busbw * 8 / a2a.gbps
    return (
        f"busbw {busbw:g} GB/s across {hosts} ({share:.0%} of {a2a.gbps} Gb/s), {wrong} wrong,"
        f" floor {floor:.2f} GB/s, {a2a.bytes} B x {a2a.iters} iterations"
    )


def _check_line(check: str, results: list[Result]) -> CheckLine:
    if not results:
        return CheckLine(check, "", "not judged on this rail")
    worst = min(results, key=lambda r: _RANK[r.status])
    if worst.status in (Status.FAIL, Status.ERROR):
        more = sum(r.status == worst.status for r in results) - 1
        detail = worst.actual if worst.status == Status.FAIL else worst.message
        extra = f" (+{more} more)" if more else ""
        return CheckLine(check, str(worst.status), f"{worst.target}: {detail}{extra}")
    counts = {s: sum(r.status == s for r in results) for s in (Status.PASS, Status.SKIPPED)}
    said = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return CheckLine(check, str(worst.status), said)


def _headline(rail: RailIncast, status: Status | None, results: list[Result]) -> str:
    """rail N: the verdict, and the first problem (which check, where, what it read) or the evidence."""
    if status is None:
        return f"rail {rail.rail}: not judged"
    problems = sorted(
        (r for r in results if r.status in (Status.FAIL, Status.ERROR)),
        key=lambda r: (_RANK[r.status], CHECKS.index(r.check)),
    )
    if problems:
        first = problems[0]
        detail = first.actual if first.status == Status.FAIL else first.message
        more = f"; {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""
        return f"rail {rail.rail}: {first.status.upper()} - {first.check} at {first.target}: {detail}{more}"
    judged = sum(r.status == Status.PASS for r in results)
    skipped = sum(r.status == Status.SKIPPED for r in results)
    return (
        f"rail {rail.rail}: {status.upper()} - {len(rail.senders)} senders into {rail.receiver_target},"
        f" {judged} results as expected, {skipped} skipped (no counter collected on that OS)"
    )


def _pair(before: int | None, after: int | None) -> tuple[str, str, str]:
    if before is None or after is None:
        return (_text(before), _text(after), NO_VALUE)
    return (str(before), str(after), f"{after - before:+d}")


def _text(value: int | None) -> str:
    return NO_VALUE if value is None else str(value)


def _status(by_target: dict[tuple[str, str], Result], check: str, target: str) -> str:
    result = by_target.get((check, target))
    return str(result.status) if result else ""


def _read(reader: Callable[[], Any]) -> Any:
    """A reader's value, or None where its input is missing or unreadable (the check says why)."""
    try:
        return reader()
    except (InputError, KeyError, TypeError, ValueError):
        return None


def _port_view(port: PathPort, readers: _Readers, by_target: dict[tuple[str, str], Result]) -> PortView:
    prio = readers.prio
    platform = readers.ecn.platform(port)
    readings = []
    ecn = _read(lambda: readers.ecn.readings(port)) if platform in ECN_TOOLS else None
    # Every port's marks are shown; only the receiver's edge is judged on them (the others: no verdict).
    readings.append(
        Reading(
            f"ECN marks q{prio}",
            *_pair(*(ecn or (None, None))),
            _status(by_target, IncastEcnMarks.name, port.target),
        )
    )
    pauses = None
    if platform is not None and platform not in NO_PAUSE_COUNTER:
        pauses = _read(lambda: readers.pauses.readings(port))
    before, after = pauses or (None, None)
    pause_status = _status(by_target, IncastPfcPriority.name, port.target)
    readings.append(
        Reading(
            f"PFC pauses p{prio}",
            *_pair(_get(before, prio), _get(after, prio)),
            pause_status,
        )
    )
    others = sorted({p for side in (before, after) if side for p in side} - {prio})
    readings.append(
        Reading(
            "PFC pauses other priorities",
            *_pair(_sum(before, others), _sum(after, others)),
            pause_status,
        )
    )
    drops = None
    if platform is not None and platform not in NO_DROP_COUNTER:
        drops = _read(lambda: readers.drops.readings(port))
    readings.append(
        Reading(
            f"lossless drops q{prio}",
            *_pair(*(drops or (None, None))),
            _status(by_target, IncastLosslessDrops.name, port.target),
        )
    )
    storms = _read(lambda: readers.watchdog.readings(port)) if platform in ("eos", "sonic") else None
    (stuck_before, _), (stuck_after, state) = storms or ((None, ""), (None, ""))
    before_text, after_text, delta = _pair(stuck_before, stuck_after)
    after_text += f" ({state})" if state else ""  # SONiC's queue status: stormed or operational
    readings.append(
        Reading(
            f"watchdog storms q{prio}",
            before_text,
            after_text,
            delta,
            _status(by_target, IncastPfcWatchdog.name, port.target),
        )
    )
    return PortView(port.target, port.role, tuple(readings))


def _get(side: dict[int, int] | None, priority: int) -> int | None:
    return None if side is None else side.get(priority, 0)


def _sum(side: dict[int, int] | None, priorities: list[int]) -> int | None:
    return None if side is None else sum(side.get(p, 0) for p in priorities)


# Which check judges each NIC counter (out_of_sequence: the receiver saw no loss).
_NIC_CHECK = {
    "np_ecn_marked_roce_packets": IncastEcnMarks.name,
    "np_cnp_sent": IncastCnp.name,
    "out_of_sequence": IncastLosslessDrops.name,
    "rp_cnp_handled": IncastCnp.name,
    "rp_cnp_ignored": IncastCnp.name,
}


def _nic_view(target: str, role: str, readers: _Readers, by_target: dict[tuple[str, str], Result]) -> NicView:
    host, _, nic = target.partition(":")
    readings = []
    for counter in NIC_COUNTERS[role]:
        values = _read(lambda c=counter: readers.ecn.nic_values(host, nic, (c,))[c])
        status = _status(by_target, _NIC_CHECK[counter], target)
        readings.append(Reading(counter, *_pair(*(values or (None, None))), status))
    return NicView(target, role, tuple(readings))
