"""How long the lab takes, phase by phase: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/lab_timing.py [--keep] [--gpu-nodes-serial 100%]

Tears down any lab in this checkout, then times `gpunet lab up` (images cached after the first
run), `ansible-playbook site.yml` twice (first deploy, then the idempotent re-run),
`gpunet-validate`, a second `gpunet lab up` (nothing to do) and `gpunet lab down`, and prints a
Markdown table with each phase's wall time and exit code, the ratio of the second run to the
first, the load average at each run and the slowest tasks of both runs (ansible.posix.profile_tasks).
The base image build is timed only when the image is missing (about 90 s on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


PROFILE_TASKS_COUNT = 10
# profile_tasks' summary lines: "role : task name ------------------------- 12.34s"
PROFILE_LINE = re.compile(r"^(?P<task>.+?) -{3,} (?P<seconds>\d+\.\d+)s$")
# PLAY RECAP lines: "gpu01 : ok=42 changed=0 unreachable=0 failed=0 skipped=3 ..."
RECAP = re.compile(r"^\S+\s+:\s+ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s.*\sskipped=(?P<skipped>\d+)")


def timed(command: list[str]) -> tuple[float, int, str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "CONTAINERS_CONF": str(REPO_ROOT / "molecule" / "containers.conf"),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        # Only ansible-playbook reads these: the summary of the slowest tasks at the end of a run.
        "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_tasks",
        "PROFILE_TASKS_TASK_OUTPUT_LIMIT": str(PROFILE_TASKS_COUNT),
    }
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    return time.monotonic() - started, done.returncode, done.stdout


def slowest_tasks(stdout: str) -> list[tuple[str, float]]:
    """The task summary profile_tasks prints after the play recap, slowest first."""
    _, _, recap = stdout.rpartition("PLAY RECAP")
    found = (PROFILE_LINE.match(line.strip()) for line in recap.splitlines())
    return [(match["task"], float(match["seconds"])) for match in found if match]


def recap_totals(stdout: str) -> dict[str, int]:
    """ok, changed and skipped summed over the hosts of every PLAY RECAP: changed is 0 on an
    idempotent run, and ok (task results, most of them a module run on a host) does not move
    with the machine's load as the seconds do."""
    found = [match for match in (RECAP.match(line.strip()) for line in stdout.splitlines()) if match]
    return {key: sum(int(match[key]) for match in found) for key in ("ok", "changed", "skipped")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="leave the lab up at the end")
    parser.add_argument(
        "--gpu-nodes-serial",
        help="pass -e gpu_nodes_serial=VALUE to site.yml (make demo and tests/e2e pass 100%%); "
        "default: the playbooks' own batches (25%%), as a plain ansible-playbook site.yml runs",
    )
    args = parser.parse_args()
    site = ["ansible-playbook", "site.yml", "-i", "inventories/lab"]
    if args.gpu_nodes_serial:
        site += ["-e", f"gpu_nodes_serial={args.gpu_nodes_serial}"]
    artifacts = Path(tempfile.mkdtemp(prefix="gpunet-lab-timing-"))
    phases = [
        ("lab down (clean start)", ["gpunet", "lab", "down"]),
        ("lab up", ["gpunet", "lab", "up"]),
        ("site.yml, first run", site),
        ("site.yml, second run", site),
        (
            "gpunet-validate",
            ["gpunet-validate", "-i", "inventories/lab", "--artifacts", str(artifacts / "a"), "--quiet"],
        ),
        ("lab up again", ["gpunet", "lab", "up"]),
    ]
    if not args.keep:
        phases.append(("lab down", ["gpunet", "lab", "down"]))
    print("| phase | wall time (s) | exit code |\n| --- | ---: | ---: |")
    total = 0.0
    site_runs: dict[str, tuple[float, str]] = {}
    loads: list[str] = []
    for name, command in phases:
        load = os.getloadavg()[0]
        seconds, rc, stdout = timed(command)
        total += seconds
        print(f"| {name} | {seconds:.1f} | {rc} |", flush=True)
        if command[0] == "ansible-playbook":
            site_runs[name] = (seconds, stdout)
            loads.append(f"{name}: {load:.1f} at start, {os.getloadavg()[0]:.1f} at end")
    print(f"| total | {total:.1f} | |")
    (first, _), (second, _) = site_runs.values()
    print(f"\nsecond site.yml / first: {second / first:.2f}; load average (1 min): {'; '.join(loads)}")
    for name, (_, stdout) in site_runs.items():
        totals = ", ".join(f"{key}: {count}" for key, count in recap_totals(stdout).items())
        print(f"\nslowest tasks, {name} ({totals}):\n\n| task | s |\n| --- | ---: |")
        for task, task_seconds in slowest_tasks(stdout):
            print(f"| {task} | {task_seconds:.2f} |")
    batches = args.gpu_nodes_serial or "default"
    print(f"\n{os.cpu_count()} CPUs; gpu_nodes_serial={batches}; validation artifacts in {artifacts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
