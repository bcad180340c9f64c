"""gpunet-validate --format prometheus over the committed artifacts folders: the series, their
labels and the values the checks read from the recorded tool output."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.report.grouping import counts_per_check
from gpunet.validate.report.prometheus import PROBLEMS, render_prometheus
from gpunet.validate.results import exit_code
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"


def samples(scenario: str, failures_only: bool = False) -> dict[tuple[str, frozenset], float]:
    text = render_prometheus(judge(ARTIFACTS / scenario, measure=True), failures_only)
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def key(name: str, **labels: str) -> tuple[str, frozenset]:
    return name, frozenset(labels.items())


NIC_GPU03_2 = {"host": "gpu03", "nic": "mlx5_2", "rail": "2", "switch": "leaf03", "port": "Ethernet3/1"}
PAIR_GPU03_04_RAIL2 = {
    "host": "gpu03",
    "nic": "mlx5_2",
    "peer_host": "gpu04",
    "peer_nic": "mlx5_2",
    "rail": "2",
    "switch": "leaf03",
    "port": "Ethernet3/1",
}
STATUS = {
    "source": "validate",
    "check": "nic_port_state",
    "category": "nic",
    "target": "gpu03:mlx5_2",
    **NIC_GPU03_2,
}

# (scenario, series, labels, value): values come from the recorded files of that scenario.
CASES = [
    ("bad_nic", "gpunet_check_status", {**STATUS, "status": "fail"}, 1.0),
    ("bad_nic", "gpunet_checks", {"source": "validate", "status": "fail"}, 6.0),
    # 32 NICs: gpu03's mlx5_2 is down, the other 31 pass.
    (
        "bad_nic",
        "gpunet_check_results",
        {"source": "validate", "check": "nic_port_state", "status": "fail"},
        1.0,
    ),
    (
        "bad_nic",
        "gpunet_check_results",
        {"source": "validate", "check": "nic_port_state", "status": "pass"},
        31.0,
    ),
    (
        "healthy",
        "gpunet_check_results",
        {"source": "validate", "check": "nic_port_state", "status": "fail"},
        0.0,
    ),
    ("bad_nic", "gpunet_validate_exit_code", {"source": "validate"}, 4.0),
    ("healthy", "gpunet_validate_exit_code", {"source": "validate"}, 0.0),
    # ib_write_bw 386.00 Gb/s healthy, 193.0 Gb/s on gpu03's 200G-trained NIC; as bytes/s.
    ("healthy", "gpunet_pair_bandwidth_bytes_per_second", PAIR_GPU03_04_RAIL2, 386.0e9 / 8),
    ("bad_nic", "gpunet_pair_bandwidth_bytes_per_second", PAIR_GPU03_04_RAIL2, 193.0e9 / 8),
    ("bad_nic", "gpunet_pair_line_rate_bytes_per_second", PAIR_GPU03_04_RAIL2, 400e9 / 8),
    # chronyc: "System time : 0.000041000 seconds fast of NTP time".
    ("healthy", "gpunet_ntp_offset_seconds", {"host": "gpu01"}, 0.000041),
    ("healthy", "gpunet_ntp_synchronised", {"host": "gpu01"}, 1.0),
    ("healthy", "gpunet_nccl_busbw_bytes_per_second", {"run": "all-nodes"}, 372.0e9),
    ("failed_nccl", "gpunet_nccl_busbw_bound_bytes_per_second", {"run": "all-nodes"}, 400.0e9),
    # The lossless priority's pause frames: SONiC `show pfc counters` (PFC3 column); EOS
    # `counters detail | json` ("3": {"rxFrames": 1520, "txFrames": 37}); NX-OS per port ("all").
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf07", "port": "Ethernet0", "priority": "3", "direction": "rx"},
        1520.0,
    ),
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf03", "port": "Ethernet1/1", "priority": "3", "direction": "tx"},
        37.0,
    ),
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf01", "port": "Ethernet1/1", "priority": "all", "direction": "rx"},
        1520.0,
    ),
    # SONiC `show queue counters`, UC3 of a lossless port: "Ethernet0  UC3 ... 0  0".
    (
        "healthy",
        "gpunet_switch_queue_drop_packets",
        {"switch": "leaf07", "port": "Ethernet0", "queue": "3"},
        0.0,
    ),
    # EOS `show qos interfaces ecn counters queue`: "Et1/1  UC3  5521"; the port as the inventory names it.
    (
        "healthy",
        "gpunet_switch_ecn_marked_packets",
        {"switch": "leaf03", "port": "Ethernet1/1", "queue": "3"},
        5521.0,
    ),
]


@pytest.mark.parametrize(("scenario", "name", "labels", "value"), CASES)
def test_series_carry_the_recorded_values(scenario: str, name: str, labels: dict, value: float) -> None:
    found = samples(scenario)
    assert found.get(key(name, **labels)) == pytest.approx(value), f"{name}{labels} in {scenario}"


# (scenario, series, labels): series that are not written.
ABSENT = [
    # A passing result has no status series: gpunet_check_results counts it.
    ("healthy", "gpunet_check_status", {**STATUS, "status": "pass"}),
    ("healthy", "gpunet_check_status", {**STATUS, "status": "fail"}),
    ("bad_nic", "gpunet_check_status", {**STATUS, "status": "pass"}),
    # Only the lossless priority's pause frames, and only the lossless queue's drops.
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf07", "port": "Ethernet0", "priority": "0", "direction": "rx"},
    ),
    (
        "healthy",
        "gpunet_switch_queue_drop_packets",
        {"switch": "leaf07", "port": "Ethernet0", "queue": "UC0"},
    ),
]


@pytest.mark.parametrize(("scenario", "name", "labels"), ABSENT)
def test_series_left_out(scenario: str, name: str, labels: dict) -> None:
    assert key(name, **labels) not in samples(scenario)


def test_a_failed_run_gives_no_busbw_value_rather_than_zero() -> None:
    found = samples("failed_nccl")
    assert key("gpunet_nccl_busbw_bytes_per_second", run="all-nodes") not in found
    assert key("gpunet_nccl_busbw_bytes_per_second", run="single-gpu01") in found


@pytest.mark.parametrize("scenario", ["healthy", "bad_nic", "failed_nccl"])
def test_every_problem_has_one_status_series_and_every_result_is_counted(scenario: str) -> None:
    verdict = judge(ARTIFACTS / scenario)
    found = samples(scenario)
    problems = {
        (fields["check"], fields["target"], fields["status"]): value
        for (name, labels), value in found.items()
        if name == "gpunet_check_status"
        for fields in [dict(labels)]
    }
    expected = {(r.check, r.target, str(r.status)) for r in verdict.results if r.status in PROBLEMS}
    assert set(problems) == expected
    assert set(problems.values()) <= {1.0}
    per_check = {
        (fields["check"], fields["status"]): value
        for (name, labels), value in found.items()
        if name == "gpunet_check_results"
        for fields in [dict(labels)]
    }
    assert per_check == {
        (check, str(status)): number
        for check, tally in counts_per_check(verdict.results).items()
        for status, number in tally.items()
    }
    assert found[key("gpunet_validate_exit_code", source="validate")] == exit_code(verdict.results)


def test_failures_only_keeps_the_verdict_and_leaves_out_the_measured_values() -> None:
    everything, problems = samples("bad_nic"), samples("bad_nic", failures_only=True)
    verdict_series = {
        "gpunet_check_status",
        "gpunet_check_results",
        "gpunet_checks",
        "gpunet_validate_exit_code",
    }
    assert {name for name, _ in problems} == verdict_series | {"gpunet_validate_timestamp_seconds"}
    assert {k: v for k, v in problems.items() if k[0] in verdict_series} == {
        k: v for k, v in everything.items() if k[0] in verdict_series
    }


def test_judging_without_measure_records_no_measurement() -> None:
    assert judge(ARTIFACTS / "healthy").measurements == []
    assert judge(ARTIFACTS / "healthy", measure=True).measurements


def test_cli_writes_the_textfile_atomically_and_keeps_the_exit_code(tmp_path, capsys) -> None:
    target = tmp_path / "textfile" / "gpunet.prom"
    target.parent.mkdir()
    target.write_text("# an older run\n")
    inode = target.stat().st_ino
    code = main(
        ["--from-artifacts", str(ARTIFACTS / "bad_nic"), "--format", "prometheus", "--output", str(target)]
    )
    assert code == 4
    assert target.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert [p.name for p in target.parent.iterdir()] == ["gpunet.prom"]  # no temp file left behind
    assert 'check="nic_port_state"' in target.read_text()
    assert "wrote prometheus metrics" in capsys.readouterr().err
