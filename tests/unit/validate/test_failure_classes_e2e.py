"""`gpunet-validate --from-artifacts` end to end, one case per failure class of issue 13: a copy of
the healthy fixture with one realistic change; the exit code and the check that reports it are
asserted (and, for the harmless changes, that nothing at all is reported)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.validate.cli import main
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
LAT = "pairs/0/gpu01__gpu02__mlx5_0.ib_read_lat.txt"
BW = "pairs/0/gpu01__gpu02__mlx5_0.ib_write_bw.txt"
NCCL = "nccl/all-nodes.txt"
IBSTAT = "hosts/gpu02/ibstat.txt"
QOS = "hosts/gpu01/mlnx_qos.enp154s0np0.txt"


def _duration_latency(t_avg: float) -> Callable[[str], str]:
    """The same run in perftest's -D duration layout: t_avg and tps, no t_typical."""

    def change(text: str) -> str:
        head = text[: text.index(" #bytes")]
        rule = "-" * 87
        header = " #bytes        #iterations       t_avg[usec]    tps average"
        return f"{head}{header}\n 2  1577611  {t_avg}  262864.28\n{rule}\n"

    return change


def _colour(text: str) -> str:
    return "\ufeff" + "\n".join(f"\x1b[32m{line}\x1b[0m" for line in text.splitlines()).replace("\n", "\r\n")


def _cut_before(marker: str) -> Callable[[str], str]:
    return lambda text: text[: text.rindex(marker)]


