"""What a simulated OS refuses at commit time (LAB EQUIPMENT): statements that are each valid but
not allowed together on one interface, from behaviour/<os>.yml `commit_refusals` (each with its
vendor source there), never from the push's data."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpunet.lab.switchsim.storage import storage_rules


@dataclass(frozen=True)
class CommitRefusal:
    path: str  # the [edit ...] hierarchy the OS names
    statement: str
    message: str


def commit_refusals(platform: str, lines: list[str]) -> list[CommitRefusal]:
    """Every constraint the candidate `lines` break, per interface, in the data's order."""
    found: list[CommitRefusal] = []
    for rule in storage_rules(platform).data.get("commit_refusals") or []:
        ports_per_pattern = [
            {match["port"] for line in lines if (match := re.fullmatch(pattern, line))}
            for pattern in rule["patterns"]
        ]
        for port in sorted(set.intersection(*ports_per_pattern)):
            found.append(CommitRefusal(rule["path"].format(port=port), rule["statement"], rule["message"]))
    return found


def junos_commit_error(refusals: list[CommitRefusal]) -> str:
    """Junos's report of failed constraints: each statement under its [edit] path, then the verdict."""
    lines = []
    for refusal in refusals:
        lines += [f"[edit {refusal.path}]", f"  '{refusal.statement}'", f"    {refusal.message}"]
    return "\n".join([*lines, "error: commit failed: (statements constraint check failed)"])
