"""Write a planned topology as a gpunet inventory skeleton that passes `gpunet inventory check`.

Names, platforms, port names and addresses are placeholders for the operator to replace: addresses
come from documentation ranges by default (IPv4 while they fit, IPv6 2001:db8::/32 beyond).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any

import yaml

from gpunet.forked import run_forked, worker_count
from gpunet.hardware import get_model
from gpunet.hardware.physical import PortRequest, place_ports
from gpunet.model.build import GPU_GROUP, SWITCH_GROUP, RawInventory
from gpunet.model.check import check_raw
from gpunet.model.errors import Problem
from gpunet.plan.fattree import HOST_LEAF, Topology
from gpunet.plan.request import PlanInputError, PlanRequest, check_platform
from gpunet.plan.yaml_text import block_yaml
from gpunet.platforms import get_platform

# Documentation ranges (RFC 5737, RFC 3849): never routed, safe in examples.
MGMT_POOL_V4, MGMT_POOL_V6 = "192.0.2.0/24", "2001:db8:a::/64"
FABRIC_POOL_V4, FABRIC_POOL_V6 = "198.51.100.0/24", "2001:db8:f::/48"
IPV6_LEAF_PREFIX = 64

# Front-panel port n (1-based) as each OS names it, unsplit and as the first child of a breakout; the
# planner takes the first form the hardware model can build at the NIC speed (models.yml physical).
PORT_NAMES = {
    "nxos": lambda n: (f"Ethernet1/{n}", f"Ethernet1/{n}/1"),
    "eos": lambda n: (f"Ethernet{n}/1",),
    "cumulus": lambda n: (f"swp{n}", f"swp{n}s0"),
    "sonic": lambda n: (f"Ethernet{(n - 1) * 8}",),
    "junos": lambda n: (f"et-0/0/{n - 1}", f"et-0/0/{n - 1}:0"),
}


def _port_namer(platform: str, speed_gbps: int) -> Callable[[int], str]:
    forms = PORT_NAMES[platform]
    physical = get_model(get_platform(platform).example_model).physical
    # A pure function of the port number, asked once per link end: 2.6 million times at 262,144 GPUs
    # for at most the radix's numbers, so each is placed once.
    names: dict[int, str] = {}

    def name(number: int) -> str:
        if number not in names:
            names[number] = _first_buildable(number)
        return names[number]

    def _first_buildable(number: int) -> str:
        for candidate in forms(number):
            if physical is None:
                return candidate
            _, problems = place_ports(physical, platform, [PortRequest(0, candidate, speed_gbps, None)])
            if not problems:
                return candidate
        return forms(number)[0]  # the inventory check then says why the model cannot build it

    return name


@dataclass(frozen=True)
class InventoryOptions:
    name: str = "planned"
    platform: str = "sonic"
    gpu_model: str = "H100-SXM5-80GB"
    mgmt_pool: str | None = None  # None: the documentation range that fits
    fabric_pool: str | None = None


@dataclass(frozen=True)
class InventorySkeleton:
    groups: dict[str, list[str]]  # role group -> hosts (gpu_nodes, leaf, spine, superspine)
    fabric: dict[str, Any]  # gpunet_fabric
    hostvars: dict[str, dict[str, Any]]  # each host's own variables

    def raw(self) -> RawInventory:
        """What the inventory loader would produce from the written files."""
        switches = [h for tier in ("leaf", "spine", "superspine") for h in self.groups.get(tier, [])]
        groups = {**self.groups, SWITCH_GROUP: switches}
        shared = {"gpunet_fabric": self.fabric}
        switch_shared = {**shared, **SWITCH_CONNECTION}
        switch_set = set(switches)
        hostvars = {
            name: {**(switch_shared if name in switch_set else shared), **own}
            for name, own in self.hostvars.items()
        }
        return RawInventory(groups=groups, hostvars=hostvars)


# libyaml's emitter where PyYAML has it: ten times faster for inventories of thousands of hosts.
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# The emitter asks the resolver twice per scalar (14 million scalars at 262,144 GPUs, most of them
# the same few keys and numbers); the resolver's table is fixed, so each answer is kept.
_RESOLVED: dict[tuple[str, tuple[bool, bool]], str] = {}
_SCALARS = frozenset({str, int, bool, type(None)})


class _PlanDumper(SAFE_DUMPER):  # type: ignore[misc, valid-type]
    """SAFE_DUMPER with the same text and two shortcuts for the planner's plain values: a scalar
    skips the alias bookkeeping (SafeRepresenter never aliases one) and its tag is looked up once."""

    def represent_data(self, data: Any) -> yaml.Node:
        kind = type(data)
        if kind in _SCALARS:
            self.alias_key = None
            return self.yaml_representers[kind](self, data)
        return super().represent_data(data)

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            tag = _RESOLVED[key] = super().resolve(kind, value, implicit)
        return tag


SWITCH_CONNECTION = {"ansible_user": "netops", "gpunet_ssh_host_key_checking": True}


def _pool(
    text: str | None, default_v4: str, default_v6: str, addresses: int, path: str
) -> IPv4Network | IPv6Network:
    """The operator's network, else the IPv4 default when it has `addresses`, else the IPv6 one."""
    try:
        network = ip_network(text or default_v4, strict=True)
    except ValueError as error:
        raise PlanInputError(
            [Problem(path, f"is not a network ({error})", text, "e.g. 192.0.2.0/24")]
        ) from None
    if text is None and network.num_addresses < addresses:
        network = ip_network(default_v6)
    return network


