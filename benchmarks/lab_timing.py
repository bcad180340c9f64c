"""How long the lab takes, phase by phase: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/lab_timing.py [--keep]

Tears down any lab in this checkout, then times `gpunet lab up` (images cached after the first
run), `ansible-playbook site.yml` twice (first deploy, then the idempotent re-run),
`gpunet-validate`, a second `gpunet lab up` (nothing to do) and `gpunet lab down`, and prints a
Markdown table with each phase's wall time and exit code. The base image build is timed only
when the image is missing (about 90 s on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> tuple[float, int]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "CONTAINERS_CONF": str(REPO_ROOT / "molecule" / "containers.conf"),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
    }
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    return time.monotonic() - started, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="leave the lab up at the end")
    args = parser.parse_args()
    artifacts = Path(tempfile.mkdtemp(prefix="gpunet-lab-timing-"))
    phases = [
        ("lab down (clean start)", ["gpunet", "lab", "down"]),
        ("lab up", ["gpunet", "lab", "up"]),
        ("site.yml, first run", ["ansible-playbook", "site.yml", "-i", "inventories/lab"]),
        ("site.yml, second run", ["ansible-playbook", "site.yml", "-i", "inventories/lab"]),
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
    for name, command in phases:
        seconds, rc = timed(command)
        total += seconds
        print(f"| {name} | {seconds:.1f} | {rc} |", flush=True)
    print(f"| total | {total:.1f} | |")
    print(f"\n{os.cpu_count()} CPUs; validation artifacts in {artifacts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
