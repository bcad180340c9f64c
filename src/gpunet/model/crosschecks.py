"""Rules that span several values: QoS consistency, addressing, and cabling agreed from both ends.

Each rule is a function Fabric -> problems, listed in RULES. `broken` names hosts and switches
that already failed the schema; rules do not report references to them a second time.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from ipaddress import ip_address, ip_network

from gpunet.grammar.versions import FORMS, VersionError, parse_version
from gpunet.hardware import get_model, known_models
from gpunet.hardware.catalog import HOW_TO_ADD
from gpunet.hardware.physical import PlacementProblem, PortRequest, place_ports
from gpunet.model.errors import Problem
from gpunet.model.fabric import Fabric
from gpunet.platforms import PLATFORMS, Platform, known_platforms

# Plausible ECN thresholds for a single switch queue: at least one jumbo frame, at most 32 MB.
ECN_MIN_PLAUSIBLE_KB = 9
ECN_MAX_PLAUSIBLE_KB = 32 * 1024
# TCP ports a NCCL port range must not swallow: SSH, and perftest's out-of-band exchange,
# which verification runs on 18515 + rail so that all rails can test at once, and the incast
# stage on 18515 + n, one server per sender a host receives from (gpunet.validate.incast): up to
# INCAST_PORTS_PER_RAIL senders on each of its rails, what the firewall role opens by default.
SSH_PORT = 22
PERFTEST_BASE_PORT = 18515
INCAST_PORTS_PER_RAIL = 4


def ecn_thresholds(fabric: Fabric, broken: set[str]) -> list[Problem]:
    ecn = fabric.qos.ecn
    path = "gpunet_fabric.qos.ecn"
    problems = []
    if ecn.min_threshold_kb >= ecn.max_threshold_kb:
        problems.append(
            Problem(
                f"{path}.min_threshold_kb",
                "must be below max_threshold_kb",
                ecn.min_threshold_kb,
                f"< {ecn.max_threshold_kb}",
            )
        )
    for key, value in (
        ("min_threshold_kb", ecn.min_threshold_kb),
        ("max_threshold_kb", ecn.max_threshold_kb),
    ):
        if not ECN_MIN_PLAUSIBLE_KB <= value <= ECN_MAX_PLAUSIBLE_KB:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    "is not a plausible queue threshold",
                    value,
                    f"{ECN_MIN_PLAUSIBLE_KB}..{ECN_MAX_PLAUSIBLE_KB} KB",
                )
            )
    return problems


def distinct_marks(fabric: Fabric, broken: set[str]) -> list[Problem]:
    qos = fabric.qos
    problems = []
    if qos.roce_dscp == qos.cnp_dscp:
        problems.append(
            Problem(
                "gpunet_fabric.qos.cnp_dscp",
                "must differ from roce_dscp",
                qos.cnp_dscp,
                f"a DSCP other than {qos.roce_dscp}",
            )
        )
    if qos.lossless_priority == qos.cnp_priority:
        problems.append(
            Problem(
                "gpunet_fabric.qos.cnp_priority",
                "must differ from lossless_priority",
                qos.cnp_priority,
                f"a priority other than {qos.lossless_priority}",
            )
        )
    return problems


def queues(fabric: Fabric, broken: set[str]) -> list[Problem]:
    qos = fabric.qos
    path = "gpunet_fabric.qos.queues"
    problems = []
    seen_classes: dict[int, int] = {}
    seen_names: dict[str, int] = {}
    for index, queue in enumerate(qos.queues):
        if queue.traffic_class in seen_classes:
            problems.append(
                Problem(
                    f"{path}[{index}].traffic_class",
                    f"is already used by {path}[{seen_classes[queue.traffic_class]}]",
                    queue.traffic_class,
                    "one queue per traffic class",
                )
            )
        seen_classes.setdefault(queue.traffic_class, index)
        if queue.name in seen_names:
            problems.append(
                Problem(f"{path}[{index}].name", "is used twice", queue.name, "unique queue names")
            )
        seen_names.setdefault(queue.name, index)
    classes = sorted(seen_classes)
    for key, priority in (("lossless_priority", qos.lossless_priority), ("cnp_priority", qos.cnp_priority)):
        if priority not in seen_classes:
            problems.append(
                Problem(
                    f"gpunet_fabric.qos.{key}",
                    "has no queue with that traffic_class",
                    priority,
                    f"one of the queues' traffic classes {classes}",
                )
            )
    lossless = seen_classes.get(qos.lossless_priority)
    if lossless is not None and qos.queues[lossless].strict:
        problems.append(
            Problem(
                f"{path}[{lossless}].strict",
                "the lossless queue needs a bandwidth share, not strict priority",
                True,
                "bandwidth_percent",
            )
        )
    shares = [q.bandwidth_percent for q in qos.queues if not q.strict and q.bandwidth_percent is not None]
    if shares and sum(shares) != 100:
        problems.append(
            Problem(path, "bandwidth_percent of the non-strict queues must sum to 100", sum(shares), 100)
        )
    return problems


def mtu(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems = []
    if fabric.host_mtu > fabric.mtu:
        problems.append(
            Problem(
                "gpunet_fabric.host_mtu",
                "does not fit in the switch MTU",
                fabric.host_mtu,
                f"<= {fabric.mtu}",
            )
        )
    for switch in fabric.switches.values():
        for index, port in enumerate(switch.ports):
            if not (port.peer and port.peer.kind == "host"):
                continue
            host = fabric.hosts.get(port.peer.device)
            override = host.roce_host_knobs.get("roce_host_mtu") if host else None
            if override is not None:
                # The host's own roce_host_mtu (0: left alone, nothing set to judge) replaces host_mtu.
                if override > port.mtu:
                    problems.append(
                        Problem(
                            f"{port.peer.device}.roce_host_mtu",
                            f"is larger than the MTU of its leaf port {switch.name}:{port.name}",
                            override,
                            f"<= {port.mtu}",
                        )
                    )
            # A port left at the fabric MTU is covered by the fabric-wide rule above.
            elif fabric.host_mtu > port.mtu != fabric.mtu:
                problems.append(
                    Problem(
                        f"{switch.name}.gpunet_ports[{index}].mtu",
                        "is smaller than the host MTU",
                        port.mtu,
                        f">= {fabric.host_mtu}",
                    )
                )
    return problems


def platforms(fabric: Fabric, broken: set[str]) -> list[Problem]:
    return [
        Problem(
            f"{switch.name}.gpunet_platform",
            "unknown platform",
            switch.platform,
            f"one of {', '.join(known_platforms())}",
        )
        for switch in fabric.switches.values()
        if switch.platform not in PLATFORMS
    ]


def firewall(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems = []
    path = "gpunet_fabric.firewall"
    for key in ("fabric_cidrs", "mgmt_cidrs"):
        for index, cidr in enumerate(getattr(fabric.firewall, key)):
            try:
                ip_network(cidr)
            except ValueError as error:
                problems.append(
                    Problem(
                        f"{path}.{key}[{index}]",
                        f"is not a network ({error})",
                        cidr,
                        "a network such as 198.51.100.0/24",
                    )
                )
    first, last = fabric.firewall.nccl_port_range
    if not 1024 <= first < last <= 65535:
        problems.append(
            Problem(
                f"{path}.nccl_port_range",
                "is not a valid port range",
                [first, last],
                "[first, last] with 1024 <= first < last <= 65535",
            )
        )
    else:
        for low, high, user in _reserved_tcp_ports(fabric):
            if first <= high and low <= last:
                taken = str(low) if low == high else f"{low}-{high}"
                problems.append(
                    Problem(
                        f"{path}.nccl_port_range",
                        f"includes TCP {taken} used by {user}",
                        [first, last],
                        f"a range without {taken}",
                    )
                )
    return problems


def _reserved_tcp_ports(fabric: Fabric) -> list[tuple[int, int, str]]:
    rails = max((nic.rail for host in fabric.hosts.values() for nic in host.nics), default=0) + 1
    return [
        (SSH_PORT, SSH_PORT, "SSH"),
        (
            PERFTEST_BASE_PORT,
            PERFTEST_BASE_PORT + rails * INCAST_PORTS_PER_RAIL - 1,
            f"perftest (one port per rail, {INCAST_PORTS_PER_RAIL} per rail in the incast stage)",
        ),
    ]


def nic_addresses(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems = []
    networks = []
    for cidr in fabric.firewall.fabric_cidrs:
        with contextlib.suppress(ValueError):  # reported by the firewall rule
            networks.append(ip_network(cidr))
    owner: dict[object, str] = {}
    for host in fabric.hosts.values():
        for index, nic in enumerate(host.nics):
            path = f"{host.name}.gpunet_nics[{index}].ip"
            address = nic.ip.ip
            if address in owner:
                problems.append(
                    Problem(path, f"is already used by {owner[address]}", str(nic.ip), "a unique address")
                )
            else:
                owner[address] = f"{host.name}:{nic.name}"
            if networks and not any(address in network for network in networks):
                problems.append(
                    Problem(
                        path,
                        "is outside every fabric_cidrs network, so the firewall would block RoCE",
                        str(nic.ip),
                        f"an address in {', '.join(fabric.firewall.fabric_cidrs)}",
                    )
                )
    return problems


def management_addresses(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems = []
    owner: dict[tuple[str, int], str] = {}
    endpoints = [(h.name, h.mgmt_address, 22) for h in fabric.hosts.values()]
    endpoints += [(s.name, s.mgmt_address, s.mgmt_port) for s in fabric.switches.values()]
    for name, address, port in endpoints:
        key = (address, port)
        if key in owner:
            problems.append(
                Problem(
                    f"{name}.ansible_host",
                    f"is already the management address of {owner[key]}",
                    f"{address}:{port}" if port != 22 else address,
                    "a unique address (or port)",
                )
            )
        else:
            owner[key] = name
    return problems


def unique_names(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems = []
    for host in fabric.hosts.values():
        for field_name in ("name", "netdev", "rail"):
            seen: set[object] = set()
            for index, nic in enumerate(host.nics):
                value = getattr(nic, field_name)
                if value in seen:
                    problems.append(
                        Problem(
                            f"{host.name}.gpunet_nics[{index}].{field_name}",
                            "is used twice on this host",
                            value,
                            "unique per host",
                        )
                    )
                seen.add(value)
    for switch in fabric.switches.values():
        seen_ports: set[str] = set()
        for index, port in enumerate(switch.ports):
            if port.name in seen_ports:
                problems.append(
                    Problem(
                        f"{switch.name}.gpunet_ports[{index}].name",
                        "is listed twice",
                        port.name,
                        "each port once",
                    )
                )
            seen_ports.add(port.name)
    return problems


def nic_cabling(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """Each NIC names a leaf port; that port exists, runs at the NIC's speed and points back."""
    problems = []
    claimed: dict[tuple[str, str], str] = {}
    for host in fabric.hosts.values():
        for index, nic in enumerate(host.nics):
            path = f"{host.name}.gpunet_nics[{index}]"
            me = f"{host.name}:{nic.name}"
            if nic.switch in broken:
                continue
            switch = fabric.switches.get(nic.switch)
            if switch is None:
                problems.append(
                    Problem(
                        f"{path}.switch",
                        "is not a switch in the inventory",
                        nic.switch,
                        "a host of the switches group",
                    )
                )
                continue
            if switch.role != "leaf":
                problems.append(
                    Problem(
                        f"{path}.switch",
                        f"is a {switch.role}; GPU NICs connect to leaf switches",
                        nic.switch,
                        "a leaf",
                    )
                )
            key = (nic.switch, nic.switch_port)
            if key in claimed:
                problems.append(
                    Problem(
                        f"{path}.switch_port",
                        f"is already used by {claimed[key]}",
                        f"{nic.switch}:{nic.switch_port}",
                        "one NIC per switch port",
                    )
                )
                continue
            claimed[key] = me
            port = switch.port(nic.switch_port)
            if port is None:
                problems.append(
                    Problem(
                        f"{path}.switch_port",
                        f"is not in {nic.switch}'s gpunet_ports",
                        nic.switch_port,
                        f"a port listed under {nic.switch}.gpunet_ports",
                    )
                )
                continue
            if port.peer is None or str(port.peer) != me:
                problems.append(
                    Problem(
                        f"{path}.switch_port",
                        f"cabling disagrees: {nic.switch} {port.name} says its peer is "
                        f"{port.peer or 'nothing'}",
                        str(port.peer) if port.peer else None,
                        me,
                    )
                )
            if port.speed_gbps != nic.speed_gbps:
                problems.append(
                    Problem(
                        f"{path}.speed_gbps",
                        f"differs from {nic.switch} {port.name}'s speed",
                        nic.speed_gbps,
                        port.speed_gbps,
                    )
                )
    return problems


