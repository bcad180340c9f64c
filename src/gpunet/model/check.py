"""The inventory check as one call: load, validate, cross-check; used by the CLI and the preflight plugin."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.gcpause import paused_gc
from gpunet.model.build import RawInventory, build_fabric
from gpunet.model.errors import InventoryInvalidError, Problem
from gpunet.model.fabric import Fabric
from gpunet.model.loader import load_inventory


@dataclass
class CheckResult:
    fabric: Fabric | None
    problems: list[Problem] = field(default_factory=list)
    skipped_files: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.fabric is not None and not self.problems

    def as_dict(self) -> dict[str, object]:
        fabric = self.fabric
        return {
            "ok": self.ok,
            "problems": [p.as_dict() for p in self.problems],
            "skipped_vault_files": list(self.skipped_files),
            "summary": None
            if fabric is None
            else {
                "fabric": fabric.name,
                "gpu_hosts": len(fabric.hosts),
                "switches": len(fabric.switches),
                "nics": sum(len(h.nics) for h in fabric.hosts.values()),
                "platforms": fabric.platforms,
            },
        }


def check_raw(raw: RawInventory) -> CheckResult:
    try:
        with paused_gc():
            fabric = build_fabric(raw)
        return CheckResult(fabric=fabric, skipped_files=raw.skipped_files)
    except InventoryInvalidError as error:
        return CheckResult(fabric=None, problems=error.problems, skipped_files=raw.skipped_files)


def check_inventory(source: str | Path, vault_password_file: str | Path | None = None) -> CheckResult:
    try:
        with paused_gc():
            raw = load_inventory(source, vault_password_file)
    except InventoryInvalidError as error:
        return CheckResult(fabric=None, problems=error.problems)
    return check_raw(raw)


def load_fabric(source: str | Path, vault_password_file: str | Path | None = None) -> Fabric:
    """The validated Fabric of an inventory; raises InventoryInvalidError listing every problem."""
    result = check_inventory(source, vault_password_file)
    if result.fabric is None:
        raise InventoryInvalidError(result.problems)
    return result.fabric


def checked_fabric(
    command: str, source: str | Path, vault_password_file: str | Path | None, outcome: str
) -> Fabric | None:
    """The Fabric of a clean inventory, or None once every problem and a summary line naming the
    command and what it did not do (`outcome`) are on stderr: the shared start of the CLIs that
    act on a checked inventory, which then exit 2."""
    result = check_inventory(source, vault_password_file)
    if result.ok and result.fabric is not None:
        return result.fabric
    for problem in result.problems:
        print(problem, file=sys.stderr)
    print(f"{command}: {len(result.problems)} problem(s) in {source}; {outcome}", file=sys.stderr)
    return None
