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

--cold first times `inventory check` and `render` as a CI runner meets them: both caches off
(GPUNET_PARSE_CACHE=off GPUNET_RENDER_CACHE=off) and an empty HOME. Each fabric's line also gives
the inventory's size and, after the warm steps, the size of its caches on disk. After the last
fabric a sweep table prints one row per fabric and a per-host table (milliseconds a host, and the
growth against the first fabric divided by the growth in hosts: 1.0 is linear). --clean deletes
each fabric's inventory, output and caches once measured (the 262,144-GPU inventory is 250 MB).

The issue-33 sweep (8k, 16k and 32k hosts, cold and warm):
    .venv/bin/python benchmarks/operator_path.py --gpus 65536 131072 262144 --cold --clean --work /tmp/sweep
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
    load: float = 0.0  # the 1-minute load average as the step ended: what other users took
    cpu: float = 0.0  # user + system seconds of the step and the children it waited for


def run_step(name: str, command: list[str], caches: Path, cold_home: Path | None = None) -> Step:
    """Run `command` from the project root; wall time and the child's own peak RSS. `caches` holds
    this fabric's parse and render caches (gpunet.cachedir), fresh for each fabric. With
    `cold_home` both caches are off and HOME is that empty folder, as on a fresh CI runner."""
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "GPUNET_PARSE_CACHE": str(caches / "inventory"),
        "GPUNET_RENDER_CACHE": str(caches / "render"),
    }
    if cold_home is not None:
        shutil.rmtree(cold_home, ignore_errors=True)
        cold_home.mkdir(parents=True)
        env.pop("XDG_CACHE_HOME", None)
        env.update(HOME=str(cold_home), GPUNET_PARSE_CACHE="off", GPUNET_RENDER_CACHE="off")
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
    cpu = usage.ru_utime + usage.ru_stime  # what other users of a shared machine move least
    return Step(name, seconds, usage.ru_maxrss / 1024, process.returncode == 0, os.getloadavg()[0], cpu)


