"""The incast checks judge recorded counters of the stage: a good incast passes on every OS whose
counters are read, and each broken fabric fails exactly the check (and the port or NIC) that says so.

The artifacts are built from the prod inventory (one rail per leaf: NX-OS, EOS, Cumulus, SONiC,
Junos) and its incast plan; switch captures are printed by the simulator's formatters (the formats
the validation parsers read, as the healthy fixture's are), NIC counters in the `grep -H .` sysfs
form, sender captures in perftest's own layout with the command line ahead of them, and each
rail's alltoall_perf capture in nccl-tests' layout (ALLTOALL_PERF: no alltoall run was recorded
for this fabric, so the capture is written in the 2.x format the nccl-tests parser reads, its
mpirun line first as the stage saves it).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from gpunet.collect.switch_show import PORT_COMMANDS, phase_commands, port_capture
from gpunet.lab.switchsim.personalities import cumulus_incast
from gpunet.lab.switchsim.personalities.queue_counters import (
    eos_counters_queue_json,
    eos_ecn_counters_queue_json,
    junos_interfaces_queue,
)
from gpunet.lab.switchsim.personalities.showpfc import (
    eos_pfc_counters_detail_json,
    eos_pfc_watchdog_json,
    junos_pfc,
    sonic_pfc_counters,
    sonic_queue_counters,
)
from gpunet.lab.switchsim.state import SwitchState
from gpunet.model.check import load_fabric
from gpunet.validate.checks import CHECKS, Catalog
from gpunet.validate.checks.incast import INCAST_CHECKS
from gpunet.validate.incast import AFTER, BEFORE, PLAN_FILE, RailIncast, incast_plan, plan_document
from gpunet.validate.judge import judge
from gpunet.validate.manifest import Manifest, build_manifest
from gpunet.validate.parsers.sonic import NAMESPACED_TOOLS
from gpunet.validate.results import Result, Status
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_sonic_pfcwd_parser import pfcwd_stats
from tests.unit.validate.test_sonic_wred_parser import wredstat

NAMES = [check.name for check in INCAST_CHECKS]
PRIO = 3
# The mlx5 port counters (drivers/infiniband/hw/mlx5/counters.c), in sysfs's (alphabetical) order.
MLX5_COUNTERS = (
    "duplicate_request",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "np_cnp_sent",
    "np_ecn_marked_roce_packets",
    "out_of_buffer",
    "out_of_sequence",
    "packet_seq_err",
    "rnr_nak_retry_err",
    "rp_cnp_handled",
    "rp_cnp_ignored",
    "rx_atomic_requests",
    "rx_read_requests",
    "rx_write_requests",
)
WRITE_BW = """---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF          Device         : {nic}
 Number of qps   : 4            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 PCIe relax order: ON
 TX depth        : 128
 CQ Moderation   : 1
 Mtu             : 4096[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 0[B]
 rdma_cm QPs     : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      3662109          {peak:.2f}             {avg:.2f}              {rate:.6f}
---------------------------------------------------------------------------------------
"""
# nccl-tests 2.x alltoall_perf, one rank a host (src/util.cu writeDeviceReport, writeResultHeader;
# alltoall prints N/A for the in-place #wrong, src/alltoall.cu reports no in-place errors), with
# {fields} for what a rail's run sets.
ALLTOALL_PERF = (REPO_ROOT / "tests" / "fixtures" / "incast" / "alltoall_perf.txt.in").read_text()


def alltoall_capture(rail: RailIncast, busbw: float, wrong: int = 0, tclass: int | None = None) -> str:
    """The rail's alltoall_perf capture as the stage saves it: `busbw` GB/s at the plan's size."""
    a2a = rail.alltoall
    assert a2a is not None
    ranks = len(a2a.hosts)
    algbw = busbw * ranks / (ranks - 1)  # src/alltoall.cu AlltoAllGetBw
    lines = "\n".join(
        f"#  Rank {i:2d} Group  0 Pid {4100 + i:6d} on {host} device  0 [0000:18:00] NVIDIA H100 80GB HBM3"
        for i, host in enumerate(a2a.hosts)
    )
    env = a2a.env(rail.traffic_class if tclass is None else tclass)
    command = ["mpirun", "-np", str(ranks), "-H", ",".join(f"{h}:1" for h in a2a.hosts)]
    command += [word for name, value in env.items() for word in ("-x", f"{name}={value}")]
    command += ["/opt/nccl-tests/current/alltoall_perf", "-g", "1", *a2a.args()]
    body = ALLTOALL_PERF.format(
        size=a2a.bytes,
        count=a2a.bytes // 4 // ranks,
        iters=a2a.iters,
        ranks=lines,
        time=a2a.bytes / algbw / 1e3,
        algbw=algbw,
        busbw=busbw,
        wrong=wrong,
    )
    return "$ " + shlex.join(command) + "\n" + body


@dataclass
class Incast:
    """What the stage's counters moved by, per rail (defaults: a good incast)."""

    ecn_marks: int = 52_113  # receiver-edge port, lossless queue
    ce_received: int = 48_020  # receiver NIC np_ecn_marked_roce_packets
    cnp_sent: int = 47_990
    cnp_handled: int = 23_900  # each sender
    pause_priority: int = PRIO  # the priority the switch paused senders on
    pauses: int = 1_520
    drops: int = 0  # receiver-edge lossless queue
    out_of_sequence: int = 0
    watchdog_stuck: int = 0
    sender_gbps: float = 190.4
    tclass: int | None = None  # None: the manifest's lossless class
    backwards: bool = False  # the receiver's np_cnp_sent lower after than before
    alltoall_busbw: float = 41.3  # GB/s per rank (of 50 at 400G)
    alltoall_wrong: int = 0
    alltoall_tclass: int | None = None  # None: the plan's class
    only_rails: set[int] = field(default_factory=set)  # where the fault is (empty: every rail)


@pytest.fixture(scope="module")
def prod() -> tuple[Manifest, list[RailIncast]]:
    fabric = load_fabric(REPO_ROOT / "inventories" / "prod")
    return build_manifest(fabric), incast_plan(fabric)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _artifacts(
    folder: Path, manifest: Manifest, plan: list[RailIncast], fault: Incast, sonic_asics: int = 1
) -> Path:
    """The stage's artifacts; `sonic_asics` > 1: each SONiC switch's incast captures as a switch
    of that many ASICs prints them without -n (_printed_without_n)."""
    good = Incast()
    manifest.write(folder)
    _write(folder / PLAN_FILE, json.dumps(plan_document(plan)))

    def on(rail: RailIncast) -> Incast:
        return fault if not fault.only_rails or rail.rail in fault.only_rails else good

    nic_moves: dict[tuple[str, str], dict[str, int]] = {}
    switch_moves: dict[str, dict[str, dict[str, list[int]]]] = {}
    for rail in plan:
        case = on(rail)
        _write(
            folder / rail.alltoall_capture,
            alltoall_capture(rail, case.alltoall_busbw, case.alltoall_wrong, case.alltoall_tclass),
        )
        nic_moves[(rail.receiver, rail.receiver_nic)] = {
            "np_ecn_marked_roce_packets": case.ce_received,
            "np_cnp_sent": -5 if case.backwards else case.cnp_sent,
            "out_of_sequence": case.out_of_sequence,
            "rx_write_requests": 9_000_000,
        }
        receiver_edge = rail.receiver_port
        ports = switch_moves.setdefault(receiver_edge.switch, {})
        ports[receiver_edge.port] = {
            "tx_queue": [12] * 8,
            "ecn_marked": [case.ecn_marks if q == PRIO else 0 for q in range(8)],
            "tx_drop": [case.drops if q == PRIO else 0 for q in range(8)],
            "pfc_wd_stuck": [case.watchdog_stuck if q == PRIO else 0 for q in range(8)],
        }
        ports[receiver_edge.port]["tx_queue"][PRIO] = 7_300_000
        for sender in rail.senders:
            nic_moves[(sender.host, sender.nic)] = {"rp_cnp_handled": case.cnp_handled, "rp_cnp_ignored": 0}
            edge = next(
                p for p in rail.path if p.role == "sender-edge" and p.port == _nic_port(manifest, sender)
            )
            switch_moves.setdefault(edge.switch, {})[edge.port] = {
                "tx_pfc": [case.pauses if q == case.pause_priority else 0 for q in range(8)],
            }
            argv = rail.client_argv(sender)
            if case.tclass is not None:
                argv = [f"--tclass={case.tclass}" if a.startswith("--tclass=") else a for a in argv]
            gbps = case.sender_gbps
            _write(
                folder / rail.capture(sender),
                "$ "
                + shlex.join(argv)
                + "\n"
                + WRITE_BW.format(nic=sender.nic, peak=gbps + 9, avg=gbps, rate=gbps / 524.288),
            )
    for host in manifest.hosts.values():
        for phase in (BEFORE, AFTER):
            lines = []
            for index, nic in enumerate(host.nics):
                moves = nic_moves.get((host.name, nic.name), {})
                for name in MLX5_COUNTERS:
                    base = 1_000 * (index + 1) + len(name)  # counts from the pair tests before the stage
                    value = base + (moves.get(name, 0) if phase == AFTER else 0)
                    lines.append(f"/sys/class/infiniband/{nic.name}/ports/1/hw_counters/{name}:{value}")
            _write(folder / "hosts" / host.name / f"rdma-hw-counters.{phase}.txt", "\n".join(lines) + "\n")
    for switch in manifest.switches.values():
        for phase in (BEFORE, AFTER):
            for tool, text in _switch_captures(
                switch.platform,
                switch.name,
                switch.lossless_ports,
                switch_moves.get(switch.name, {}),
                phase,
                sonic_asics,
            ):
                _write(folder / "switches" / switch.name / phase / f"{tool}.txt", text)
    return folder


def _nic_port(manifest: Manifest, sender) -> str:
    return next(n.switch_port for n in manifest.hosts[sender.host].nics if n.name == sender.nic)


def _switch_captures(
    platform: str,
    name: str,
    ports: list[str],
    moves: dict[str, dict[str, list[int]]],
    phase: str,
    asics: int = 1,
) -> list[tuple[str, str]]:
    state = SwitchState(platform, name, config=[], ports=list(ports))
    for port in ports:
        counters = state.counters[port]
        counters["tx_queue"] = [1_200 if q == PRIO else 12 for q in range(8)]  # the pair tests' traffic
        counters["rx_pfc"], counters["tx_pfc"] = [0] * 8, [0] * 8
        if phase == AFTER:
            for key, values in moves.get(port, {}).items():
                base = counters.get(key, [0] * 8)
                counters[key] = [b + v for b, v in zip(base, values, strict=True)]
    rows = [
        (port, q, state.counters[port]["tx_queue"][q], state.counters[port].get("tx_drop", [0] * 8)[q],
         state.counters[port].get("ecn_marked", [0] * 8)[q])
        for port in ports
        for q in range(8)
    ]  # fmt: skip
    if platform == "eos":
        return [
            ("eos-show-qos-ecn-counters-queue", eos_ecn_counters_queue_json(rows)),
            ("eos-show-interfaces-counters-queue", eos_counters_queue_json(rows)),
            ("eos-show-pfc-counters-detail-json", eos_pfc_counters_detail_json(state)),
            ("eos-show-pfc-watchdog-json", eos_pfc_watchdog_json(state)),
        ]
    if platform == "junos":
        return [
            ("junos-show-interfaces-queue", junos_interfaces_queue(rows, lossless_queue=PRIO)),
            ("junos-show-interfaces-extensive", junos_pfc(state)),
        ]
    if platform == "sonic":
        marks = {port: state.counters[port].get("ecn_marked", [0] * 8) for port in ports}
        wred = {
            port: [(f"UC{q}", "0", "0", str(m[q]), str(m[q] * 1078)) for q in range(8)]
            for port, m in marks.items()
        }
        watchdog = _watchdog_rows(state, ports)
        if asics > 1:
            wred_text, pfcwd_text = _printed_without_n(wred, watchdog, asics, phase)
        else:
            wred_text, pfcwd_text = wredstat(wred), pfcwd_stats(watchdog)
        return [
            ("sonic-show-queue-wredcounters", wred_text),
            ("sonic-show-pfcwd-stats", pfcwd_text),
            ("sonic-show-pfc-counters", sonic_pfc_counters(state) + "\n"),
            ("sonic-show-queue-counters", sonic_queue_counters(state)),
        ]
    if platform == "cumulus":
        # What the collection saves of each NVUE command, from the simulator's printers.
        printers = {
            "cumulus-nv-show-interface-pfc-stats": cumulus_incast.pfc_stats,
            "cumulus-nv-show-interface-egress-queue-stats": cumulus_incast.egress_queue_stats,
            "cumulus-nv-show-interface-roce-counters": cumulus_incast.roce_counters,
        }
        return [
            (tool, port_capture(template, {port: printers[tool](state, port) for port in ports}))
            for tool, template in PORT_COMMANDS["cumulus"].items()
        ]
    return []  # NX-OS: nothing the incast checks read (its results say so)


# A port of each namespace that is on no incast path (a backplane port of a multi-ASIC box): it
# marks and storms during the stage, so a reader taking its row for a path port's flips a verdict.
DECOY_MARKS, DECOY_STORMS = 999_999, 7


def _printed_without_n(
    wred: dict[str, list[tuple[str, str, str, str, str]]],
    watchdog: list[tuple[str, str, int, int, int]],
    asics: int,
    phase: str,
) -> tuple[str, str]:
    """`show queue wredcounters` and `show pfcwd stats` sent without -n to a switch of `asics`
    ASICs, as sonic-utilities 691b1bb prints them there: scripts/wredstat's WredstatWrapper.run
    (@run_on_multi_asic, DISPLAY_ALL) prints each namespace's per-port tables in turn, nothing
    naming the namespace; pfcwd/main.py PfcwdCli.collect_stats (@run_on_multi_asic) gathers every
    namespace's rows into self.table, and show_stats prints them as one table. Namespace k owns
    the switch's ports k, k + asics, ... (each port in one namespace; prod's SONiC receivers fall
    in the first and in a later one), and a decoy port Ethernet-BP<256k>."""
    marks, storms = (DECOY_MARKS, DECOY_STORMS) if phase == AFTER else (0, 0)
    wred_text, rows = "", []
    for k in range(asics):
        decoy = f"Ethernet-BP{256 * k}"
        owned = list(wred)[k::asics]
        tables = {port: wred[port] for port in owned}
        tables[decoy] = [(f"UC{q}", "0", "0", str(marks), str(marks * 1078)) for q in range(8)]
        wred_text += wredstat(tables)
        rows += [row for row in watchdog if row[0].split(":")[0] in owned]
        rows.append((f"{decoy}:{PRIO}", "stormed" if storms else "operational", storms, 0, 5_000))
    return wred_text, pfcwd_stats(rows)


def _watchdog_rows(state: SwitchState, ports: list[str]) -> list[tuple[str, str, int, int, int]]:
    """The lossless queue of every port (it carried traffic): stormed where a storm is counted."""
    rows = []
    for port in ports:
        storms = state.counters[port].get("pfc_wd_stuck", [0] * 8)[PRIO]
        rows.append(
            (
                f"{port}:{PRIO}",
                "stormed" if storms else "operational",
                storms,
                0,
                state.counters[port]["tx_queue"][PRIO],
            )
        )
    return rows


def _results(folder: Path) -> list[Result]:
    return [r for r in judge(folder, Catalog(NAMES, {}, "test")).results if r.check in NAMES]


def _rail(plan: list[RailIncast], platform: str, manifest: Manifest) -> RailIncast:
    return next(r for r in plan if manifest.switches[r.receiver_port.switch].platform == platform)


# (case, the fault, the failures it must give: check -> targets, built from the plan of a platform's rail)
Targets = Callable[[list[RailIncast], Manifest], set[tuple[str, str]]]


def _receiver_edges(check: str, platforms: tuple[str, ...]) -> Targets:
    return lambda plan, m: {
        (check, r.receiver_port.target)
        for r in plan
        if m.switches[r.receiver_port.switch].platform in platforms
    }


def _receivers(check: str) -> Targets:
    return lambda plan, m: {(check, r.receiver_target) for r in plan}


def _senders(check: str) -> Targets:
    return lambda plan, m: {(check, s.target) for r in plan for s in r.senders}


def _sender_edges(check: str, platforms: tuple[str, ...]) -> Targets:
    return lambda plan, m: {
        (check, p.target)
        for r in plan
        for p in r.path
        if p.role == "sender-edge" and m.switches[p.switch].platform in platforms
    }


def _union(*parts: Targets) -> Targets:
    return lambda plan, m: set().union(*(part(plan, m) for part in parts))


CASES: list[tuple[str, Incast, Targets]] = [
    ("good incast", Incast(), lambda plan, m: set()),
    (
        "ECN off: no marks, no CNPs, pauses only",
        Incast(ecn_marks=0, ce_received=0, cnp_sent=0, cnp_handled=0, pauses=88_000),
        _union(
            _receiver_edges("incast_ecn_marks", ("cumulus", "eos", "junos", "sonic")),
            _receivers("incast_ecn_marks"),
            _receivers("incast_cnp"),
            _senders("incast_cnp"),
        ),
    ),
    (
        "ECN off: no marks, the queue overflows",
        Incast(ecn_marks=0, ce_received=0, cnp_sent=0, cnp_handled=0, drops=91_000, out_of_sequence=4_100),
        _union(
            _receiver_edges("incast_ecn_marks", ("cumulus", "eos", "junos", "sonic")),
            _receivers("incast_ecn_marks"),
            _receivers("incast_cnp"),
            _senders("incast_cnp"),
            _receiver_edges("incast_lossless_drops", ("cumulus", "eos", "junos", "sonic")),
            _receivers("incast_lossless_drops"),
        ),
    ),
    (
        "PFC on the wrong priority",
        Incast(pause_priority=4),
        _sender_edges("incast_pfc_priority", ("cumulus", "eos", "junos", "sonic")),
    ),
    (
        "lossless drops",
        Incast(drops=4_211, out_of_sequence=377),
        _union(
            _receiver_edges("incast_lossless_drops", ("cumulus", "eos", "junos", "sonic")),
            _receivers("incast_lossless_drops"),
        ),
    ),
    (
        "PFC watchdog storm",
        Incast(watchdog_stuck=2),
        _receiver_edges("incast_pfc_watchdog", ("eos", "sonic")),
    ),
    ("low bandwidth", Incast(sender_gbps=120.0), _receivers("incast_bandwidth")),
    ("low alltoall busbw", Incast(alltoall_busbw=30.2), _receivers("incast_alltoall_busbw")),
    ("alltoall wrong values", Incast(alltoall_wrong=12), _receivers("incast_alltoall_busbw")),
]


@pytest.mark.parametrize(("case", "fault", "failures"), CASES, ids=[c[0] for c in CASES])
def test_incast_checks_fail_on_the_fault(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]], case: str, fault: Incast, failures: Targets
) -> None:
    manifest, plan = prod
    results = _results(_artifacts(tmp_path, manifest, plan, fault))
    failed = {(r.check, r.target) for r in results if r.status == Status.FAIL}
    assert failed == failures(plan, manifest), case
    assert not [r for r in results if r.status == Status.ERROR], case
    for result in results:
        if result.status == Status.FAIL:  # names the counter, its delta and the sign expected
            assert any(sign in result.actual for sign in ("+", "Gb/s")), result
            assert any(sign in result.expected for sign in ("> 0", "+0", ">=")), result
    # Every OS without a counter for a question says so on the port, never passes it.
    skipped = [r for r in results if r.status == Status.SKIPPED]
    platforms = {manifest.switches[r.target.split(":")[0]].platform for r in skipped}
    assert platforms == {"nxos", "cumulus", "junos"}, case
    assert all("no " in r.message or "per port" in r.message for r in skipped)


