"""Judging in several processes: which checks share a process, and the same verdict as one process."""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace

import pytest

from gpunet.validate.batches import (
    PARALLEL_FROM_HOSTS,
    Batch,
    JudgingProcessLost,
    batches,
    in_parts,
    process_count,
)
from gpunet.validate.checks import CHECKS, Catalog, load_catalog
from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.manifest import read_manifest
from gpunet.validate.results import EXIT_COULD_NOT_RUN
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"

# (catalog checks, the batches expected: checks per batch, costliest first, and which builds the matrix)
GROUPING = [
    # Bandwidth and latency captures are different files: two processes may judge them (equal
    # weights keep the catalog's order).
    (["pair_latency", "pair_bandwidth"], [(("pair_latency",), False), (("pair_bandwidth",), True)]),
    # Fault localisation judges the bandwidth pairs again: with them, so each is parsed once.
    (
        ["fault_localisation", "ntp_offset", "pair_bandwidth"],
        [(("fault_localisation", "pair_bandwidth"), True), (("ntp_offset",), False)],
    ),
    # Without pair_bandwidth the batch that reads its captures still builds the matrix.
    (["fault_localisation"], [(("fault_localisation",), True)]),
    # No shared show command between PFC and queue drops...
    (["switch_pfc", "lossless_queue_drops"], [(("lossless_queue_drops",), False), (("switch_pfc",), False)]),
    # ...but ECN reads one of each (Cumulus `nv show qos roce`, Junos `show interfaces queue`).
    (
        ["switch_pfc", "lossless_queue_drops", "switch_ecn"],
        [(("switch_pfc", "lossless_queue_drops", "switch_ecn"), False)],
    ),
    (
        ["nvlink", "gpu_count", "gpu_nic_affinity"],
        [(("nvlink", "gpu_nic_affinity"), False), (("gpu_count",), False)],
    ),
]


@pytest.mark.parametrize(("checks", "expected"), GROUPING)
def test_checks_that_read_the_same_files_share_a_batch(
    checks: list[str], expected: list[tuple[tuple[str, ...], bool]]
) -> None:
    assert [(batch.checks, batch.with_matrix) for batch in batches(checks)] == expected


# (batch, parts it is judged in): per-device checks in parts, the rest whole.
PARTS = [
    (Batch(("nic_qos",), False), 3),
    (Batch(("switch_pfc", "lossless_queue_drops", "switch_ecn"), False), 3),
    (Batch(("fault_localisation", "pair_bandwidth"), True), 1),  # pairs span hosts
    (Batch(("nccl_busbw",), False), 1),  # a run spans hosts
    (Batch(("iperf3_throughput",), False), 1),
]


@pytest.mark.parametrize(("batch", "expected"), PARTS)
def test_checks_judged_device_by_device_are_split_into_parts(batch: Batch, expected: int) -> None:
    split = in_parts([batch], 3)
    assert [(part.checks, part.part, part.parts) for part in sorted(split, key=lambda b: b.part)] == [
        (batch.checks, index, expected) for index in range(expected)
    ]


