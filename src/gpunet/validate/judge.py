"""Judge an artifacts folder: run the catalog's checks over it and return every result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gpunet.validate.artifacts import Artifacts
from gpunet.validate.checks import CHECKS, Catalog, load_catalog
from gpunet.validate.manifest import read_manifest
from gpunet.validate.results import Result


def judge(folder: Path, catalog: Catalog | None = None) -> list[Result]:
    catalog = catalog or load_catalog()
    manifest = read_manifest(folder)
    # Catalog overrides win over the thresholds the manifest was written with.
    manifest = replace(manifest, thresholds=catalog.thresholds(manifest.thresholds))
    artifacts = Artifacts(folder, manifest)
    results: list[Result] = []
    for name in catalog.checks:
        results.extend(CHECKS[name](artifacts).run())
    return results
