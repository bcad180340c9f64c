"""The canary gate (playbooks/switches.yml -e gpunet_rollout=canary): gpunet-validate on the GPU
hosts behind the canaries, with the checks that prove the switch policy with traffic, written into
the rollout folder; after the push, its verdict, against a baseline taken before it where asked.

Phase `before` (switches_rollout_baseline: true) judges the fabric as it is and keeps before.json.
Phase `after` judges it again (after.json, and gate.md for people), then passes where
gpunet-validate passed, or, with a baseline, where no check and target became a fail or error that
was not one before (gpunet.validate.regressions): a problem the fabric already had does not hold
back the rollout, a new one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpunet.validate.regressions import compare, describe, load_report

# The checks that prove a switch QoS policy with traffic (docs/playbooks.md, "Canary rollout").
GATE_CHECKS = (
    "nic_port_state",
    "link_qos",
    "pair_bandwidth",
    "pair_latency",
    "nccl_busbw",
    "switch_pfc",
    "switch_ecn",
    "lossless_queue_drops",
    "incast_ecn_marks",
    "incast_cnp",
    "incast_pfc_priority",
    "incast_lossless_drops",
    "incast_pfc_watchdog",
    "incast_bandwidth",
    "incast_alltoall_busbw",
)
# gpunet-validate's exits that carry a judged report (0 passed, 4 a check failed, 3 one could not
# run); 2 (usage, inventory) and 1 (internal) leave nothing to compare.
JUDGED = (0, 3, 4)


@dataclass(frozen=True)
class Source:
    """Where the gate's captures come from: collected now with -i, or an artifacts folder."""

    inventory: str = ""
    artifacts: Path | None = None

    def argv(self, collect_into: Path) -> list[str]:
        if self.artifacts is not None:
            return ["--from-artifacts", str(self.artifacts)]
        return ["-i", self.inventory, "--artifacts", str(collect_into)]

    def judged_folder(self, collect_into: Path) -> Path:
        return self.artifacts if self.artifacts is not None else collect_into


@dataclass(frozen=True)
class GateResult:
    exit_code: int  # 0 the rollout goes on; 4 it stops; 2 the gate could not judge
    message: str


def _validate(argv: Sequence[str]) -> int:
    from gpunet.validate.cli import main

    return main(list(argv))


def run_phase(phase: str, out: Path, source: Source, hosts: Sequence[str], checks: str) -> GateResult:
    common = ["--limit", ",".join(hosts), "--checks", checks, "--quiet"]
    collected = out / f"{phase}-artifacts"
    report = out / f"{phase}.json"
    code = _validate([*source.argv(collected), *common, "--format", "json", "--output", str(report)])
    if code not in JUDGED:
        return GateResult(2, f"gpunet-validate exited {code} judging the fabric {phase} the push: no verdict")
    if phase == "before":
        return GateResult(0, f"baseline: gpunet-validate exit {code}, kept in {report}")
    people = out / "gate.md"
    folder = source.judged_folder(collected)
    _validate(["--from-artifacts", str(folder), *common, "--format", "markdown", "--output", str(people)])
    baseline = out / "before.json"
    if not baseline.is_file():
        verdict = "passed" if code == 0 else "failed"
        return GateResult(0 if code == 0 else 4, f"gpunet-validate exit {code} ({verdict}); report {people}")
    comparison = compare(load_report(baseline), load_report(report))
    return GateResult(
        comparison.exit_code, f"against the baseline before the push: {describe(comparison)}; report {people}"
    )