def port_peers(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """Each switch port's peer exists and points back; no two ports claim the same far end."""
    # 1.3 million ports at 262,144 GPUs: a port's path is spelled only for a problem, and the ends
    # as f-strings (what Peer.__str__ spells) without a call each.
    problems = []
    claimed: dict[str, str] = {}
    for switch in fabric.switches.values():
        for index, port in enumerate(switch.ports):
            peer = port.peer
            if peer is None or peer.device in broken:
                continue
            me = f"{switch.name}:{port.name}"
            far = f"{peer.device}:{peer.port}"
            if far in claimed:
                problems.append(
                    Problem(
                        _peer_path(switch.name, index),
                        f"is already the peer of {claimed[far]}",
                        far,
                        "one cable per end",
                    )
                )
                continue
            claimed[far] = me
            if peer.kind == "host":
                problems.extend(_host_peer(fabric, switch.name, index, me, port))
            elif peer.kind == "switch":
                problems.extend(_switch_peer(fabric, switch.name, index, me, port))
            else:
                problems.append(
                    Problem(
                        _peer_path(switch.name, index),
                        "names a device that is not in the inventory",
                        far,
                        "<gpu host>:<nic> or <switch>:<port>",
                    )
                )
    return problems


def _peer_path(switch: str, index: int) -> str:
    return f"{switch}.gpunet_ports[{index}].peer"


def _host_peer(fabric: Fabric, switch: str, index: int, me: str, port) -> list[Problem]:
    host = fabric.hosts[port.peer.device]
    wanted = port.peer.port
    for nic in host.nics:
        if nic.name == wanted:
            break
    else:
        return [
            Problem(
                _peer_path(switch, index),
                f"names a NIC {host.name} does not have",
                str(port.peer),
                f"one of {', '.join(sorted({n.name for n in host.nics}))}",
            )
        ]
    if f"{nic.switch}:{nic.switch_port}" != me:
        return [
            Problem(
                _peer_path(switch, index),
                f"cabling disagrees: {host.name} {nic.name} says it is on {nic.switch}:{nic.switch_port}",
                str(port.peer),
                f"{host.name} {nic.name} with switch/switch_port {me}",
            )
        ]
    return []


def _switch_peer(fabric: Fabric, switch: str, index: int, me: str, port) -> list[Problem]:
    other = fabric.switches[port.peer.device]
    far_port = other.port(port.peer.port)
    if far_port is None:
        return [
            Problem(
                _peer_path(switch, index),
                f"names a port {other.name} does not list",
                str(port.peer),
                f"a port in {other.name}.gpunet_ports",
            )
        ]
    back = far_port.peer
    if back is None or f"{back.device}:{back.port}" != me:
        return [
            Problem(
                _peer_path(switch, index),
                f"cabling disagrees: {other.name} {far_port.name} says its peer is "
                f"{far_port.peer or 'nothing'}",
                str(port.peer),
                f"{other.name} {far_port.name} peer {me}",
            )
        ]
    if far_port.speed_gbps != port.speed_gbps:
        return [
            Problem(
                f"{switch}.gpunet_ports[{index}].speed_gbps",
                f"differs from {port.peer}'s speed",
                port.speed_gbps,
                far_port.speed_gbps,
            )
        ]
    return []


def leaf_rails(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """A rail leaf (each host puts one NIC on it) carries one rail; a NIC on another rail is never
    paired for perftest. Top-of-rack leaves, where a host puts several NICs, carry every rail."""
    nics_by_leaf: dict[str, list[tuple[str, int, int]]] = {}
    for host in fabric.hosts.values():
        for index, nic in enumerate(host.nics):
            if nic.switch not in broken:
                nics_by_leaf.setdefault(nic.switch, []).append((host.name, index, nic.rail))
    problems = []
    for leaf, attached in nics_by_leaf.items():
        hosts = [host for host, _, _ in attached]
        if len(set(hosts)) != len(hosts):
            continue  # top-of-rack
        rails = Counter(rail for _, _, rail in attached)
        if len(rails) < 2:
            continue
        leaf_rail = rails.most_common(1)[0][0]  # ties: the rail of the first host in the inventory
        for host, index, rail in attached:
            if rail != leaf_rail:
                problems.append(
                    Problem(
                        f"{host}.gpunet_nics[{index}].rail",
                        f"differs from the rail of the other NICs on {leaf}: fix the rail, or cable "
                        "the NIC to its rail's leaf",
                        rail,
                        leaf_rail,
                    )
                )
    return problems


def switch_models(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """Every switch names a hardware model gpunet knows, and one that runs its platform."""
    problems = []
    for switch in fabric.switches.values():
        path = f"{switch.name}.gpunet_switch_model"
        if switch.model not in known_models():
            problems.append(
                Problem(
                    path,
                    "unknown switch model",
                    switch.model,
                    f"one of {', '.join(known_models())}; {HOW_TO_ADD}",
                )
            )
            continue
        model = get_model(switch.model)
        if switch.platform in PLATFORMS and switch.platform not in model.platforms:
            problems.append(
                Problem(
                    path,
                    f"does not run {switch.platform}",
                    switch.model,
                    f"a model for {', '.join(model.platforms)}",
                )
            )
    return problems


def switch_port_names(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """Port names the platform can have, and front-panel numbers the hardware model has."""
    problems = []
    for switch in fabric.switches.values():
        platform = PLATFORMS.get(switch.platform)
        if platform is None:
            continue
        model = get_model(switch.model) if switch.model in known_models() else None
        regex = platform.port_name_regex()
        for index, port in enumerate(switch.ports):
            path = f"{switch.name}.gpunet_ports[{index}].name"
            match = regex.fullmatch(port.name)
            if match is None:
                problems.append(
                    Problem(path, f"is not a {switch.platform} port name", port.name, platform.port_name_form)
                )
                continue
            panel = match.groupdict().get("panel")
            last = platform.first_panel_port + model.ports - 1 if model else None
            if model and panel is not None and not platform.first_panel_port <= int(panel) <= last:
                problems.append(
                    Problem(
                        path,
                        f"names a front-panel port {model.title} does not have",
                        port.name,
                        f"port number {platform.first_panel_port}..{last}",
                    )
                )
    return problems


def switch_port_capacity(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """No more interfaces than the model can have, and only speeds it can run."""
    problems = []
    for switch in fabric.switches.values():
        if switch.model not in known_models():
            continue
        model = get_model(switch.model)
        if len(switch.ports) > model.max_interfaces:
            problems.append(
                Problem(
                    f"{switch.name}.gpunet_ports",
                    f"has more ports than {model.title} can have",
                    len(switch.ports),
                    f"at most {model.max_interfaces} ({model.ports} ports, up to {model.max_breakout} each)",
                )
            )
        speeds = ", ".join(str(speed) for speed in model.speeds_gbps)
        for index, port in enumerate(switch.ports):
            if port.speed_gbps not in model.speeds_gbps:
                problems.append(
                    Problem(
                        f"{switch.name}.gpunet_ports[{index}].speed_gbps",
                        f"is a speed {model.title} cannot run",
                        port.speed_gbps,
                        f"one of {speeds}",
                    )
                )
    return problems


def switch_port_lanes(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """Every port can be built on its model: its speed and lanes fit a breakout mode the OS offers for
    its cage, at the position its name gives, and all ports of one cage agree on that mode."""
    problems = []
    # Placing is a pure function of the model, the OS and the requests; the switches of one tier
    # usually ask the same (10,240 switches of 128 ports at 262,144 GPUs), so each is placed once.
    # Keyed by plain tuples, which hash and compare in C: a key of PortRequests hashed each of its
    # 128 dataclasses in Python for every switch. The front-panel test is asked once per port name.
    placed: dict[tuple[str, str, tuple[tuple[int, str, int, int | None], ...]], list[PlacementProblem]] = {}
    on_panel: dict[tuple[str, int, str], bool] = {}
    for switch in fabric.switches.values():
        if switch.name in broken or switch.model not in known_models() or switch.platform not in PLATFORMS:
            continue
        model = get_model(switch.model)
        if model.physical is None or switch.platform not in model.platforms:
            continue  # no port hardware in the table, or the model check reports the platform
        if len(switch.ports) > model.max_interfaces:
            continue  # switch_port_capacity reports it; placing hundreds of extra ports adds noise
        platform = PLATFORMS[switch.platform]
        requests = []
        for index, port in enumerate(switch.ports):
            if port.speed_gbps not in model.speeds_gbps:
                continue
            seen = (switch.platform, model.ports, port.name)
            panel = on_panel.get(seen)
            if panel is None:
                panel = on_panel[seen] = _on_panel(platform, model.ports, port.name)
            if panel:
                requests.append((index, port.name, port.speed_gbps, port.lanes))
        key = (model.name, switch.platform, tuple(requests))
        if key not in placed:
            asked = tuple(PortRequest(*request) for request in requests)
            placed[key] = place_ports(model.physical, switch.platform, asked)[1]
        found = placed[key]
        for problem in found:
            problems.append(
                Problem(
                    f"{switch.name}.gpunet_ports[{problem.index}].{problem.field}",
                    f"{problem.message} on {model.title} ({switch.platform}; src/gpunet/hardware/models.yml "
                    f"models.{model.name}.physical.platforms.{switch.platform})",
                    problem.got,
                    problem.expected,
                )
            )
    return problems


def nic_lanes(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """A NIC that states its lanes runs on as many as the switch port it is cabled to (copper carries
    each lane to one lane): a ConnectX-7 400G OSFP (4 x 100G) cannot meet a 400G port on 8 x 50G."""
    problems = []
    for host in fabric.hosts.values():
        for index, nic in enumerate(host.nics):
            switch = fabric.switches.get(nic.switch)
            if (
                nic.lanes is None
                or switch is None
                or nic.switch in broken
                or switch.model not in known_models()
            ):
                continue
            port, physical = switch.port(nic.switch_port), get_model(switch.model).physical
            if port is None or physical is None or port.speed_gbps != nic.speed_gbps:
                continue  # nic_cabling reports a missing port or a speed mismatch
            lanes = port.lanes if port.lanes is not None else physical.default_lanes(port.speed_gbps)
            if lanes is None or lanes == nic.lanes:
                continue  # switch_port_lanes reports a port no lane count builds
            where = next(i for i, p in enumerate(switch.ports) if p.name == port.name)
            problems.append(
                Problem(
                    f"{host.name}.gpunet_nics[{index}].lanes",
                    f"differs from the lanes of {switch.name} {port.name} it is cabled to: {host.name} "
                    f"{nic.name} runs {nic.speed_gbps}G on {nic.lanes} lanes, {switch.name} {port.name} on "
                    f"{lanes} x {port.speed_gbps // lanes}G ({get_model(switch.model).title}, "
                    f"{physical.serdes_gbps}G SerDes)",
                    nic.lanes,
                    f"{lanes}, or {switch.name}.gpunet_ports[{where}].lanes {nic.lanes} where its cage has "
                    "such a mode, or optics that convert (then leave the NIC's lanes out)",
                )
            )
    return problems


def _on_panel(platform: Platform, panel_ports: int, name: str) -> bool:
    """A name the platform has, on a front-panel port the model has (switch_port_names reports others)."""
    match = platform.port_name_regex().fullmatch(name)
    if match is None:
        return False
    panel = match.groupdict().get("panel")
    return panel is None or platform.first_panel_port <= int(panel) < platform.first_panel_port + panel_ports


def switch_os_versions(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """gpunet_os_version in the platform's release form, so statement floors can be compared."""
    problems = []
    for switch in fabric.switches.values():
        if not switch.os_version or switch.platform not in PLATFORMS:
            continue
        try:
            parse_version(switch.platform, switch.os_version)
        except VersionError as error:
            problems.append(
                Problem(
                    f"{switch.name}.gpunet_os_version",
                    str(error),
                    switch.os_version,
                    FORMS[switch.platform].example,
                )
            )
    return problems


def switch_asics(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """gpunet_switch_asics only on SONiC: only SONiC switches are read once per ASIC namespace
    (`-n asic<k>`, gpunet.collect.switch_show.sonic_namespaces); on another platform the key
    would be ignored and the switch read as one ASIC."""
    return [
        Problem(
            f"{switch.name}.gpunet_switch_asics",
            f"is for multi-ASIC SONiC switches only: a {switch.platform} switch is read as one ASIC, "
            "so the key would be ignored; remove it, or set gpunet_platform to sonic if the switch "
            "runs SONiC",
            switch.asics,
            f"no gpunet_switch_asics on a {switch.platform} switch",
        )
        for switch in fabric.switches.values()
        if switch.asics and switch.platform in PLATFORMS and switch.platform != "sonic"
    ]


def nccl_bootstrap_reachable(fabric: Fabric, broken: set[str]) -> list[Problem]:
    """NCCL bootstraps over TCP on NCCL_SOCKET_IFNAME, by default the interface holding ansible_host.

    The firewall opens the NCCL port range from fabric_cidrs and nccl_socket_cidrs only, so a host whose
    bootstrap address lies outside both never gets its peers' connections: the job hangs at init.
    """
    problems = []
    path = "gpunet_fabric.firewall.nccl_socket_cidrs"
    networks = []
    for cidr in fabric.firewall.fabric_cidrs:
        with contextlib.suppress(ValueError):  # reported by the firewall rule
            networks.append(ip_network(cidr))
    invalid = False
    for index, cidr in enumerate(fabric.firewall.nccl_socket_cidrs):
        try:
            networks.append(ip_network(cidr))
        except ValueError as error:
            invalid = True
            if cidr not in fabric.firewall.mgmt_cidrs:  # a mgmt_cidrs default is reported already
                problems.append(
                    Problem(
                        f"{path}[{index}]",
                        f"is not a network ({error})",
                        cidr,
                        "a network such as 192.0.2.0/24",
                    )
                )
    if invalid:
        return problems  # which hosts are reachable is unknown until the networks are valid
    opened = ", ".join([*fabric.firewall.fabric_cidrs, *fabric.firewall.nccl_socket_cidrs])
    for host in fabric.hosts.values():
        if host.name in broken:
            continue
        try:
            address = ip_address(host.mgmt_address)
        except ValueError:
            continue  # a DNS name: its network is unknown here
        if not any(address in network for network in networks):
            problems.append(
                Problem(
                    f"{host.name}.ansible_host",
                    "is on the NCCL bootstrap interface (NCCL_SOCKET_IFNAME), but the firewall opens "
                    "the NCCL port range only from fabric_cidrs and nccl_socket_cidrs",
                    host.mgmt_address,
                    f"an address in {opened}, or its network added to {path}",
                )
            )
    return problems


RULES: tuple[Callable[[Fabric, set[str]], list[Problem]], ...] = (
    ecn_thresholds,
    distinct_marks,
    queues,
    mtu,
    platforms,
    firewall,
    nic_addresses,
    management_addresses,
    unique_names,
    nic_cabling,
    port_peers,
    leaf_rails,
    switch_models,
    switch_port_names,
    switch_port_capacity,
    switch_port_lanes,
    nic_lanes,
    switch_os_versions,
    switch_asics,
    nccl_bootstrap_reachable,
)


def run_all(fabric: Fabric, broken: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    for rule in RULES:
        problems.extend(rule(fabric, broken))
    return problems