def build_skeleton(topology: Topology, options: InventoryOptions) -> InventorySkeleton:
    check_platform(options.platform)
    request = topology.request
    port_name = _port_namer(options.platform, request.nic_speed_gbps)
    devices = [node.name for node in topology.nodes] + list(topology.switches)
    # network and broadcast addresses are not usable
    mgmt = _pool(options.mgmt_pool, MGMT_POOL_V4, MGMT_POOL_V6, len(devices) + 2, "plan.mgmt_pool")
    if mgmt.num_addresses - 2 < len(devices):
        raise PlanInputError(
            [
                Problem(
                    "plan.mgmt_pool",
                    f"is too small for {len(devices)} devices",
                    str(mgmt),
                    "a larger network",
                )
            ]
        )
    mgmt_address = {name: str(mgmt.network_address + index + 1) for index, name in enumerate(devices)}
    fabric_pool, leaf_subnets = _leaf_subnets(topology, options.fabric_pool)

    hostvars: dict[str, dict[str, Any]] = {}
    ports: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in topology.switches}
    nics: dict[str, list[dict[str, Any]]] = {node.name: [] for node in topology.nodes}
    for link in topology.links:
        upper_port = port_name(link.upper.port)
        if link.kind == HOST_LEAF:
            node, rail = link.lower.device, link.lower.port
            subnet = leaf_subnets[link.upper.device]
            nics[node].append(
                {
                    "name": f"mlx5_{rail}",
                    "netdev": f"rail{rail}",
                    "speed_gbps": request.nic_speed_gbps,
                    "rail": rail,
                    "switch": link.upper.device,
                    "switch_port": upper_port,
                    "ip": f"{subnet.network_address + link.upper.port}/{subnet.prefixlen}",
                }
            )
            peer_of_upper = f"{node}:mlx5_{rail}"
        else:
            lower_port = port_name(link.lower.port)
            ports[link.lower.device][link.lower.port] = _port(
                lower_port, request, f"{link.upper.device}:{upper_port}", link.length_m
            )
            peer_of_upper = f"{link.lower.device}:{lower_port}"
        ports[link.upper.device][link.upper.port] = _port(upper_port, request, peer_of_upper, link.length_m)

    for node in topology.nodes:
        hostvars[node.name] = {
            "ansible_host": mgmt_address[node.name],
            "gpunet_gpus": {"count": request.gpus_per_node, "model": options.gpu_model},
            "gpunet_nics": sorted(nics[node.name], key=lambda nic: nic["rail"]),
        }
    for switch in topology.switches.values():
        used = ports[switch.name]
        hostvars[switch.name] = {
            "ansible_host": mgmt_address[switch.name],
            "gpunet_platform": options.platform,
            "gpunet_switch_model": get_platform(options.platform).example_model,
            "gpunet_role": switch.tier,
            # Every front-panel port, free ones without a peer, so the free capacity stays visible.
            "gpunet_ports": [
                used.get(number) or {"name": port_name(number), "speed_gbps": request.nic_speed_gbps}
                for number in range(1, switch.radix + 1)
            ],
        }
    fabric_cidr = str(fabric_pool) if options.fabric_pool else _covering(leaf_subnets)
    fabric = {
        "name": options.name,
        "ntp": {"servers": ["ntp1.example.net", "ntp2.example.net"]},
        "firewall": {"fabric_cidrs": [fabric_cidr], "mgmt_cidrs": [str(mgmt)]},
    }
    groups = {GPU_GROUP: [node.name for node in topology.nodes]}
    for tier in ("leaf", "spine", "superspine"):
        members = [s.name for s in topology.switches_in_tier(tier)]
        if members:
            groups[tier] = members
    return InventorySkeleton(groups=groups, fabric=fabric, hostvars=hostvars)