# (case, file, change, exit code, {(check, status)} of every result that is not pass/not checked)
CASES: list[tuple[str, str, Callable[[str], str], int, set[tuple[str, str]]]] = [
    ("perftest -D latency, healthy", LAT, _duration_latency(1.9), 0, set()),
    ("perftest -D latency, slow", LAT, _duration_latency(42.0), 4, {("pair_latency", "fail")}),
    (
        "perftest cut before its closing line",
        BW,
        lambda t: t.rstrip().rsplit("\n", 1)[0] + "\n",
        3,
        {("pair_bandwidth", "error")},
    ),
    (
        "perftest cut mid-row",
        BW,
        lambda t: " ".join(t[: t.rindex("-" * 20)].rstrip().split(" ")[:-3]) + "\n",
        3,
        {("pair_bandwidth", "error")},
    ),
    (
        "nccl-tests failure after result rows",
        NCCL,
        lambda t: (
            t
            + "gpu03: Test NCCL failure common.cu:303 'remote process exited or there was a network error'\n"
        ),
        4,
        {("nccl_busbw", "fail")},
    ),
    ("nccl-tests cut before its footer", NCCL, _cut_before("# Out of bounds"), 3, {("nccl_busbw", "error")}),
    (
        "nccl-tests footer without #",
        NCCL,
        lambda t: re.sub(r"(?m)^# (Out of bounds|Avg bus)", r" \1", t),
        0,
        set(),
    ),
    ("nccl-tests duplicated capture", NCCL, lambda t: t + t, 3, {("nccl_busbw", "error")}),
    ("ibstat duplicated capture", IBSTAT, lambda t: t + t, 3, {("nic_port_state", "error")}),
    ("ibstat cut mid-port", IBSTAT, _cut_before("Link layer"), 3, {("nic_port_state", "error")}),
    ("ibstat with colour codes, CRLF and BOM", IBSTAT, _colour, 0, set()),
    (
        "ibstat flattened indentation",
        IBSTAT,
        lambda t: "\n".join(x.strip() for x in t.splitlines()),
        0,
        set(),
    ),
    ("ibstat with NUL bytes", IBSTAT, lambda t: t.replace("\n", "\x00\n"), 0, set()),
    (
        "ibstat port down",
        IBSTAT,
        lambda t: t.replace("State: Active", "State: Down", 1),
        4,
        {("nic_port_state", "fail")},
    ),
    (
        "mlnx_qos cut inside the TC list",
        QOS,
        _cut_before("tc: 6"),
        3,
        {(check, "error") for check in ("nic_qos", "nic_prio_tc", "nic_ets", "nic_cable_length", "link_qos")},
    ),
    (
        "mlnx_qos PFC off on the lossless priority",
        QOS,
        lambda t: re.sub(r"(enabled\s+0\s+0\s+0\s+)1", r"\g<1>0", t),
        4,
        {("nic_qos", "fail"), ("link_qos", "fail")},
    ),
    # Switch views of EOS and Junos (PFC state, watchdog, per-priority pauses, queue drops).
    (
        "EOS PFC disabled on a lossless port",
        "switches/leaf03/after/eos-show-pfc.txt",
        lambda t: t.replace(
            "Et4/1       Yes      3           Yes", "Et4/1       No                   No ", 1
        ),
        4,
        {("switch_pfc", "fail"), ("link_qos", "fail")},
    ),
    (
        "EOS PFC watchdog found the lossless queue stuck",
        "switches/spine01/after/eos-show-pfc-watchdog-json.txt",
        lambda t: (
            '{"interfaces": {"Ethernet3/7/1": {"txQueues": {"3": {"stuckCount": 3, "recoveryCount": 3}}}}}'
        ),
        4,
        {("switch_pfc", "fail")},
    ),
    (
        "EOS watchdog JSON cut short",
        "switches/leaf04/before/eos-show-pfc-watchdog-json.txt",
        lambda t: t[: len(t) // 2],
        3,
        {("switch_pfc", "error")},
    ),
    (
        "EOS pause frames on a lossy priority (counters detail | json)",
        "switches/leaf04/after/eos-show-pfc-counters-detail-json.txt",
        lambda t: re.sub(r'("6": \{\s*"rxFrames": )0', r"\g<1>2048", t, count=1),
        4,
        {("switch_pfc", "fail")},
    ),
    (
        "EOS PFC frame counters cut short",
        "switches/spine01/before/eos-show-pfc-counters-detail-json.txt",
        lambda t: t[: len(t) // 3],
        3,
        {("switch_pfc", "error")},
    ),
    (
        "Junos pause frames on a lossy priority",
        "switches/leaf08/after/junos-show-interfaces-extensive.txt",
        lambda t: t.replace(
            "Priority :  5                            0", "Priority :  5                         9041", 1
        ),
        4,
        {("switch_pfc", "fail")},
    ),
    (
        "Junos lossless port without a congestion-notification (PFC) profile",
        "switches/leaf08/after/junos-show-cos-interface.txt",
        lambda t: t.replace("Enabled, Name: cnp-30m, Index: 60000", "Disabled", 1),
        4,
        {("switch_pfc", "fail")},
    ),
    (
        "Junos PFC profile not enabling the lossless priority",
        "switches/leaf08/after/junos-show-cos-congestion-notification.txt",
        lambda t: t.replace(
            "Type: Input, Name: cnp-3m, Index: 60001",
            "Type: Input, Name: cnp-3m, Index: 60001\nPriority     PFC\n"
            + "".join(f"  {p:03b}          {'Enabled' if p == 4 else 'Disabled'}\n" for p in range(8)),
        ),
        4,
        {("switch_pfc", "fail"), ("link_qos", "fail")},
    ),
    (
        "Junos congestion-notification table cut short",
        "switches/leaf08/after/junos-show-cos-congestion-notification.txt",
        lambda t: t + "Priority     PFC\n  000          Disabled\n  001          Dis",
        3,
        {("switch_pfc", "error")},
    ),
    (
        "Junos PFC block cut in the middle",
        "switches/leaf08/before/junos-show-interfaces-extensive.txt",
        _cut_before("Priority :  6"),
        3,
        {("switch_pfc", "error")},
    ),
    (
        "EOS lossless queue drops (detail | json)",
        "switches/leaf04/after/eos-show-interfaces-counters-queue.txt",
        lambda t: re.sub(
            r'("Ethernet9/1".*?"TC3".*?"droppedPackets": )0', r"\g<1>77", t, count=1, flags=re.DOTALL
        ),
        4,
        {("lossless_queue_drops", "fail")},
    ),
    (
        "Junos queue listed twice",
        "switches/leaf08/after/junos-show-interfaces-queue.txt",
        lambda t: t + t[t.index("Physical interface: et-0/0/3,") :],
        3,
        {("lossless_queue_drops", "error"), ("switch_ecn", "error")},
    ),
    # perftest prints no traffic class: the verify stage saves the command line ahead of the output.
    (
        "perftest bandwidth measured in best effort (no --tclass)",
        BW,
        lambda t: t.replace(" --tclass=106", "", 1),
        3,
        {("pair_bandwidth", "error")},
    ),
    (
        "perftest latency measured in another class",
        LAT,
        lambda t: t.replace("--tclass=106", "--tclass=0", 1),
        3,
        {("pair_latency", "error")},
    ),
    ("perftest capture without its command line", BW, lambda t: t.split("\n", 1)[1], 0, set()),
    (
        "iperf3 malformed JSON",
        "pairs/iperf3/gpu01__gpu02.iperf3.txt",
        lambda t: '{"start": [], "end": {}}',
        3,
        {("iperf3_throughput", "error")},
    ),
]


def _judge(folder: Path, tmp_path: Path, *extra: str) -> tuple[int, set[tuple[str, str]], list[dict]]:
    output = tmp_path / "report.json"
    code = main(["--from-artifacts", str(folder), "--format", "json", "--output", str(output), *extra])
    results = json.loads(output.read_text())["results"] if output.exists() else []
    problems = {(r["check"], r["status"]) for r in results if r["status"] not in ("pass", "not checked")}
    return code, problems, results


@pytest.mark.parametrize(("case", "relative", "change", "code", "problems"), CASES, ids=[c[0] for c in CASES])
def test_failure_class_end_to_end(
    tmp_path: Path, case: str, relative: str, change: Callable[[str], str], code: int, problems: set
) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    path = folder / relative
    changed = change(path.read_text())
    assert changed != path.read_text(), f"{case}: the change changed nothing"
    path.write_bytes(changed.encode())
    assert _judge(folder, tmp_path)[:2] == (code, problems)


def test_the_healthy_fixture_is_clean(tmp_path: Path) -> None:
    assert _judge(HEALTHY, tmp_path)[:2] == (0, set())


def test_unreachable_host_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    shutil.rmtree(folder / "hosts" / "gpu04")
    code, problems, results = _judge(folder, tmp_path)
    assert (code, problems) == (3, {("host_collected", "error")})
    assert [r["target"] for r in results if r["status"] == "error"] == ["gpu04"]


@pytest.mark.parametrize(
    ("catalog", "code", "message"),
    [
        ("checks: []\n", 3, "nothing was checked"),
        ("checks: [pair_bandwidth]\nthresholds: {perftest_min_fraction: 1.5}\n", 2, "perftest_min_fraction"),
    ],
)
def test_catalog_classes_end_to_end(tmp_path: Path, capsys, catalog: str, code: int, message: str) -> None:
    path = tmp_path / "catalog.yml"
    path.write_text(catalog)
    assert main(["--from-artifacts", str(HEALTHY), "--checks", str(path)]) == code
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda t: t, "in traffic class 106"),
        (lambda t: t.replace(" --tclass=106", "", 1), "not the fabric's lossless class 106 (DSCP 26)"),
        (lambda t: t.split("\n", 1)[1], "traffic class not recorded"),
    ],
)
def test_the_report_says_which_class_a_pair_ran_in(
    tmp_path: Path, change: Callable[[str], str], says: str
) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    path = folder / BW
    path.write_text(change(path.read_text()))
    target = Path(BW).name.removesuffix(".ib_write_bw.txt").split("__")
    results = [r for r in _judge(folder, tmp_path)[2] if r["check"] == "pair_bandwidth"]
    mine = next(r for r in results if r["target"].startswith(f"{target[0]}:{target[2]}<->{target[1]}:"))
    assert says in mine["actual"] + " " + mine["message"]