@pytest.mark.parametrize("parts", [1, 2, 3, 5, 40])
def test_the_parts_share_the_devices_between_them_in_order(parts: int) -> None:
    manifest = read_manifest(ARTIFACTS / "healthy")
    for axis, checks in (("hosts", ("nic_qos",)), ("switches", ("switch_pfc",))):
        shares = [
            list(getattr(Batch(checks, False, index, parts).manifest_part(manifest), axis))
            for index in range(parts)
        ]
        assert [name for share in shares for name in share] == list(getattr(manifest, axis))
        assert max(map(len, shares)) - min(map(len, shares)) <= -(-len(getattr(manifest, axis)) // parts)
    other = Batch(("nic_qos",), False, 1, 3).manifest_part(manifest)
    assert other.switches == manifest.switches and other.pair_rounds == manifest.pair_rounds


@pytest.mark.parametrize("jobs", [2, 3])
def test_parts_give_the_measurements_of_one_process(jobs: int) -> None:
    one = judge(ARTIFACTS / "healthy", jobs=1, measure=True)
    several = judge(ARTIFACTS / "healthy", jobs=jobs, measure=True)
    assert several.measurements == one.measurements
    assert {check for check, *_ in one.measurements} >= {"switch_pfc", "lossless_queue_drops", "ntp_offset"}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_checks_equal_texts_are_one_string_object(jobs: int) -> None:
    """At 16,384 hosts a switch port's target, built apart for its result and for each of its
    counters, and every repeated expectation and observation were 3 million separate strings,
    0.4 GiB of the judging's peak. In one process each text of a check is one object; from
    judging processes (a check judged in parts, each part sent back on its own) each target is."""
    verdict = judge(ARTIFACTS / "healthy", jobs=jobs, measure=True)
    measured = {check for check, *_ in verdict.measurements}
    texts: dict[tuple[str, str], set[int]] = {}
    for result in verdict.results:
        if result.check in measured:
            every = (result.target, result.expected, result.actual) if jobs == 1 else (result.target,)
            for text in every:
                texts.setdefault((result.check, text), set()).add(id(text))
    for check, target, quantity, _ in verdict.measurements:
        for text in (target, quantity) if jobs == 1 else (target,):
            texts.setdefault((check, text), set()).add(id(text))
    assert len(verdict.measurements) > 50 and {"switch_pfc", "lossless_queue_drops"} <= measured
    assert sum(map(len, texts.values())) < len(verdict.results) + len(verdict.measurements)
    assert [key for key, objects in texts.items() if len(objects) > 1] == []


def test_every_check_is_in_exactly_one_batch_of_the_default_catalog() -> None:
    found = [name for batch in batches(load_catalog().checks) for name in batch.checks]
    assert sorted(found) == sorted(load_catalog().checks)
    weights = [batch.weight for batch in batches(load_catalog().checks)]
    assert weights == sorted(weights, reverse=True)


@pytest.mark.parametrize(
    ("jobs", "batch_count", "expected"),
    [(None, 15, 1), (1, 15, 1), (2, 15, 2), (8, 3, 3)],  # the 4-host fixture is below the threshold
)
def test_process_count(jobs: int | None, batch_count: int, expected: int) -> None:
    assert process_count(jobs, read_manifest(ARTIFACTS / "healthy"), batch_count) == expected


def test_a_large_fabric_is_judged_on_every_cpu_unless_another_thread_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manifest = read_manifest(ARTIFACTS / "healthy")
    host = next(iter(manifest.hosts.values()))
    large = replace(manifest, hosts={f"gpu{index:04d}": host for index in range(PARALLEL_FROM_HOSTS)})
    cpus = len(os.sched_getaffinity(0))
    with monkeypatch.context() as alone:
        # Another test's daemon thread (an SSH client's) may still be ending in this process.
        alone.setattr(threading, "active_count", lambda: 1)
        assert process_count(None, large, 15) == min(cpus, 15)
        assert process_count(None, replace(large, hosts=dict(list(large.hosts.items())[1:])), 15) == 1
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert process_count(None, large, 15) == 1
        assert process_count(2, large, 15) == 2  # asked for: the caller knows
    finally:
        release.set()
        other.join()


@pytest.mark.parametrize("fixture", ["healthy", "bad_nic", "failed_nccl"])
def test_several_processes_give_the_verdict_of_one(fixture: str) -> None:
    one, several = judge(ARTIFACTS / fixture, jobs=1), judge(ARTIFACTS / fixture, jobs=3)
    assert several.results == one.results  # same results, same order
    assert several.pairs == one.pairs
    assert len(one.results) > 600


def test_a_check_that_crashes_in_a_worker_is_an_error_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(self: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(CHECKS["ntp_offset"], "run", crash)
    results = judge(ARTIFACTS / "healthy", jobs=2).results
    errors = [r for r in results if r.check == "ntp_offset"]
    assert len(errors) == 1 and "check crashed" in errors[0].message and "boom" in errors[0].message


def test_a_worker_killed_mid_judgement_is_reported_not_hung(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def killed(self: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's out-of-memory killer does

    monkeypatch.setattr(CHECKS["nccl_busbw"], "run", killed)
    with pytest.raises(JudgingProcessLost, match="--jobs 1"):
        judge(ARTIFACTS / "healthy", Catalog(list(CHECKS), {}, "catalog.yml"), jobs=2)
    assert main(["--from-artifacts", str(ARTIFACTS / "healthy"), "--jobs", "2"]) == EXIT_COULD_NOT_RUN
    assert "a judging process died" in capsys.readouterr().err