def _port(name: str, request: PlanRequest, peer: str, length_m: int) -> dict[str, Any]:
    return {"name": name, "speed_gbps": request.nic_speed_gbps, "peer": peer, "cable_length_m": length_m}


def _leaf_subnets(
    topology: Topology, pool_text: str | None
) -> tuple[IPv4Network | IPv6Network, dict[str, IPv4Network | IPv6Network]]:
    """The fabric pool and one subnet of it per leaf: large enough for every downlink's NIC plus a
    gateway where the pool allows (a partly filled SU then grows without renumbering), else for the
    NICs cabled today; a /64 per leaf in a large IPv6 pool. Without an operator pool, the IPv4
    documentation range is used whenever either sizing fits it, IPv6 only beyond."""
    leaves = topology.switches_in_tier("leaf")
    # network, gateway and broadcast addresses besides the NICs
    sizings = [_host_bits(topology.leaf_down), _host_bits(max(leaf.down_used for leaf in leaves))]
    if pool_text is None:
        v4 = ip_network(FABRIC_POOL_V4)
        fitting = [bits for bits in sizings if len(leaves) * 2**bits <= v4.num_addresses]
        pool = v4 if fitting else ip_network(FABRIC_POOL_V6)
    else:
        pool = _pool(pool_text, FABRIC_POOL_V4, FABRIC_POOL_V6, 0, "plan.fabric_pool")
        fitting = [bits for bits in sizings if len(leaves) * 2**bits <= pool.num_addresses]
    if pool.version == 6 and pool.prefixlen < IPV6_LEAF_PREFIX:
        prefix = IPV6_LEAF_PREFIX
    else:
        prefix = pool.max_prefixlen - (fitting[0] if fitting else sizings[-1])
    if prefix < pool.prefixlen or 2 ** (prefix - pool.prefixlen) < len(leaves):
        raise PlanInputError(
            [
                Problem(
                    "plan.fabric_pool",
                    f"cannot hold {len(leaves)} leaf subnets of /{prefix}",
                    str(pool),
                    "a larger network",
                )
            ]
        )
    subnets = pool.subnets(new_prefix=prefix)
    return pool, {leaf.name: next(subnets) for leaf in leaves}


def _host_bits(nics: int) -> int:
    return math.ceil(math.log2(nics + 3))