@pytest.mark.parametrize("asics", [2, 3])
@pytest.mark.parametrize(("case", "fault", "failures"), CASES, ids=[c[0] for c in CASES])
def test_a_multi_asic_sonic_switch_read_without_n_is_judged_per_port(
    tmp_path: Path,
    prod: tuple[Manifest, list[RailIncast]],
    case: str,
    fault: Incast,
    failures: Targets,
    asics: int,
) -> None:
    """The incast stage sends `show queue wredcounters` and `show pfcwd stats` without -n, also to
    a multi-ASIC SONiC switch: they print every namespace (_printed_without_n), each port once, so
    the readers find each path port's row; the same ports fail as on one ASIC, with their counts."""
    assert not set(phase_commands("sonic", AFTER)) & set(NAMESPACED_TOOLS)
    manifest, plan = prod
    results = _results(_artifacts(tmp_path, manifest, plan, fault, sonic_asics=asics))
    assert not [r for r in results if r.status == Status.ERROR], case
    assert {(r.check, r.target) for r in results if r.status == Status.FAIL} == failures(plan, manifest), case
    # prod's SONiC receivers: leaf06 Ethernet40 (in asic1 of 2, asic2 of 3), leaf07 Ethernet48 (asic0)
    receivers = [
        r.receiver_port.target for r in plan if manifest.switches[r.receiver_port.switch].platform == "sonic"
    ]
    assert len(receivers) == 2
    for sonic in receivers:
        judged = {r.check: r.actual for r in results if r.target == sonic}
        assert judged["incast_ecn_marks"] == f"ECN-marked packets {fault.ecn_marks:+d} on queue {PRIO}", sonic
        stuck = f"watchdog stuck events {fault.watchdog_stuck:+d} "
        assert judged["incast_pfc_watchdog"].startswith(stuck), sonic


