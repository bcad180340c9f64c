"""Nothing is left unjudged: every host and switch of the manifest appears in the results.

Two rules run after the checks:
- A host for which nothing at all was collected (its `hosts/<host>/` folder is missing or empty,
  while it is in the manifest) was not reachable: its many "X was not collected" errors are
  replaced by one result naming the host as unreachable, with the collection's own reason where
  `hosts/<host>/collection-error.txt` holds one.
- A device no result mentions gets one `not checked` result saying why (its platform's show
  commands are read by no selected check, it has no lossless port, or no selected check applies).
"""

from __future__ import annotations

import os
from pathlib import Path

from gpunet.validate.artifacts import collection_error
from gpunet.validate.manifest import Manifest
from gpunet.validate.results import Result, Status, target_of

COVERAGE_CHECK = "coverage"
REACHABLE_CHECK = "host_collected"
_NOT_COLLECTED = "was not collected"


def devices_of(target: str, manifest: Manifest | None = None) -> set[str]:
    """The devices a result's target names: "a:x<->b:y" -> {a, b}; "nccl:<run>" -> the run's hosts."""
    if manifest is not None and target.startswith("nccl:") and target[5:] in manifest.nccl_runs:
        return set(manifest.nccl_runs[target[5:]].hosts)
    if "<->" not in target:  # most targets: "gpu01", "gpu01:mlx5_0"
        return {target.partition(":")[0]}
    return {end.split(":", 1)[0] for end in target.split("<->")}


def mentioned_devices(targets: set[str], manifest: Manifest) -> set[str]:
    """The devices a set of result targets names (each target once: checks share targets)."""
    joined = {target for target in targets if "<->" in target or target.startswith("nccl:")}
    # "gpu01" or "gpu01:mlx5_0": one device each (243,000 targets at 4,096 hosts), in one comprehension.
    mentioned = {target.partition(":")[0] for target in targets - joined}
    for target in joined:
        mentioned |= devices_of(target, manifest)
    return mentioned


def unreachable_hosts(root: Path, manifest: Manifest) -> dict[str, str]:
    """Host -> why nothing was collected from it."""
    unreachable = {}
    for name in manifest.hosts:
        folder = root / "hosts" / name
        reason = collection_error(os.fspath(root), f"hosts/{name}")
        if reason is not None:
            unreachable[name] = reason
        elif not _holds_a_capture(folder):
            unreachable[name] = f"nothing was collected from it (no files under hosts/{name}/)"
    return unreachable


def _holds_a_capture(folder: Path) -> bool:
    """Whether `folder` holds a *.txt file: the first one found answers (a host folder holds about
    fifty, and globbing them all for 4,096 hosts took a second)."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.endswith(".txt") and entry.is_file() for entry in entries)
    except (FileNotFoundError, NotADirectoryError):
        return False


def collapse_unreachable(
    results: list[Result], unreachable: dict[str, str], manifest: Manifest
) -> list[Result]:
    """One error per unreachable host instead of one per file it did not deliver."""
    if not unreachable:
        return results
    kept = [
        result
        for result in results
        if not (
            result.status in (Status.ERROR, Status.SKIPPED)
            and devices_of(result.target, manifest) & unreachable.keys()
            and _NOT_COLLECTED in result.message
        )
    ]
    for host, reason in sorted(unreachable.items()):
        kept.append(
            Result(
                REACHABLE_CHECK,
                host,
                Status.ERROR,
                "host reachable and its outputs collected",
                "unreachable",
                f"{host} is unreachable: {reason}",
                "host",
            )
        )
    return kept


def add_not_checked(results: list[Result], manifest: Manifest, selected: list[str]) -> list[Result]:
    """A `not checked` result, with the reason, for every device no result mentions."""
    from gpunet.validate.checks.switch import SWITCH_CHECK_PLATFORMS  # here: checks import this package

    mentioned = mentioned_devices(set(map(target_of, results)), manifest)
    added = []
    for host in manifest.hosts:
        if host not in mentioned:
            reason = (
                f"no check of the catalog ({', '.join(selected) or 'none selected'}) applies to this host"
            )
            added.append(_not_checked(host, reason))
    for switch in manifest.switches.values():
        if switch.name in mentioned:
            continue
        readers = [name for name in selected if switch.platform in SWITCH_CHECK_PLATFORMS.get(name, ())]
        if not switch.lossless_ports:
            reason = "the inventory gives this switch no lossless port, so no switch check applies"
        elif not readers:
            known = [
                name for name, platforms in SWITCH_CHECK_PLATFORMS.items() if switch.platform in platforms
            ]
            reason = f"no selected check reads {switch.platform} output" + (
                f" (checks that do: {', '.join(known)})" if known else ""
            )
        else:
            reason = f"{', '.join(readers)} produced no result for it"
        added.append(_not_checked(switch.name, reason))
    return results + added


def _not_checked(device: str, reason: str) -> Result:
    return Result(
        COVERAGE_CHECK,
        device,
        Status.NOT_CHECKED,
        "at least one applicable check",
        "not checked",
        reason,
        "coverage",
    )
