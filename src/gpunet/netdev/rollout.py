"""The canary wave of a QoS rollout (playbooks/switches.yml -e gpunet_rollout=canary).

The canaries are one leaf per rail, all taken from the first GPU host (by name) that has a NIC on
that rail, so in a rail-optimised fabric the wave is one scalable unit's leaves and every rail of
the hosts behind them runs on the new policy. The gate then proves the policy with traffic on
exactly those hosts. A rollback is the same declarative push of each canary's previous intent: the
newest version of its `intended/<fabric>/<switch>.cfg` that Git holds and that differs from the file
being pushed, so what rolls back is a reviewed config, not a masked running-config backup; after a
failed gate, the version the canary ran before the push (running_intent, from the push's backup)
where that is another one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.model.fabric import Fabric, Switch
from gpunet.netdev.push import plan_remediation


class RolloutError(ValueError):
    """The rollout cannot be planned as asked; nothing has been pushed."""


@dataclass(frozen=True)
class PreviousIntent:
    switch: str
    commit: str  # the Git commit whose version of the file is the rollback
    config: str


@dataclass(frozen=True)
class CanaryPlan:
    canaries: tuple[str, ...]
    hosts: tuple[str, ...]  # GPU hosts with a NIC on a canary: where the gate sends traffic
    rest: tuple[str, ...]  # the other leaves, pushed only after the gate passes
    previous: dict[str, PreviousIntent] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "canaries": list(self.canaries),
            "hosts": list(self.hosts),
            "rest": list(self.rest),
            "previous": {name: p.commit for name, p in sorted(self.previous.items())},
            "note": self.note,
        }

    @property
    def note(self) -> str:
        """What an operator should know about the wave before it is pushed."""
        if self.rest:
            return ""
        return (
            "the canary wave is every leaf (each rail has one leaf here): only the spines wait for the "
            "gate; name a smaller wave with gpunet_canary"
        )


def choose_canaries(fabric: Fabric, named: Sequence[str] = ()) -> list[str]:
    """The named leaves, checked; else one leaf per rail, all from the first host with that rail."""
    leaves = sorted(s.name for s in fabric.switches_in_role("leaf"))
    if named:
        unknown = sorted(set(named) - set(leaves))
        if unknown:
            raise RolloutError(
                f"gpunet_canary names {', '.join(unknown)}, not a leaf of fabric {fabric.name} "
                f"(its leaves: {', '.join(leaves) or 'none'}); name leaves only, spines follow the gate"
            )
        return sorted(set(named))
    chosen: dict[int, str] = {}
    for host in sorted(fabric.hosts.values(), key=lambda h: h.name):
        for nic in host.nics:
            if nic.switch in leaves:
                chosen.setdefault(nic.rail, nic.switch)
    if not chosen:
        raise RolloutError(
            f"fabric {fabric.name} has no GPU host NIC on a leaf, so no canary carries traffic the gate "
            "could judge; name the canaries with gpunet_canary or push without gpunet_rollout=canary"
        )
    return sorted(set(chosen.values()))


def hosts_behind(fabric: Fabric, leaves: Sequence[str]) -> list[str]:
    wanted = set(leaves)
    return sorted(h.name for h in fabric.hosts.values() if any(n.switch in wanted for n in h.nics))


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=False)


def earlier_versions(path: Path) -> Iterator[tuple[str, str]]:
    """(commit, text) of each committed version of `path` that differs from the file on disk, newest first."""
    folder = path.parent
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise RolloutError(
            f"{path}: not in a Git repository, so there is no previous intent to roll back to; "
            "commit intended/ (gpunet render, then review and commit) before a canary rollout"
        )
    root = Path(top.stdout.decode().strip())
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    current = path.read_bytes()
    log = _git(root, "log", "--format=%H", "--", relative)
    for commit in log.stdout.decode().split():
        shown = _git(root, "show", f"{commit}:{relative}")
        if shown.returncode == 0 and shown.stdout != current:
            yield commit, shown.stdout.decode()


def running_intent(path: Path, switch: Switch, running: str) -> tuple[str, str] | None:
    """(commit, text) of the newest earlier version of `path` that the switch runs, within gpunet's
    scope, per `running` (its config before the push); None where it runs none of them (drift).

    The plan's previous intent is the newest earlier version, which is not what the canary runs
    when a later version was committed and never deployed (a v2 that failed its gate, then a v3):
    rolling back to it would push the failed v2."""
    for commit, text in earlier_versions(path):
        if plan_remediation(switch, running, text).in_sync:
            return commit, text
    return None


def previous_intent(path: Path) -> tuple[str, str]:
    """(commit, text) of the newest committed version of `path` that differs from the file on disk."""
    for found in earlier_versions(path):
        return found
    raise RolloutError(
        f"{path}: Git holds no earlier version that differs from it (its first rollout, or it was never "
        "committed), so a failed gate could not roll this canary back; commit the config it runs now "
        "first, or push it without gpunet_rollout=canary"
    )


def plan_canary(fabric: Fabric, intended: Path, named: Sequence[str] = ()) -> CanaryPlan:
    """The waves and each canary's rollback, refused before anything is pushed where one is missing."""
    canaries = choose_canaries(fabric, named)
    missing = [name for name in canaries if not (intended / f"{name}.cfg").is_file()]
    if missing:
        raise RolloutError(f"no reviewed config for {', '.join(missing)} in {intended} (run `gpunet render`)")
    previous = {}
    for name in canaries:
        commit, config = previous_intent(intended / f"{name}.cfg")
        previous[name] = PreviousIntent(name, commit, config)
    rest = tuple(sorted(s.name for s in fabric.switches_in_role("leaf") if s.name not in canaries))
    return CanaryPlan(tuple(canaries), tuple(hosts_behind(fabric, canaries)), rest, previous)
