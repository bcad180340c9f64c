"""gpunet-validate --format prometheus over the committed artifacts folders: the series, their
labels and the values read from the recorded tool output."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.report.prometheus import render_prometheus
from gpunet.validate.results import exit_code
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"


def samples(scenario: str) -> dict[tuple[str, frozenset], float]:
    text = render_prometheus(judge(ARTIFACTS / scenario))
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
    ("healthy", "gpunet_check_status", {**STATUS, "status": "pass"}, 1.0),
    ("healthy", "gpunet_check_status", {**STATUS, "status": "fail"}, 0.0),
    ("bad_nic", "gpunet_check_status", {**STATUS, "status": "pass"}, 0.0),
    ("bad_nic", "gpunet_check_status", {**STATUS, "status": "fail"}, 1.0),
    ("bad_nic", "gpunet_checks", {"source": "validate", "status": "fail"}, 6.0),
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
    # SONiC `show pfc counters` per priority; EOS per port (priority "all").
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf07", "port": "Ethernet0", "priority": "3", "direction": "rx"},
        1520.0,
    ),
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf07", "port": "Ethernet0", "priority": "0", "direction": "rx"},
        0.0,
    ),
    (
        "healthy",
        "gpunet_switch_pfc_pause_frames",
        {"switch": "leaf03", "port": "Et1/1", "priority": "all", "direction": "tx"},
        37.0,
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


def test_a_failed_run_gives_no_busbw_value_rather_than_zero() -> None:
    found = samples("failed_nccl")
    assert key("gpunet_nccl_busbw_bytes_per_second", run="all-nodes") not in found
    assert key("gpunet_nccl_busbw_bytes_per_second", run="single-gpu01") in found


@pytest.mark.parametrize("scenario", ["healthy", "bad_nic", "failed_nccl"])
def test_every_result_has_exactly_one_status_set(scenario: str) -> None:
    verdict = judge(ARTIFACTS / scenario)
    found = samples(scenario)
    states: dict[tuple[str, str], float] = {}
    for (name, labels), value in found.items():
        if name == "gpunet_check_status":
            fields = dict(labels)
            states[fields["check"], fields["target"]] = (
                states.get((fields["check"], fields["target"]), 0) + value
            )
    assert set(states) == {(r.check, r.target) for r in verdict.results}
    assert set(states.values()) == {1.0}
    assert found[key("gpunet_validate_exit_code", source="validate")] == exit_code(verdict.results)


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