def _covering(subnets: dict[str, IPv4Network | IPv6Network]) -> str:
    """The smallest network holding every leaf subnet (they are allocated from one pool, in order)."""
    first, last = next(iter(subnets.values())), list(subnets.values())[-1]
    network = first
    while last.broadcast_address not in network:
        network = network.supernet()
    return str(network)


def check_skeleton(skeleton: InventorySkeleton) -> list[Problem]:
    """The inventory check on the skeleton; an empty list means `gpunet inventory check` passes."""
    return check_raw(skeleton.raw()).problems


def write_skeleton(skeleton: InventorySkeleton, directory: Path) -> list[Path]:
    """Write hosts.yml, group_vars and one host_vars file per device; refuse a non-empty folder."""
    if directory.exists() and not directory.is_dir():
        raise PlanInputError(
            [Problem(str(directory), "is not a folder", expected="a new folder for the inventory")]
        )
    if directory.exists() and any(directory.iterdir()):
        raise PlanInputError(
            [
                Problem(
                    str(directory),
                    "is not empty; gpunet plan never overwrites an inventory",
                    expected="a new folder",
                )
            ]
        )
    try:
        return _write_files(skeleton, directory)
    except OSError as error:
        raise PlanInputError(
            [Problem(str(directory), f"cannot be written ({error.strerror or error})", None, "a new folder")]
        ) from None


def _write_files(skeleton: InventorySkeleton, directory: Path) -> list[Path]:
    written = [
        _write(directory / "hosts.yml", _hosts_document(skeleton), "Planned by `gpunet plan`: groups."),
        _write(
            directory / "group_vars" / "all" / "fabric.yml",
            {"gpunet_fabric": skeleton.fabric},
            "Fabric-wide policy; QoS takes the lossless RoCEv2 defaults. Replace the NTP servers.",
        ),
        _write(
            directory / "group_vars" / "switches" / "connection.yml",
            SWITCH_CONNECTION,
            "SSH to the switches. Put ansible_password in an ansible-vault file next to this one.",
        ),
    ]
    names = list(skeleton.hostvars)
    pieces = [names[start : start + WRITE_PIECE] for start in range(0, len(names), WRITE_PIECE)]
    workers = worker_count(None, len(pieces), worth_forking=len(names) >= FORK_FROM_DEVICES)
    if workers == 1:
        _write_host_vars((skeleton, directory), names)
    else:
        # Printing YAML is most of writing a large plan, and each file is independent: the
        # workers inherit the skeleton by fork and send back nothing.
        for _ in run_forked((skeleton, directory), pieces, workers, _write_host_vars):
            pass
    written += [directory / "host_vars" / f"{name}.yml" for name in names]
    return written


# Forking pays from a few thousand devices; below it one process writes everything.
FORK_FROM_DEVICES = 4096
WRITE_PIECE = 1024


def _write_host_vars(inherited: tuple[InventorySkeleton, Path], names: list[str]) -> int:
    skeleton, directory = inherited
    (directory / "host_vars").mkdir(parents=True, exist_ok=True)
    for name in names:
        _write(directory / "host_vars" / f"{name}.yml", skeleton.hostvars[name], None)
    return len(names)


def _hosts_document(skeleton: InventorySkeleton) -> dict[str, Any]:
    def hosts(names: list[str]) -> dict[str, Any]:
        return {"hosts": dict.fromkeys(names)}

    switch_children = {
        tier: hosts(skeleton.groups[tier])
        for tier in ("leaf", "spine", "superspine")
        if tier in skeleton.groups
    }
    return {
        "all": {
            "children": {
                GPU_GROUP: hosts(skeleton.groups[GPU_GROUP]),
                SWITCH_GROUP: {"children": switch_children},
            }
        }
    }


def _write(path: Path, data: dict[str, Any], comment: str | None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "---\n" + (f"# {comment}\n" if comment else "")
    text = block_yaml(data)
    if text is None:
        text = yaml.dump(data, Dumper=_PlanDumper, sort_keys=False, default_flow_style=False)
    path.write_text(header + text)
    return path