@dataclass
class Fabric:
    gpus: int
    switches: int
    files: int
    inventory_bytes: int
    cache_bytes: int
    steps: list[Step]

    @property
    def hosts(self) -> int:
        return self.gpus // GPUS_PER_HOST


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def measure(gpus: int, radix: int, work: Path, playbooks: bool, cold: bool, clean: bool) -> Fabric:
    inventory = work / f"inventory-{gpus}"
    intended = work / f"intended-{gpus}"
    intended_cold = work / f"intended-cold-{gpus}"
    caches = work / f"caches-{gpus}"
    cold_home = work / f"home-{gpus}"
    folders = (inventory, intended, intended_cold, caches, cold_home)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    gpunet = str(BIN / "gpunet")

    def step(name: str, command: list[str]) -> Step:
        return run_step(name, command, caches)

    def cold_step(name: str, command: list[str]) -> Step:
        return run_step(name, command, caches, cold_home)

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
    ]
    if cold:
        steps += [
            cold_step("inventory check, cold", [gpunet, "inventory", "check", "-i", str(inventory)]),
            cold_step("render, cold", [gpunet, "render", "-i", str(inventory), "--out", str(intended_cold)]),
        ]
    steps += [
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
    fabric = Fabric(gpus, switches, files, folder_bytes(inventory), folder_bytes(caches), steps)
    if cold and intended_cold.is_dir() and not same_files(intended_cold, intended):
        sys.stderr.write(f"{gpus} GPUs: the cold render wrote other files than the warm one\n")
        fabric.steps.append(Step("cold and warm renders identical", 0.0, 0.0, False))
    if clean:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return fabric


def same_files(left: Path, right: Path) -> bool:
    """Whether two output folders hold the same files with the same bytes."""
    names = sorted(p.relative_to(left) for p in left.rglob("*") if p.is_file())
    if names != sorted(p.relative_to(right) for p in right.rglob("*") if p.is_file()):
        return False
    return all((left / name).read_bytes() == (right / name).read_bytes() for name in names)


# The sweep table's columns: (heading, step name).
SWEEP = (
    ("plan", "plan --write-inventory"),
    ("check, cold", "inventory check, cold"),
    ("render, cold", "render, cold"),
    ("check, first", "inventory check, first read (no cache)"),
    ("check, warm", "inventory check, again"),
    ("render, from nothing", "render, from nothing"),
    ("render, warm", "render, nothing changed"),
    ("no-op play", "no-op play (baseline)"),
    ("preflight.yml", "playbooks/preflight.yml"),
    ("preflight.yml, again", "playbooks/preflight.yml, again"),
    ("render.yml", "playbooks/render.yml, nothing changed"),
)


def sweep_tables(fabrics: list[Fabric]) -> str:
    """One row per fabric (wall s, peak MiB), then each step's milliseconds a host and its growth
    against the first fabric over the growth in hosts (1.0: linear; below: fixed costs)."""
    measured = {step.name for fabric in fabrics for step in fabric.steps}
    columns = [(heading, name) for heading, name in SWEEP if name in measured]
    lines = [
        "| hosts | switches | files | inventory MiB | caches MiB (x inventory) | "
        + " | ".join(f"{heading} s (MiB)" for heading, _ in columns)
        + " |",
        "| ---: " * (5 + len(columns)) + "|",
    ]
    for fabric in fabrics:
        by_name = {step.name: step for step in fabric.steps}
        ratio = fabric.cache_bytes / fabric.inventory_bytes if fabric.inventory_bytes else 0.0
        cells = [
            f"{fabric.hosts:,}",
            f"{fabric.switches:,}",
            f"{fabric.files:,}",
            f"{fabric.inventory_bytes / 2**20:.0f}",
            f"{fabric.cache_bytes / 2**20:.0f} ({ratio:.2f})",
        ]
        for _, name in columns:
            step = by_name.get(name)
            cell = "-" if step is None else f"{step.seconds:.1f} ({step.peak_mib:.0f})"
            cells.append(cell if step is None or step.ok else f"{cell} failed")
        lines.append("| " + " | ".join(cells) + " |")
    first = fabrics[0]
    first_steps = {step.name: step for step in first.steps}
    lines += [
        "",
        "| hosts | " + " | ".join(f"{heading} ms/host (growth)" for heading, _ in columns) + " |",
        "| ---: " * (1 + len(columns)) + "|",
    ]
    for fabric in fabrics:
        by_name = {step.name: step for step in fabric.steps}
        cells = [f"{fabric.hosts:,}"]
        for _, name in columns:
            step, base = by_name.get(name), first_steps.get(name)
            if step is None or base is None or not base.seconds:
                cells.append("-")
                continue
            growth = (step.seconds / base.seconds) / (fabric.hosts / first.hosts)
            cells.append(f"{1000 * step.seconds / fabric.hosts:.2f} ({growth:.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[8192, 16384, 32768, 65536])
    parser.add_argument("--switch-radix", type=int, default=128)
    parser.add_argument(
        "--playbooks", action="store_true", help="also time the preflight and render playbooks"
    )
    parser.add_argument("--work", type=Path, help="folder for the inventories (default: a temporary one)")
    parser.add_argument(
        "--cold", action="store_true", help="also time check and render with no caches and an empty HOME"
    )
    parser.add_argument(
        "--clean", action="store_true", help="delete each fabric's inventory, output and caches once measured"
    )
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpunet-operator-path-"))
    work.mkdir(parents=True, exist_ok=True)
    loader = os.environ.get("GPUNET_INVENTORY_LOADER", "auto")
    print(f"operator path, inventory loader: {loader}, {os.cpu_count()} CPUs, inventories under {work}\n")
    print("| hosts | switches | files | step | wall s | CPU s | peak MiB | load (1 min) |")
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    failed = False
    fabrics = []
    for gpus in args.gpus:
        fabric = measure(gpus, args.switch_radix, work, args.playbooks, args.cold, args.clean)
        fabrics.append(fabric)
        for step in fabric.steps:
            name = step.name if step.ok else f"{step.name} (failed)"
            row = f"| {fabric.hosts} | {fabric.switches} | {fabric.files} | {name} | {step.seconds:.1f}"
            print(f"{row} | {step.cpu:.1f} | {step.peak_mib:.0f} | {step.load:.1f} |", flush=True)
            failed = failed or not step.ok
        print(
            f"<!-- {fabric.hosts} hosts: inventory {fabric.inventory_bytes / 2**20:.0f} MiB, caches "
            f"{fabric.cache_bytes / 2**20:.0f} MiB -->",
            flush=True,
        )
    print("\n" + sweep_tables(fabrics))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
