"""Judge an artifacts folder: run the catalog's checks over it and return every result."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gpunet.validate.artifacts import Artifacts
from gpunet.validate.checks import CHECKS, Catalog, load_catalog
from gpunet.validate.checks.traffic import PairBandwidth, PairMeasurement, bandwidth_matrix
from gpunet.validate.manifest import Manifest, read_manifest
from gpunet.validate.results import Result


@dataclass(frozen=True)
class Verdict:
    results: list[Result]
    manifest: Manifest
    pairs: list[PairMeasurement]
    artifacts: Path


def judge(folder: Path, catalog: Catalog | None = None) -> Verdict:
    catalog = catalog or load_catalog()
    manifest = read_manifest(folder)
    # Catalog overrides win over the thresholds the manifest was written with.
    manifest = replace(manifest, thresholds=catalog.thresholds(manifest.thresholds))
    artifacts = Artifacts(folder, manifest)
    results: list[Result] = []
    for name in catalog.checks:
        results.extend(CHECKS[name](artifacts).run())
    return Verdict(results, manifest, bandwidth_matrix(PairBandwidth(artifacts)), folder)
