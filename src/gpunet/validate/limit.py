"""`--limit` for an existing artifacts folder: judge only these GPU hosts (and the pairs, NCCL
runs and iperf3 pairs among them); switches stay, their counters frame everyone's traffic."""

from __future__ import annotations

from dataclasses import replace

from gpunet.validate.manifest import Manifest, ManifestError


def limit_manifest(manifest: Manifest, names: set[str]) -> Manifest:
    unknown = sorted(names - set(manifest.hosts))
    if unknown:
        raise ManifestError(
            f"--limit names hosts that are not GPU hosts of this artifacts folder: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(manifest.hosts))})"
        )
    rounds = [
        [pair for pair in round_ if pair["client"] in names and pair["server"] in names]
        for round_ in manifest.pair_rounds
    ]
    return replace(
        manifest,
        hosts={name: host for name, host in manifest.hosts.items() if name in names},
        pair_rounds=rounds,
        nccl_runs={name: run for name, run in manifest.nccl_runs.items() if set(run.hosts) <= names},
        iperf3_pairs=[pair for pair in manifest.iperf3_pairs if set(pair) <= names],
    )
