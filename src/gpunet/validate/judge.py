"""Judge an artifacts folder: run the catalog's checks over it and return every result."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gpunet.progress import progress
from gpunet.validate.artifacts import Artifacts
from gpunet.validate.checks import CHECKS, Catalog, load_catalog
from gpunet.validate.checks.traffic import PairBandwidth, PairMeasurement, bandwidth_matrix
from gpunet.validate.coverage import add_not_checked, collapse_unreachable, unreachable_hosts
from gpunet.validate.limit import limit_manifest
from gpunet.validate.manifest import Manifest, read_manifest
from gpunet.validate.results import Result, Status


@dataclass(frozen=True)
class Verdict:
    results: list[Result]
    manifest: Manifest
    pairs: list[PairMeasurement]
    artifacts: Path


def judge(folder: Path, catalog: Catalog | None = None, limit: set[str] | None = None) -> Verdict:
    catalog = catalog or load_catalog()
    manifest = read_manifest(folder)
    if limit:
        manifest = limit_manifest(manifest, limit)
    # Catalog overrides win over the thresholds the manifest was written with.
    manifest = replace(manifest, thresholds=catalog.thresholds(manifest.thresholds))
    artifacts = Artifacts(folder, manifest)
    results: list[Result] = []
    for index, name in enumerate(progress(list(catalog.checks), "judging: check")):
        results.extend(_run_check(name, artifacts))
        artifacts.keep_only(_tools_read_after(catalog.checks[index + 1 :]))
    results = collapse_unreachable(results, unreachable_hosts(folder, manifest), manifest)
    results = add_not_checked(results, manifest, catalog.checks)
    try:
        matrix = bandwidth_matrix(PairBandwidth(artifacts))
    except Exception:  # the heatmap is decoration; its pairs' verdicts are already in results
        matrix = []
    return Verdict(results, manifest, matrix, folder)


def _tools_read_after(checks: list[str]) -> set[str]:
    """The tools the remaining checks read, and perftest for the pair matrix built last."""
    return {"perftest"}.union(*(CHECKS[name].commands for name in checks))


def _run_check(name: str, artifacts: Artifacts) -> list[Result]:
    """The check's results; a crash inside it becomes one error result naming the file it was
    reading, so a malformed input never ends as an internal error (exit 1)."""
    results: list[Result] = []
    try:
        results.extend(CHECKS[name](artifacts).run())
    except Exception as error:
        where = artifacts.last_read or "no file read yet"
        reason = f"check crashed while judging {where}: {type(error).__name__}: {error}"
        results.append(Result(name, artifacts.manifest.fabric, Status.ERROR, "a verdict", "none", reason))
    return results
