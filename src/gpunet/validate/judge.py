"""Judge an artifacts folder: run the catalog's checks over it and return every result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from gpunet.progress import progress
from gpunet.validate.artifacts import Artifacts
from gpunet.validate.batches import (
    PARTS_PER_PROCESS,
    Batch,
    batches,
    in_parts,
    judge_in_processes,
    process_count,
)
from gpunet.validate.checks import CHECKS, Catalog, load_catalog
from gpunet.validate.checks.traffic import PairBandwidth, PairMeasurement, bandwidth_matrix
from gpunet.validate.coverage import add_not_checked, collapse_unreachable, unreachable_hosts
from gpunet.validate.limit import Limit, apply_limit, left_out_results, without_partner_results
from gpunet.validate.manifest import Manifest, read_manifest
from gpunet.validate.results import Measurement, Result, ResultRow, Status, as_rows, from_rows


@dataclass(frozen=True)
class Verdict:
    results: list[Result]
    manifest: Manifest
    pairs: list[PairMeasurement]
    artifacts: Path
    # The numbers the checks read (Check.measure), in catalog order; only with judge(measure=True).
    measurements: list[Measurement] = field(default_factory=list)


def judge(
    folder: Path,
    catalog: Catalog | None = None,
    limit: set[str] | None = None,
    jobs: int | None = None,
    measure: bool = False,
) -> Verdict:
    """Every result of the catalog's checks over `folder`, in catalog order. `jobs`: how many
    processes judge (default: one per CPU from PARALLEL_FROM_HOSTS hosts on, else one); the
    results are the same whatever the number. `measure`: also keep the numbers the checks read
    (for the Prometheus report), while their files are parsed anyway."""
    catalog = catalog or load_catalog()
    manifest = read_manifest(folder)
    limited: Limit | None = None
    if limit:
        limited = apply_limit(manifest, limit)
        manifest = limited.manifest
    # Catalog overrides win over the thresholds the manifest was written with.
    manifest = replace(manifest, thresholds=catalog.thresholds(manifest.thresholds))
    checks = list(catalog.checks)
    work = batches(checks)
    processes = process_count(jobs, manifest, len(work))
    by_check: dict[str, list[Result]] = {}
    measured: dict[str, list[Measurement]] = {}
    matrix: list[PairMeasurement] | None = None
    inherited = (folder, manifest, measure)
    if processes > 1:
        work = in_parts(work, PARTS_PER_PROCESS * processes)
        # Parts finish in any order: each check's results are joined in part order at the end.
        parts: dict[str, list[tuple[int, list[Result], list[Measurement]]]] = {}
        judged = judge_in_processes(inherited, work, processes, _judge_batch_in_worker)
        for batch, (batch_rows, batch_measured, batch_matrix) in progress(
            judged, "judging: batch", len(work)
        ):
            for name, rows in batch_rows.items():
                parts.setdefault(name, []).append((batch.part, from_rows(rows), batch_measured[name]))
            matrix = batch_matrix if batch_matrix is not None else matrix
        for name, pieces in parts.items():
            pieces.sort(key=lambda piece: piece[0])
            by_check[name] = _one_crash_at_most([result for _, found, _ in pieces for result in found])
            measured[name] = [measurement for _, _, taken in pieces for measurement in taken]
    else:  # one process: one batch of every check, which also builds the matrix
        everything = Batch(tuple(checks), with_matrix=True)
        by_check, measured, matrix = _judge_batch(inherited, everything, "judging: check")
    if matrix is None:  # no batch read the bandwidth captures: the catalog has no pair_bandwidth
        matrix = _pair_matrix(Artifacts(folder, manifest))
    results = [result for name in checks for result in by_check[name]]
    results = collapse_unreachable(results, unreachable_hosts(folder, manifest), manifest)
    results = add_not_checked(results, manifest, catalog.checks)
    if limited is not None:
        results = without_partner_results(results, limited)
    # What a limited collection could not run (limit.json), whether or not this judging is limited.
    results += left_out_results(folder, catalog.checks)
    measurements = [measurement for name in checks for measurement in measured.get(name, ())]
    return Verdict(results, manifest, matrix, folder, measurements)


def _judge_batch(
    inherited: tuple[Path, Manifest, bool], batch: Batch, progress_label: str | None = None
) -> tuple[dict[str, list[Result]], dict[str, list[Measurement]], list[PairMeasurement] | None]:
    """One batch's results and measurements by check (and the pair matrix, if it reads the
    bandwidth captures), each parsed file held only as long as a check still to run reads it.
    `progress_label`: show progress per check (the judging process only; workers draw none)."""
    folder, manifest, measure = inherited
    artifacts = Artifacts(folder, batch.manifest_part(manifest), measure)
    names = list(batch.checks)
    results: dict[str, list[Result]] = {}
    measured: dict[str, list[Measurement]] = {}
    for index, name in enumerate(progress(names, progress_label) if progress_label else names):
        read_later = _tools_read_after(names[index + 1 :], batch.with_matrix)
        artifacts.forget_after_use(set(CHECKS[name].commands) - read_later)
        results[name], measured[name] = _run_check(name, artifacts)
        artifacts.keep_only(read_later)
    return results, measured, _pair_matrix(artifacts) if batch.with_matrix else None


def _judge_batch_in_worker(
    inherited: tuple[Path, Manifest, bool], batch: Batch
) -> tuple[dict[str, list[ResultRow]], dict[str, list[Measurement]], list[PairMeasurement] | None]:
    """_judge_batch in a judging process: the results travel back as rows (results.as_rows)."""
    results, measured, matrix = _judge_batch(inherited, batch)
    return {name: as_rows(found) for name, found in results.items()}, measured, matrix


def _pair_matrix(artifacts: Artifacts) -> list[PairMeasurement]:
    try:
        return bandwidth_matrix(PairBandwidth(artifacts))
    except Exception:  # the heatmap is decoration; its pairs' verdicts are already in results
        return []


def _tools_read_after(checks: list[str], with_matrix: bool) -> set[str]:
    """The tools the remaining checks read, and perftest if the pair matrix is built last."""
    tools = {"perftest"} if with_matrix else set()
    return tools.union(*(CHECKS[name].commands for name in checks))


def _one_crash_at_most(results: list[Result]) -> list[Result]:
    """A check that crashes does so in each part it is judged in: its first crash stands for all."""
    crashes = [result for result in results if result.expected == _CRASHED]
    return [result for result in results if result.expected != _CRASHED or result is crashes[0]]


# The `expected` of the error result a crashed check leaves.
_CRASHED = "a verdict"


def _run_check(name: str, artifacts: Artifacts) -> tuple[list[Result], list[Measurement]]:
    """The check's results and measurements; a crash inside it becomes one error result naming
    the file it was reading, so a malformed input never ends as an internal error (exit 1)."""
    results: list[Result] = []
    check = CHECKS[name](artifacts)
    try:
        results.extend(check.run())
    except Exception as error:
        where = artifacts.last_read or "no file read yet"
        reason = f"check crashed while judging {where}: {type(error).__name__}: {error}"
        results.append(Result(name, artifacts.manifest.fabric, Status.ERROR, _CRASHED, "none", reason))
    return results, check.measurements or []
