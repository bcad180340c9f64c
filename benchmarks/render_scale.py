"""How long inventory validation, design and rendering take on a large fabric: a report, never a
pass/fail test.

Run: .venv/bin/python benchmarks/render_scale.py [--hosts 8192 --leaves 1024 --spines 64] [--write]

Builds the RawInventory dicts of a synthetic rail-optimised fabric directly (no YAML, no Ansible
loading): every host has 8 NICs, rail r of host h lands on leaf r * (leaves / 8) + h // ports-per-leaf;
every leaf has one uplink to every spine. Leaves cycle through the five platforms (each platform's
example hardware model, 400G interfaces as 2 x 400G breakouts of 800G ports); spines are EOS on a
modular 7800R3, the only model in the table with an interface per leaf. Then times
`gpunet.model.build.build_fabric` (schema + cross-checks),
`design_switch` and the templates for every switch, and prints a Markdown table. For what an
operator waits for (files on disk, the real CLI and playbooks) run benchmarks/operator_path.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any, TypeVar

from gpunet.design import design_switch
from gpunet.model.build import RawInventory, build_fabric
from gpunet.model.fabric import Fabric
from gpunet.platforms import get_platform
from gpunet.render import render_switch, write_intended

RAILS = 8
# No NX-OS model in the table holds 128 x 400G (N9K-C9364D-GX2A: 64 x 400G QSFP-DD on 50G SerDes, so
# no 2 x 400G breakout): the inventory check refuses such a leaf, so the leaves run the other four OSes.
LEAF_PLATFORMS = ("eos", "cumulus", "sonic", "junos")
# Spines terminate one link per leaf (1,024 at the default size): only a modular chassis has that
# many interfaces, so every spine is an Arista 7800R3 (576 ports, 4-way breakout).
SPINE_PLATFORMS = ("eos",)
SPINE_MODEL = "7800R3"
SPINE_PORTS_PER_LINE_CARD = 36
T = TypeVar("T")


def port_name(platform: str, index: int) -> str:
    """The index-th 400G interface (0-based) of a leaf: two per 800G front-panel port (2 x 400G
    breakout), as each OS spells it, so a 128-interface leaf fits its 64-port hardware model."""
    panel, lane = divmod(index, 2)
    return {
        "eos": f"Ethernet{panel + 1}/{lane * 4 + 1}",
        "cumulus": f"swp{panel + 1}s{lane}",
        "sonic": f"Ethernet{index * 4}",
        # Inventory port names cannot hold ':' (the peer syntax), so not et-0/0/N:1: FPC <lane>.
        "junos": f"et-{lane}/0/{panel}",
    }[platform]


def spine_port_name(index: int) -> str:
    """The index-th interface of a 7800R3 spine: Ethernet<line card>/<port>/1."""
    card, port = divmod(index, SPINE_PORTS_PER_LINE_CARD)
    return f"Ethernet{card + 3}/{port + 1}/1"


def synthetic_inventory(hosts: int, leaves: int, spines: int) -> RawInventory:
    if leaves % RAILS or (hosts * RAILS) % leaves:
        raise SystemExit("leaves must be a multiple of 8 and divide hosts * 8")
    leaves_per_rail = leaves // RAILS
    host_ports = hosts * RAILS // leaves
    fabric = {
        "name": "scale",
        "ntp": {"servers": ["192.0.2.1"]},
        "firewall": {"fabric_cidrs": ["10.0.0.0/8"], "mgmt_cidrs": ["172.16.0.0/12"]},
    }
    leaf_names = [f"leaf{i:04d}" for i in range(leaves)]
    spine_names = [f"spine{i:02d}" for i in range(spines)]
    leaf_platform = {name: LEAF_PLATFORMS[i % len(LEAF_PLATFORMS)] for i, name in enumerate(leaf_names)}
    spine_platform = {name: SPINE_PLATFORMS[i % len(SPINE_PLATFORMS)] for i, name in enumerate(spine_names)}
    hostvars: dict[str, dict[str, Any]] = {}
    leaf_ports: dict[str, list[dict[str, Any]]] = {name: [] for name in leaf_names}
    for h in range(hosts):
        name = f"gpu{h:05d}"
        nics = []
        for rail in range(RAILS):
            leaf = leaf_names[rail * leaves_per_rail + h // host_ports]
            port = port_name(leaf_platform[leaf], h % host_ports)
            nic = f"mlx5_{rail}"
            nics.append(
                {
                    "name": nic,
                    "netdev": f"rail{rail}",
                    "speed_gbps": 400,
                    "rail": rail,
                    "switch": leaf,
                    "switch_port": port,
                    "ip": f"10.{rail}.{h // 250}.{h % 250 + 1}/24",
                }
            )
            leaf_ports[leaf].append(
                {"name": port, "speed_gbps": 400, "peer": f"{name}:{nic}", "cable_length_m": 3}
            )
        hostvars[name] = {
            "gpunet_fabric": fabric,
            "ansible_host": f"172.16.{h // 250}.{h % 250 + 1}",
            "gpunet_gpus": {"count": 8, "model": "H100-SXM5-80GB"},
            "gpunet_nics": nics,
        }
    spine_ports: dict[str, list[dict[str, Any]]] = {name: [] for name in spine_names}
    for li, leaf in enumerate(leaf_names):
        for si, spine in enumerate(spine_names):
            leaf_port = port_name(leaf_platform[leaf], host_ports + si)
            spine_port = spine_port_name(li)
            leaf_ports[leaf].append(
                {"name": leaf_port, "speed_gbps": 400, "peer": f"{spine}:{spine_port}", "cable_length_m": 30}
            )
            spine_ports[spine].append(
                {"name": spine_port, "speed_gbps": 400, "peer": f"{leaf}:{leaf_port}", "cable_length_m": 30}
            )
    for index, name in enumerate(leaf_names + spine_names):
        is_leaf = name in leaf_ports
        platform = leaf_platform[name] if is_leaf else spine_platform[name]
        hostvars[name] = {
            "gpunet_fabric": fabric,
            "ansible_host": f"172.31.{index // 250}.{index % 250 + 1}",
            "gpunet_platform": platform,
            "gpunet_switch_model": get_platform(platform).example_model if is_leaf else SPINE_MODEL,
            "gpunet_role": "leaf" if is_leaf else "spine",
            "gpunet_ports": leaf_ports[name] if is_leaf else spine_ports[name],
        }
    groups = {
        "gpu_nodes": [f"gpu{h:05d}" for h in range(hosts)],
        "switches": leaf_names + spine_names,
        "leaf": leaf_names,
        "spine": spine_names,
    }
    return RawInventory(groups=groups, hostvars=hostvars)


CPU = {"seconds": 0.0}  # process CPU time of the last timed() call: on a shared machine wall time lies


def timed(action: Callable[[], T]) -> tuple[T, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    result = action()
    CPU["seconds"] = time.process_time() - start_cpu
    return result, time.perf_counter() - start


def per_switch_times(fabric: Fabric, step: Callable[[Fabric, Any], object]) -> tuple[list[float], float]:
    """Wall time per switch, and the CPU time of the whole loop."""
    times = []
    start_cpu = time.process_time()
    for switch in fabric.switches.values():
        _, seconds = timed(lambda switch=switch: step(fabric, switch))
        times.append(seconds)
    return times, time.process_time() - start_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=8192)
    parser.add_argument("--leaves", type=int, default=1024)
    parser.add_argument("--spines", type=int, default=64)
    parser.add_argument(
        "--write", action="store_true", help="also time writing every file to a temporary folder"
    )
    args = parser.parse_args(argv)

    raw, generate_s = timed(lambda: synthetic_inventory(args.hosts, args.leaves, args.spines))
    fabric, validate_s = timed(lambda: build_fabric(raw))
    validate_cpu = CPU["seconds"]
    design_times, design_cpu = per_switch_times(fabric, design_switch)  # design only, for the split
    render_times, render_cpu = per_switch_times(fabric, render_switch)  # design + templates + summary
    rendered = {name: render_switch(fabric, switch) for name, switch in fabric.switches.items()}
    write_s: float | None = None
    if args.write:
        with tempfile.TemporaryDirectory() as folder:
            _, write_s = timed(lambda: write_intended(rendered, folder))
    ports = sum(len(s.ports) for s in fabric.switches.values())
    nics = sum(len(h.nics) for h in fabric.hosts.values())
    render_s = sum(render_times)
    rows = [
        ("fabric", f"{len(fabric.hosts)} hosts, {nics} NICs, {len(fabric.switches)} switches, {ports} ports"),
        ("generate RawInventory dicts (not gpunet)", f"{generate_s:.2f} s"),
        ("inventory validation (build_fabric: schema + cross-checks)", _both(validate_s, validate_cpu)),
        ("design, all switches", _both(sum(design_times), design_cpu)),
        ("render (design + templates + summary), all switches", _both(render_s, render_cpu)),
        ("render per switch (wall): mean / median / max", _spread(render_times)),
        ("validation + render", _both(validate_s + render_s, validate_cpu + render_cpu)),
    ]
    if write_s is not None:
        rows.append(("write every .cfg/.md to an empty folder", f"{write_s:.2f} s"))
    print("| step | wall (CPU) |")
    print("| --- | ---: |")
    for step, value in rows:
        print(f"| {step} | {value} |")
    return 0


def _both(wall: float, cpu: float) -> str:
    return f"{wall:.2f} s ({cpu:.2f} s CPU)"


def _spread(times: list[float]) -> str:
    return " / ".join(
        f"{value * 1000:.1f} ms" for value in (statistics.mean(times), statistics.median(times), max(times))
    )


if __name__ == "__main__":
    sys.exit(main())
