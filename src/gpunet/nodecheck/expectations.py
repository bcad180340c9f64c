"""The node's expectations file: the manifest `gpunet-validate` writes, cut down to one host.

Reusing the manifest format means the node check judges with exactly the checks, thresholds and
parsers of `gpunet-validate`, and needs neither the inventory nor the controller at run time.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path

from gpunet.model.fabric import Fabric
from gpunet.validate.manifest import MANIFEST, Manifest, ManifestError, build_manifest, read_manifest

DEFAULT_PATH = Path("/etc/gpunet/node-expectations.json")


class ExpectationsError(ValueError):
    """The expectations file is missing, unreadable or not for exactly one host."""


def node_expectations(fabric: Fabric, host: str) -> Manifest:
    """One host's part of the manifest: no switches, pairs or multi-node runs (not judged on a node)."""
    if host not in fabric.hosts:
        known = ", ".join(sorted(fabric.hosts)) or "none"
        raise ExpectationsError(f"{host!r} is not a GPU host of fabric {fabric.name} (GPU hosts: {known})")
    manifest = build_manifest(fabric, limit={host})
    return replace(manifest, switches={}, pair_rounds=[], nccl_runs={}, iperf3_pairs=[])


def expectations_json(manifest: Manifest) -> str:
    return json.dumps(manifest.as_dict(), indent=2, sort_keys=True) + "\n"


def read_expectations(path: Path) -> Manifest:
    """The manifest in `path`; ExpectationsError naming the file when it cannot be used."""
    if not path.is_file():
        raise ExpectationsError(f"{path}: no such file (install it with roles/slurm_healthcheck)")
    try:
        manifest = read_manifest(path.parent) if path.name == MANIFEST else _read_renamed(path)
    except ManifestError as error:
        raise ExpectationsError(str(error)) from None
    if len(manifest.hosts) != 1:
        raise ExpectationsError(f"{path}: expected exactly one host, found {len(manifest.hosts)}")
    return manifest


def _read_renamed(path: Path) -> Manifest:
    """read_manifest reads <folder>/manifest.json; the installed file has its own name."""
    with tempfile.TemporaryDirectory(prefix="gpunet-expect-") as scratch:
        try:
            (Path(scratch) / MANIFEST).write_text(path.read_text())
        except OSError as error:
            raise ManifestError(f"{path}: {error.strerror}") from None
        try:
            return read_manifest(Path(scratch))
        except ManifestError as error:
            raise ManifestError(str(error).replace(str(Path(scratch) / MANIFEST), str(path))) from None