def test_the_good_incast_is_judged_on_every_rail_and_counter(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    manifest, plan = prod
    results = _results(_artifacts(tmp_path, manifest, plan, Incast()))
    passed = {(r.check, r.target) for r in results if r.status == Status.PASS}
    assert _receivers("incast_cnp")(plan, manifest) | _senders("incast_cnp")(plan, manifest) <= passed
    assert _receivers("incast_bandwidth")(plan, manifest) <= passed
    eos = _rail(plan, "eos", manifest)
    ecn = next(r for r in results if r.check == "incast_ecn_marks" and r.target == eos.receiver_port.target)
    assert ecn.status == Status.PASS and "+52113" in ecn.actual
    bandwidth = next(r for r in results if r.check == "incast_bandwidth" and r.target == eos.receiver_target)
    assert "380.8 Gb/s summed over 2 senders" in bandwidth.actual


@pytest.mark.parametrize(
    ("case", "fault", "check", "message"),
    [
        ("perftest outside the lossless class", Incast(tclass=0), "incast_bandwidth", "traffic class 0"),
        ("counters cleared during the stage", Incast(backwards=True), "incast_cnp", "went backwards"),
    ],
)
def test_unusable_evidence_is_an_error_not_a_verdict(
    tmp_path: Path,
    prod: tuple[Manifest, list[RailIncast]],
    case: str,
    fault: Incast,
    check: str,
    message: str,
) -> None:
    manifest, plan = prod
    results = _results(_artifacts(tmp_path, manifest, plan, fault))
    errors = [r for r in results if r.status == Status.ERROR]
    assert {r.check for r in errors} == {check}, case
    assert len(errors) == len(plan) and all(message in r.message for r in errors), case


def test_a_rail_too_small_to_congest_is_not_judged(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    manifest, plan = prod
    thin = [RailIncast(**{**vars(r), "senders": r.senders[:1]}) for r in plan]  # 1x: no queue builds
    results = _results(_artifacts(tmp_path, manifest, thin, Incast(ecn_marks=0, ce_received=0, cnp_sent=0)))
    for check in ("incast_ecn_marks", "incast_cnp"):
        mine = [r for r in results if r.check == check]
        assert {r.status for r in mine} == {Status.ERROR}
        assert all("1.00x" in r.message and "under the 2x" in r.message for r in mine)


@pytest.mark.parametrize("role", ["receiver", "sender"])
def test_a_rail_with_a_host_without_rdma_nics_is_skipped_with_its_reason(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]], role: str
) -> None:
    manifest, plan = prod
    rail = plan[0]
    host = rail.receiver if role == "receiver" else rail.senders[-1].host
    reason = "lab container: no GPU or RDMA NIC"
    bare = replace(manifest.hosts[host], has_rdma_nics=False, hardware_reason=reason)
    folder = _artifacts(tmp_path, replace(manifest, hosts={**manifest.hosts, host: bare}), plan, Incast())
    for name in (rail.receiver, *(s.host for s in rail.senders)):  # the stage ran no traffic there
        for phase in (BEFORE, AFTER):
            (folder / "hosts" / name / f"rdma-hw-counters.{phase}.txt").unlink(missing_ok=True)
    results = _results(folder)
    mine = [r for r in results if r.target == rail.receiver_target or r.target.startswith(f"{host}:")]
    on_rail = [r for r in mine if f"{host}: {reason}" in r.message]
    assert {r.check for r in on_rail} == set(NAMES)
    assert {r.status for r in on_rail} == {Status.SKIPPED}
    assert not [r for r in results if r.status == Status.ERROR and host in r.message]


