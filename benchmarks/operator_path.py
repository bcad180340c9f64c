"""How long the operator's own commands take on planned fabrics of growing size: a report, never a
pass/fail test.

Run: .venv/bin/python benchmarks/operator_path.py [--gpus 8192 16384 32768 65536] [--switch-radix 128]
     [--playbooks] [--work DIR]

For each GPU count: `gpunet plan --gpus N --switch-radix R --write-inventory DIR` writes an
inventory folder; then, as separate processes exactly as a user runs them, `gpunet inventory
check -i DIR` with no parse cache and again, `gpunet render -i DIR --out ...` from nothing and
again with nothing changed, and with --playbooks `ansible-playbook` of benchmarks/noop_play.yml
(the baseline: same inventory, no work), playbooks/preflight.yml twice (the first checks, the
second answers from the kept check) and playbooks/render.yml. Each
step's wall time and peak memory (the child's maximum resident set, from wait4) go into one
Markdown table. The default sweep is
1,024 to 8,192 hosts of 8 GPUs and 8 NICs; 65,536 GPUs is the issue's target fabric (about 2,560
switches). Each fabric starts with empty parse and render caches of its own (under the work folder),
so the first check reads every file. GPUNET_INVENTORY_LOADER=ansible in the environment measures
Ansible's loader instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GPUS_PER_HOST = 8


@dataclass
class Step:
    name: str
    seconds: float
    peak_mib: float
    ok: bool


def run_step(name: str, command: list[str], caches: Path) -> Step:
    """Run `command` from the project root; wall time and the child's own peak RSS. `caches` holds
    this fabric's parse and render caches (gpunet.cachedir), fresh for each fabric."""
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "GPUNET_PARSE_CACHE": str(caches / "inventory"),
        "GPUNET_RENDER_CACHE": str(caches / "render"),
    }
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=sink, stderr=subprocess.PIPE)
        assert process.stderr is not None
        errors = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        sys.stderr.write(f"{name} exited {process.returncode}: {errors.decode()[-2000:]}\n")
    return Step(name, seconds, usage.ru_maxrss / 1024, process.returncode == 0)


def measure(gpus: int, radix: int, work: Path, playbooks: bool) -> tuple[int, int, int, list[Step]]:
    inventory = work / f"inventory-{gpus}"
    intended = work / f"intended-{gpus}"
    shutil.rmtree(inventory, ignore_errors=True)
    shutil.rmtree(intended, ignore_errors=True)
    caches = work / f"caches-{gpus}"
    shutil.rmtree(caches, ignore_errors=True)
    gpunet = str(BIN / "gpunet")

    def step(name: str, command: list[str]) -> Step:
        return run_step(name, command, caches)

    steps = [
        step(
            "plan --write-inventory",
            [
                gpunet,
                "plan",
                "--gpus",
                str(gpus),
                "--switch-radix",
                str(radix),
                "--write-inventory",
                str(inventory),
            ],
        ),
        step("inventory check, first read (no cache)", [gpunet, "inventory", "check", "-i", str(inventory)]),
        step("inventory check, again", [gpunet, "inventory", "check", "-i", str(inventory)]),
        step("render, from nothing", [gpunet, "render", "-i", str(inventory), "--out", str(intended)]),
        step("render, nothing changed", [gpunet, "render", "-i", str(inventory), "--out", str(intended)]),
    ]
    if playbooks:
        playbook = str(BIN / "ansible-playbook")
        for name, path, extra in (
            ("no-op play (baseline)", "benchmarks/noop_play.yml", []),
            ("playbooks/preflight.yml", "playbooks/preflight.yml", []),
            # The second preflight answers from the kept check (gpunet.model.check_reuse).
            ("playbooks/preflight.yml, again", "playbooks/preflight.yml", []),
            (
                "playbooks/render.yml, nothing changed",
                "playbooks/render.yml",
                ["-e", f"render_out_dir={intended}"],
            ),
        ):
            steps.append(step(name, [playbook, path, "-i", str(inventory), *extra]))
    files = sum(1 for path in inventory.rglob("*") if path.is_file())
    switches = sum(1 for path in intended.glob("*.cfg"))
    return gpus // GPUS_PER_HOST, switches, files, steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[8192, 16384, 32768, 65536])
    parser.add_argument("--switch-radix", type=int, default=128)
    parser.add_argument(
        "--playbooks", action="store_true", help="also time the preflight and render playbooks"
    )
    parser.add_argument("--work", type=Path, help="folder for the inventories (default: a temporary one)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpunet-operator-path-"))
    work.mkdir(parents=True, exist_ok=True)
    loader = os.environ.get("GPUNET_INVENTORY_LOADER", "auto")
    print(f"operator path, inventory loader: {loader}, {os.cpu_count()} CPUs, inventories under {work}\n")
    print("| hosts | switches | files | step | wall s | peak MiB |")
    print("| ---: | ---: | ---: | --- | ---: | ---: |")
    failed = False
    for gpus in args.gpus:
        hosts, switches, files, steps = measure(gpus, args.switch_radix, work, args.playbooks)
        for step in steps:
            name = step.name if step.ok else f"{step.name} (failed)"
            row = f"| {hosts} | {switches} | {files} | {name} | {step.seconds:.1f} | {step.peak_mib:.0f} |"
            print(row, flush=True)
            failed = failed or not step.ok
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
