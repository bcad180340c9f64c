"""How long `gpunet cabling` (and `gpunet-validate --checks cabling`) take on a large fabric's LLDP
captures: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/cabling_scale.py [--hosts 4096] [--work DIR]

`gpunet plan --gpus 8*H --write-inventory` writes the inventory (8 NICs per host, one per rail);
then every host's `lldpctl -f json` and every switch's LLDP capture (in its platform's first
tool of checks/cabling.py LLDP_TOOLS, written as lldpd or the OS prints it) are written from the
plan, with two cables of one leaf swapped and one host cable pulled, so there is something to
find. Each command runs once, as its own process, on the files on disk: wall time, CPU, peak memory.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from gpunet.model.check import load_fabric  # noqa: E402 - after the path set-up above
from gpunet.model.fabric import Fabric  # noqa: E402
from gpunet.validate.checks.cabling import switch_tools  # noqa: E402
from gpunet.validate.manifest import build_manifest  # noqa: E402

BIN = Path(sys.executable).parent


def lldpctl(entries: list[tuple[str, str, str, str]]) -> str:
    """`lldpctl -f json` as lldpd prints it: (local, sysname, port id type, port id or descr)."""
    objects = []
    for number, (local, sysname, kind, port) in enumerate(entries, 1):
        port_entry = {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}, "descr": port}
        if kind == "ifname":
            port_entry = {"id": {"type": "ifname", "value": port}}
        objects.append(
            {
                local: {
                    "via": "LLDP",
                    "rid": str(number),
                    "age": "0 day, 00:10:00",
                    "chassis": {sysname: {"id": {"type": "mac", "value": "0c:42:a1:00:00:01"}}},
                    "port": port_entry,
                }
            }
        )
    interface: Any = objects[0] if len(objects) == 1 else objects
    return json.dumps({"lldp": {"interface": interface} if objects else {}}, indent=2) + "\n"


def eos(entries: list[tuple[str, str, str, str]]) -> str:
    table: dict[str, Any] = {}
    for local, sysname, kind, port in entries:
        interface = {"interfaceIdType": "interfaceName", "interfaceId_v2": port}
        if kind != "ifname":
            interface = {"interfaceIdType": "macAddress", "interfaceId_v2": "b8:ce:f6:00:00:01"}
            interface["interfaceDescription"] = port
        info = {"chassisIdType": "macAddress", "chassisId": "0c42.a100.0001", "systemName": sysname}
        table.setdefault(local, {"lldpNeighborInfo": []})["lldpNeighborInfo"].append(
            {**info, "neighborInterfaceInfo": interface}
        )
    return json.dumps({"lldpNeighbors": table}) + "\n"


WRITERS = {"lldpctl-json": lldpctl, "eos-show-lldp-neighbors-detail-json": eos}


def write_captures(fabric: Fabric, folder: Path) -> str:
    """Every device's capture as cabled by the plan, but for two swapped cables and one pulled."""
    seen: dict[str, list[tuple[str, str, str, str]]] = {
        name: [] for name in (*fabric.hosts, *fabric.switches)
    }
    for host in fabric.hosts.values():
        for nic in host.nics:
            seen[host.name].append((nic.netdev, nic.switch, "ifname", nic.switch_port))
            seen[nic.switch].append((nic.switch_port, host.name, "mac", nic.netdev))
    for switch in fabric.switches.values():
        for port in switch.ports:
            if port.peer is not None and port.peer.kind == "switch":
                seen[switch.name].append((port.name, port.peer.device, "ifname", port.peer.port))
    first, second = list(fabric.hosts.values())[:2]
    leaf = first.nics[0].switch
    a, b = first.nics[0], next(n for n in second.nics if n.switch == leaf)
    # The leaf's two ports swapped: each host NIC sees the other's port, the leaf each the other NIC.
    seen[first.name][0] = (a.netdev, leaf, "ifname", b.switch_port)
    seen[second.name][second.nics.index(b)] = (b.netdev, leaf, "ifname", a.switch_port)
    for index, entry in enumerate(seen[leaf]):
        if entry[0] == a.switch_port:
            seen[leaf][index] = (a.switch_port, second.name, "mac", b.netdev)
        elif entry[0] == b.switch_port:
            seen[leaf][index] = (b.switch_port, first.name, "mac", a.netdev)
    pulled = list(fabric.hosts.values())[-1]
    nic = pulled.nics[-1]
    seen[pulled.name] = [e for e in seen[pulled.name] if e[0] != nic.netdev]
    seen[nic.switch] = [e for e in seen[nic.switch] if e[0] != nic.switch_port]
    for name, entries in seen.items():
        if name in fabric.hosts:
            where, tool = folder / "hosts" / name, "lldpctl-json"
        else:
            tools = [t for t in switch_tools(fabric.switches[name].platform) if t in WRITERS]
            where, tool = folder / "switches" / name / "before", tools[0]
        where.mkdir(parents=True, exist_ok=True)
        (where / f"{tool}.txt").write_text(WRITERS[tool](entries))
    return f"swapped {leaf} {a.switch_port}/{b.switch_port}; pulled {pulled.name} {nic.name}"


def timed(command: list[str]) -> tuple[float, float, float, int]:
    """Wall and CPU seconds, peak MiB, exit code. Through /usr/bin/time: a child forked from this
    process (which holds the loaded fabric) would report this process's memory as its own peak."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - start
    user, system, peak_kib = done.stderr.strip().splitlines()[-1].split()
    return seconds, float(user) + float(system), int(peak_kib) / 1024, done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=4096)
    parser.add_argument("--work", type=Path, help="keep the inventory and captures here")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpunet-cabling-"))
    inventory, artifacts = work / f"inventory-{args.hosts}", work / f"lldp-{args.hosts}"
    if not (inventory / "hosts.yml").is_file():
        radix = 64 if args.hosts <= 1024 else 128
        command = [str(BIN / "gpunet"), "plan", "--gpus", str(args.hosts * 8), "--switch-radix", str(radix)]
        command += ["--fabric-pool", "10.0.0.0/8", "--write-inventory", str(inventory)]
        subprocess.run(command, check=True, capture_output=True)
    fabric = load_fabric(inventory)
    shutil.rmtree(artifacts, ignore_errors=True)
    injected = write_captures(fabric, artifacts)
    build_manifest(fabric).write(artifacts)
    links = sum(len(h.nics) for h in fabric.hosts.values())
    print(f"{len(fabric.hosts)} hosts, {len(fabric.switches)} switches, {links} host links; {injected}")
    runs = {
        "gpunet cabling": [
            str(BIN / "gpunet"),
            "cabling",
            "-i",
            str(inventory),
            "--from-artifacts",
            str(artifacts),
        ],
        "gpunet cabling --format json": [
            *[str(BIN / "gpunet"), "cabling", "-i", str(inventory), "--from-artifacts", str(artifacts)],
            *["--format", "json"],
        ],
        "gpunet-validate --checks cabling": [
            *[str(BIN / "gpunet-validate"), "--from-artifacts", str(artifacts), "--checks", "cabling"],
            *["--format", "json", "--output", str(work / "cabling.json")],
        ],
    }
    for label, command in runs.items():
        seconds, cpu, peak, code = timed(command)
        print(f"{label}: {seconds:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MiB peak, exit {code}")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