def test_no_incast_stage_is_skipped_once_per_check(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    manifest, _ = prod
    manifest.write(tmp_path)
    results = _results(tmp_path)
    assert [(r.check, r.status) for r in results] == [(name, Status.SKIPPED) for name in NAMES]
    assert all(PLAN_FILE in r.message for r in results)
    assert set(NAMES) <= set(CHECKS)


def _sender(document: dict, key: str, value: object) -> None:
    document["rails"][0]["senders"][0][key] = value


@pytest.mark.parametrize(
    ("case", "damage", "message"),
    [
        ("a name leading out", lambda d: _sender(d, "host", "../etc"), "not a safe host or NIC name"),
        ("a port as text", lambda d: _sender(d, "port", "18515"), "must be integers"),
        ("a sender without its NIC", lambda d: d["rails"][0]["senders"][0].pop("nic"), "rails[0]"),
        ("no senders", lambda d: d["rails"][0].update(senders=[]), "no senders"),
        ("another version", lambda d: d.update(version=2), "version 1"),
        ("a switch the manifest lacks", lambda d: d["rails"][0]["path"][0].update(switch="leaf99"), "leaf99"),
    ],
)
def test_a_damaged_plan_is_an_error(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]], case: str, damage, message: str
) -> None:
    manifest, plan = prod
    manifest.write(tmp_path)
    document = plan_document(plan)
    damage(document)
    _write(tmp_path / PLAN_FILE, json.dumps(document))
    results = _results(tmp_path)
    assert [(r.check, r.status) for r in results] == [(name, Status.ERROR) for name in NAMES], case
    assert all(message in r.message for r in results), (case, results[0].message)


