"""Push to many simulated switches: wall time against concurrency, and the per-switch time.

A report, never a pass/fail test. Run: .venv/bin/python benchmarks/push_scale.py
    [--switches 256] [--concurrency 1,32] [--latency-ms 0] [--platforms nxos,eos,cumulus,sonic,junos]

The switches are gpunet's simulator (lab equipment: `gpunet switchsim --count N`, one process per
platform, on 127.0.0.1) and get the configs gpunet renders for inventories/prod, one platform's
config per simulator. Each concurrency level pushes to freshly started simulators, so every push
is a full change (checkpoint or commit-confirm, confirm over a new session, save). The pushes run in
worker processes, as Ansible forks run the action plugin, each with its own SSH sessions.
`--latency-ms` delays every simulator reply, standing in for a real switch CLI's response time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gpunet.model.check import load_fabric
from gpunet.model.fabric import Switch
from gpunet.netdev.push import Connection, push_switch
from gpunet.netdev.strategies import PushOptions
from gpunet.render import render_fabric

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "bench-only"
EXAMPLE_OF = {"nxos": "leaf01", "eos": "leaf03", "cumulus": "leaf05", "sonic": "leaf07", "junos": "leaf08"}


def free_port_block(count: int, above: int) -> int:
    """A base port over `above` with `count` consecutive free ports (checked, not reserved)."""
    for base in range(above, 60000, 1000):
        ports = range(base, base + count)
        if all(_free(port) for port in ports):
            return base
    raise SystemExit("no block of free ports on 127.0.0.1")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def start_simulators(platforms: list[str], switches: int, latency_ms: int) -> tuple[list, list]:
    processes, targets, counts = [], [], []
    for position, platform in enumerate(platforms):
        per_platform = switches // len(platforms) + (position < switches % len(platforms))
        counts.append(per_platform)
        base = free_port_block(per_platform, above=targets[-1][1] + 1000 if targets else 20000)
        command = [
            sys.executable, "-m", "gpunet.cli", "switchsim", "--platform", platform,
            "--port", str(base), "--count", str(per_platform), "--password", PASSWORD,
            "--latency-ms", str(latency_ms), "--hostname", f"bench-{platform}-",
        ]  # fmt: skip
        processes.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        )
        targets += [(platform, base + index) for index in range(per_platform)]
    for process, per_platform in zip(processes, counts, strict=True):
        for _ in range(per_platform):
            line = process.stdout.readline()
            if not line.startswith("switchsim:"):
                raise SystemExit(f"simulator did not start: {line}")
    return processes, targets


def stop(processes: list) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def push_one(job: tuple[int, str, int, str, Path]) -> float:
    """One full push, in a worker process (as an Ansible fork runs the action plugin)."""
    index, platform, port, config, backups = job
    login = Connection(password=PASSWORD, host_key_checking=False, username="admin", timeout_s=30)
    options = PushOptions(confirm_timeout_s=120, command_timeout_s=120)
    switch = Switch(f"sw{index:04d}", platform, "leaf", "127.0.0.1", port, (), "admin")
    start = time.perf_counter()
    result = push_switch(switch, config, login, check_mode=False, backup_root=backups, options=options)
    if not result.changed:
        raise SystemExit(f"{switch.name}: expected a change on a fresh simulator")
    return time.perf_counter() - start


def push_all(targets, configs, concurrency: int, backups: Path) -> tuple[float, list[float]]:
    jobs = [
        (index, platform, port, configs[platform], backups) for index, (platform, port) in enumerate(targets)
    ]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=concurrency, mp_context=multiprocessing.get_context("fork")) as pool:
        durations = list(pool.map(push_one, jobs))
    return time.perf_counter() - start, durations


def _children_cpu_s() -> float:
    times = os.times()
    return times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=256)
    parser.add_argument("--concurrency", default="1,32", help="comma-separated levels, e.g. 1,8,32")
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--platforms", default="nxos,eos,cumulus,sonic,junos")
    args = parser.parse_args()
    platforms = args.platforms.split(",")
    inventory = REPO / "inventories" / "prod"
    rendered = render_fabric(load_fabric(inventory, inventory / "vault-password.txt"))
    configs = {platform: rendered[EXAMPLE_OF[platform]].config for platform in platforms}
    rows = []
    for concurrency in (int(level) for level in args.concurrency.split(",")):
        cpu_before = _children_cpu_s()
        processes, targets = start_simulators(platforms, args.switches, args.latency_ms)
        try:
            with tempfile.TemporaryDirectory() as backups:
                wall, durations = push_all(targets, configs, concurrency, Path(backups))
        finally:
            stop(processes)
        count = len(durations)
        cpu = (_children_cpu_s() - cpu_before) / count  # pushes and simulators together
        rows.append((concurrency, count, wall, statistics.median(durations), max(durations), cpu))
        print(f"concurrency {concurrency}: {count} switches in {wall:.1f} s", file=sys.stderr, flush=True)
    serial_wall = next((row[2] for row in rows if row[0] == 1), None)
    print(f"\n{rows[0][1]} simulated switches ({', '.join(platforms)}), reply latency {args.latency_ms} ms\n")
    print(
        "| concurrency | switches | wall (s) | per switch, median (s) | per switch, max (s) "
        "| vs serial | CPU s/switch |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for concurrency, count, wall, median, longest, cpu in rows:
        ratio = f"1/{serial_wall / wall:.1f}" if serial_wall else "-"
        print(
            f"| {concurrency} | {count} | {wall:.1f} | {median:.2f} | {longest:.2f} | {ratio} | {cpu:.2f} |"
        )
    print(f"\nmachine: {os.cpu_count()} CPUs; CPU s/switch counts the push and the simulator together.")


if __name__ == "__main__":
    main()
