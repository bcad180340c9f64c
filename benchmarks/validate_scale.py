"""How long gpunet-validate takes to judge and report a large fabric's artifacts, and how big each
report is: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/validate_scale.py [--hosts 64 512 4096] [--work DIR]

With --work, an artifact set written by an earlier run with the same generator is reused (its
manifest.json written again by the current code).

For each size: `gpunet plan --gpus 8*H --write-inventory` writes an inventory (8 NICs per host),
the artifacts generator of tests/fixtures/artifacts writes every tool's recorded output for every
host, pair, NCCL run and switch of that fabric's collection plan, at the size real hosts print it
(ibv_devinfo -v, nvidia-smi -q, perftest's connection block, nccl-tests' rank lines: about 135 KB
a host; one host's rail-2 NIC trained at half speed, so there is something to find), then
`gpunet-validate --from-artifacts` runs once per report format, as its own process, with wall
time, peak memory and report size.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from tests.fixtures.artifacts import generate  # noqa: E402

from gpunet.model.check import load_fabric  # noqa: E402 - after the path set-up above
from gpunet.validate.cli import PROMETHEUS  # noqa: E402
from gpunet.validate.manifest import build_manifest  # noqa: E402
from gpunet.validate.report import FORMATS  # noqa: E402

BIN = Path(sys.executable).parent
NICS_PER_HOST = 8


# What the artifact set depends on; a folder whose stamp matches is reused, not written again.
STAMP_NAME = ".benchmark-stamp"


def artifacts_stamp(hosts: int) -> str:
    generator = Path(generate.__file__).read_bytes()
    return f"hosts={hosts} generator={hashlib.blake2b(generator, digest_size=8).hexdigest()}\n"


def cached_artifacts(hosts: int, work: Path) -> tuple[Path, bool]:
    """The artifacts of `hosts` under `work`, written unless a complete set with the same stamp is
    there already (the 4,096-host set is 200,000 files: minutes to write on a loaded machine)."""
    artifacts = work / f"artifacts-{hosts}"
    stamp = artifacts / STAMP_NAME
    if stamp.is_file() and stamp.read_text() == artifacts_stamp(hosts):
        # The captures depend on the generator alone; the manifest on gpunet's own format, which
        # may have changed since: written again from the inventory (seconds, not minutes).
        build_manifest(load_fabric(work / f"inventory-{hosts}")).write(artifacts)
        return artifacts, True
    write_artifacts(hosts, work)
    stamp.write_text(artifacts_stamp(hosts))
    return artifacts, False


def write_artifacts(hosts: int, work: Path) -> Path:
    inventory = work / f"inventory-{hosts}"
    artifacts = work / f"artifacts-{hosts}"
    shutil.rmtree(inventory, ignore_errors=True)
    shutil.rmtree(artifacts, ignore_errors=True)
    radix = 64 if hosts <= 1024 else 128
    # IPv4 NIC addresses: the fixture generator writes RoCE v2 GIDs as IPv4-mapped addresses.
    command = [str(BIN / "gpunet"), "plan", "--gpus", str(hosts * 8), "--switch-radix", str(radix)]
    command += ["--fabric-pool", "10.0.0.0/8"]
    subprocess.run([*command, "--write-inventory", str(inventory)], check=True, capture_output=True)
    manifest = build_manifest(load_fabric(inventory))
    first = next(iter(manifest.hosts.values()))
    slow_nic = next(n for n in first.nics if n.rail == 2)
    scenario = dataclasses.replace(
        generate.Scenario("scale"), slow_nics={(first.name, slow_nic.name): slow_nic.speed_gbps // 2}
    )
    manifest.write(artifacts)
    # Every NIC as roce_host leaves it on this inventory (the planner's queues and cable length).
    shares, cable = slow_nic.tc_bw or [50, 0, 0, 50], slow_nic.cable_length_m or 3
    qos = generate.mlnx_qos_capture(shares[0], shares[3], cable)
    generate.write_hosts(artifacts, manifest, scenario, qos)
    # The generator's clock offsets grow with the host index (it was written for 4 hosts); keep
    # every host in sync so the NTP check does not fail hundreds of hosts at this scale.
    for host in manifest.hosts:
        (artifacts / "hosts" / host / "chronyc-tracking.txt").write_text(
            generate.CHRONY.format(offset=0.000041)
        )
    generate.write_pairs(artifacts, manifest, scenario)
    generate.write_nccl(artifacts, manifest, scenario)
    generate.write_switches(artifacts, manifest)
    return artifacts


def run_report(
    artifacts: Path, report_format: str, output: Path, jobs: int | None = None
) -> tuple[float, float, float, int, int]:
    command = [str(BIN / "gpunet-validate"), "--from-artifacts", str(artifacts), "--format", report_format]
    command += ["--jobs", str(jobs)] if jobs else []
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        process = subprocess.Popen([*command, "--output", str(output)], stdout=sink, stderr=sink)
        _, _, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    lines = output.read_text().count("\n") if output.exists() else 0
    cpu = usage.ru_utime + usage.ru_stime  # the figure the other users of a shared machine do not move
    return seconds, cpu, usage.ru_maxrss / 1024, output.stat().st_size if output.exists() else 0, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, nargs="+", default=[64, 512, 4096])
    parser.add_argument("--work", type=Path, help="folder for inventories and artifacts (default: temporary)")
    parser.add_argument("--jobs", type=int, help="gpunet-validate --jobs (default: its own choice)")
    every_format = [*FORMATS, PROMETHEUS]
    parser.add_argument("--formats", nargs="+", default=every_format, choices=every_format)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpunet-validate-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    jobs = f"--jobs {args.jobs}" if args.jobs else "default --jobs"
    print(f"{os.cpu_count()} CPUs, {jobs}, load average {os.getloadavg()[0]:.1f}, artifacts under {work}\n")
    print(
        "| hosts | NICs | artifact files | format | wall s (judge + report) | CPU s | peak MiB | report KiB"
        " | lines |"
    )
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for hosts in args.hosts:
        start = time.perf_counter()
        artifacts, reused = cached_artifacts(hosts, work)
        sizes = [
            path.stat().st_size for path in artifacts.rglob("*") if path.is_file() and path.name != STAMP_NAME
        ]
        files = len(sizes)
        done = "reused from an earlier run" if reused else f"written in {time.perf_counter() - start:.0f} s"
        print(
            f"<!-- {hosts} hosts: artifacts {done}: {files} files, {sum(sizes) / 2**20:.0f} MiB -->",
            flush=True,
        )
        for report_format in args.formats:
            output = work / f"report-{hosts}.{report_format}"
            seconds, cpu, peak, size, lines = run_report(artifacts, report_format, output, args.jobs)
            sizes = f"{hosts} | {hosts * NICS_PER_HOST} | {files}"
            figures = f"{seconds:.1f} | {cpu:.1f} | {peak:.0f} | {size / 1024:.0f} | {lines}"
            print(f"| {sizes} | {report_format} | {figures} |", flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