def test_a_plan_folder_leading_out_is_not_read(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]]
) -> None:
    manifest, plan = prod
    outside = tmp_path / "elsewhere"
    _write(outside / "plan.json", json.dumps(plan_document(plan)))
    folder = tmp_path / "artifacts"
    manifest.write(folder)
    (folder / "incast").symlink_to(outside)
    results = _results(folder)
    assert {r.status for r in results} == {Status.ERROR}
    assert all("leads out of the artifacts folder" in r.message for r in results)


@pytest.mark.parametrize(
    ("platform", "judged"),
    [("cumulus", True), ("sonic", True), ("nxos", False), ("eos", False), ("junos", False)],
)
def test_a_simulated_rail_is_judged_where_its_leaf_has_a_traffic_model(
    tmp_path: Path, prod: tuple[Manifest, list[RailIncast]], platform: str, judged: bool
) -> None:
    """gpunet_hardware.simulated_incast (the lab): hosts without RDMA NICs whose incast is the lab's
    SIMULATION are judged on a SONiC or Cumulus leaf, and skipped, naming why, on the others."""
    manifest, plan = prod
    rail = _rail(plan, platform, manifest)
    reason = "lab container: no GPU or RDMA NIC"
    hosts = dict(manifest.hosts)
    for name in (rail.receiver, *(s.host for s in rail.senders)):
        hosts[name] = replace(hosts[name], has_rdma_nics=False, hardware_reason=reason, simulated_incast=True)
    results = _results(_artifacts(tmp_path, replace(manifest, hosts=hosts), plan, Incast()))
    mine = [r for r in results if r.target == rail.receiver_target]
    assert {r.check for r in mine} >= {"incast_cnp", "incast_bandwidth"}
    skipped = [r for r in mine if r.status == Status.SKIPPED]
    if judged:
        assert not skipped and {r.status for r in mine} == {Status.PASS}, [(r.check, r.message) for r in mine]
    else:
        assert skipped == mine
        why = f"SIMULATION models SONiC and Cumulus leaves, and {rail.receiver_port.switch} is {platform}"
        assert all(why in r.message for r in mine)
