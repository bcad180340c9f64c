"""Judge one host with gpunet-validate's own host checks, and sum it up in one line."""

from __future__ import annotations

import re
from pathlib import Path

from gpunet.validate.artifacts import Artifacts
from gpunet.validate.checks import CHECKS
from gpunet.validate.manifest import Manifest
from gpunet.validate.results import Measurement, Result, Status

# The catalog's checks that read only the host's own state (no peers, no switches).
NODE_CHECKS = (
    "nic_port_state",
    "roce_v2_gid",
    "nic_qos",
    "nic_prio_tc",
    "nic_ets",
    "nic_cable_length",
    "gpu_count",
    "nvlink",
    "ntp_offset",
    "firewall_rules",
    "nccl_config",
)
REASON_PREFIX = "gpunet:"
_REASON_MAX = 120  # a drain reason shows in sinfo; keep it to one readable line
# Artifacts' parse errors end with what the tool printed; on a node that says most (a daemon that
# does not answer, a command that timed out), so the line shows that part.
_OUTPUT_STARTS = re.compile(r"\(output starts: (?P<quote>['\"])(?P<text>.*)(?P=quote)\)$")
_COLLECTOR_PREFIX = "gpunet verify: "


def judge_node(
    folder: Path, manifest: Manifest, checks: tuple[str, ...] = NODE_CHECKS, measure: bool = False
) -> tuple[list[Result], list[Measurement]]:
    """The results, and with `measure` the numbers the checks read (for the Prometheus textfile)."""
    artifacts = Artifacts(folder, manifest, measuring=measure)
    results: list[Result] = []
    measurements: list[Measurement] = []
    for name in checks:
        check = CHECKS[name](artifacts)
        results.extend(check.run())
        measurements.extend(check.measurements or ())
    return results, measurements


def first_problem(results: list[Result]) -> Result | None:
    """The first failed check, else the first that could not run; None when the node is healthy."""
    for status in (Status.FAIL, Status.ERROR):
        found = next((result for result in results if result.status == status), None)
        if found:
            return found
    return None


def summary_line(results: list[Result]) -> str:
    """`gpunet: <check> <target> <what is wrong>` or `gpunet: healthy (...)`: also the drain reason."""
    problem = first_problem(results)
    if problem is None:
        passed = sum(result.status == Status.PASS for result in results)
        skipped = sum(result.status == Status.SKIPPED for result in results)
        return f"{REASON_PREFIX} healthy ({passed} passed, {skipped} skipped)"
    what = problem.actual if problem.status == Status.FAIL else f"could not run: {_why(problem.message)}"
    line = f"{REASON_PREFIX} {problem.check} {problem.target} {what}"
    line = " ".join(line.split())  # one line, whatever the tool printed
    return line if len(line) <= _REASON_MAX else line[: _REASON_MAX - 3] + "..."


def _why(message: str) -> str:
    match = _OUTPUT_STARTS.search(message)
    return match["text"].removeprefix(_COLLECTOR_PREFIX) if match else message
