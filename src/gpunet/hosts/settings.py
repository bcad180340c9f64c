"""What a GPU host's roles need from the fabric model, computed once in Python.

The roles read the operator's raw `gpunet_fabric` and `gpunet_nics`; these functions fill in the
model's RoCE defaults (gpunet.model.defaults) and derive the values the hosts are configured with,
so a role template only prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from ipaddress import ip_network
from typing import Any

from gpunet.model.defaults import port_cable_length_m, with_defaults

ECT0 = 0b10  # ECN-capable transport, so switches mark instead of dropping (DCQCN needs the marks)
TRAFFIC_CLASSES = range(8)
# The class the switches put every DSCP but the RoCE and CNP marks in (gpunet.design.classification).
DEFAULT_TRAFFIC_CLASS = 0


def fabric_settings(fabric_value: Mapping[str, Any]) -> dict[str, Any]:
    """The operator's gpunet_fabric merged over the defaults, plus the derived RoCE TOS byte."""
    settings = with_defaults(dict(fabric_value))
    settings["qos"]["roce_traffic_class"] = roce_traffic_class(settings["qos"]["roce_dscp"])
    # NCCL bootstraps on the management interface unless the operator names other networks.
    firewall = settings.get("firewall", {})
    if "mgmt_cidrs" in firewall:
        firewall.setdefault("nccl_socket_cidrs", list(firewall["mgmt_cidrs"]))
    return settings


def roce_traffic_class(dscp: int) -> int:
    """The IP TOS byte RoCE packets carry: DSCP << 2 | ECT(0), e.g. 26 -> 106."""
    return dscp << 2 | ECT0


def nic_ets(fabric_value: Mapping[str, Any]) -> dict[str, Any]:
    """The NIC's priority -> traffic class map and per-class TSA and bandwidth, from qos.queues.

    The NIC gets the switches' queue shares: each queue's traffic class serves the priority of the
    same number (so the lossless and the CNP priority keep a class of their own), a strict queue is
    `strict` with 0 %, a queue with a share is `ets` with it. Priorities no queue serves go to the
    default class, where the switches put all other traffic too (design/classification.py maps every
    other DSCP to traffic class 0, design/platforms/cumulus.py maps unused switch priorities there):
    the queue of traffic class 0, else the lowest shared queue that is not the lossless one, else the
    lowest class no queue uses. Classes that serve no priority are `ets` with 0 %: valid for mlnx_qos
    (bandwidth 0 only for ETS classes), for iproute2 dcb (shares total 100) and for mlx5, which puts
    0 % ETS classes in its lowest group (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c,
    mlx5e_build_tc_group).
    """
    qos = fabric_settings(fabric_value)["qos"]
    return ets_from_queues(qos["queues"], int(qos["lossless_priority"]))


def ets_from_queues(queue_list: Sequence[Mapping[str, Any]], lossless: int) -> dict[str, Any]:
    """nic_ets over the merged qos.queues (each with traffic_class, bandwidth_percent, strict) and the
    lossless priority: the one rule for roce_host's defaults and for the verify side's expectations."""
    queues = {int(queue["traffic_class"]): queue for queue in queue_list}
    shared = sorted(tc for tc, queue in queues.items() if not queue.get("strict"))
    shares = sum(int(queues[tc]["bandwidth_percent"]) for tc in shared)
    if not shared or shares != 100:
        raise ValueError(
            f"qos.queues: the shared (non-strict) queues' bandwidth_percent must sum to 100 for the NICs' "
            f"ETS, got {shares} over traffic classes {shared}"
        )
    if DEFAULT_TRAFFIC_CLASS in queues:
        default_class = DEFAULT_TRAFFIC_CLASS
    else:
        others = [tc for tc in shared if tc != lossless]
        unused = [tc for tc in TRAFFIC_CLASSES if tc not in queues]
        default_class = (others or unused or shared)[0]
    prio_tc = [prio if prio in queues else default_class for prio in TRAFFIC_CLASSES]
    tc_tsa = ["strict" if queues.get(tc, {}).get("strict") else "ets" for tc in TRAFFIC_CLASSES]
    tc_bw = [int(queues[tc]["bandwidth_percent"]) if tc in shared else 0 for tc in TRAFFIC_CLASSES]
    return {"prio_tc": prio_tc, "tc_tsa": tc_tsa, "tc_bw": tc_bw, "default_traffic_class": default_class}


def nic_cable_lengths(
    fabric_value: Mapping[str, Any],
    nics: Sequence[Mapping[str, Any]],
    switch_ports: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[str, int]:
    """netdev -> metres of cable to its leaf, read from the leaf's port in the inventory.

    The inventory holds cable lengths on switch ports only (gpunet_ports[].cable_length_m, else
    qos.pfc.cable_length_m): the same rule as the switch's own headroom (gpunet.model.build). A NIC
    whose leaf or port `switch_ports` does not hold is left out, so the caller can say the length is
    unknown instead of guessing one.
    """
    settings = fabric_settings(fabric_value)

    def port_length(switch: str, port_name: str) -> int | None:
        port = next((p for p in switch_ports.get(switch) or [] if p.get("name") == port_name), None)
        return None if port is None else port_cable_length_m(port, settings)

    return cable_lengths(nics, port_length)


def cable_lengths(
    nics: Sequence[Mapping[str, Any]], port_length: Callable[[str, str], int | None]
) -> dict[str, int]:
    """netdev -> metres, where `port_length(leaf, port)` knows the NIC's leaf port (None: it does not).

    nic_cable_lengths asks the inventory's raw gpunet_ports; the verify side asks the built Fabric,
    whose ports hold the same port_cable_length_m.
    """
    lengths: dict[str, int] = {}
    for nic in nics:
        metres = port_length(str(nic.get("switch", "")), str(nic.get("switch_port", "")))
        if metres is not None:
            lengths[str(nic["netdev"])] = metres
    return lengths


def nccl_environment(
    fabric_value: Mapping[str, Any],
    nics: Sequence[Mapping[str, Any]],
    *,
    socket_ifname: str = "",
    gid_index: int | None = None,
    port: int = 1,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The NCCL variables for /etc/nccl.conf, in a stable order.

    NCCL_IB_HCA lists the exact device names with a leading '=' (else mlx5_1 also matches mlx5_10).
    NCCL_IB_TC and the GID index apply to RoCE only; InfiniBand uses neither. The GID index is written
    only when given: NCCL picks the RoCEv2 GID itself since 2.21.
    """
    settings = fabric_settings(fabric_value)
    env: dict[str, str] = {}
    if nics:
        env["NCCL_IB_HCA"] = "=" + ",".join(f"{nic['name']}:{port}" for nic in nics)
    if settings["transport"] == "roce":
        if gid_index is not None:
            env["NCCL_IB_GID_INDEX"] = str(gid_index)
        env["NCCL_IB_TC"] = str(settings["qos"]["roce_traffic_class"])
    if socket_ifname:
        env["NCCL_SOCKET_IFNAME"] = socket_ifname
    for key, value in (extra or {}).items():
        env[str(key)] = str(value)
    return env


def local_port_range(fabric_value: Mapping[str, Any]) -> str:
    """net.ipv4.ip_local_port_range value ("first last") that pins NCCL's bootstrap ports."""
    first, last = fabric_settings(fabric_value)["firewall"]["nccl_port_range"]
    return f"{first} {last}"


def cidrs_by_family(cidrs: Sequence[str]) -> dict[str, list[str]]:
    """Split networks into IPv4 and IPv6 lists (nftables matches them with `ip` and `ip6`)."""
    split: dict[str, list[str]] = {"ipv4": [], "ipv6": []}
    for cidr in cidrs:
        network = ip_network(str(cidr), strict=False)
        split[f"ipv{network.version}"].append(str(network))
    return split


def interface_with_address(facts: Mapping[str, Any], address: str) -> str:
    """The interface holding `address` in Ansible's network facts, or "" when none does.

    NCCL's bootstrap should use the management interface the host is reached at, which need not be
    the one with the default route.
    """
    for name in facts.get("interfaces", []):
        ipv4 = facts.get(name.replace("-", "_"), {}).get("ipv4", {})
        addresses = [ipv4] if isinstance(ipv4, Mapping) else list(ipv4)
        addresses += list(facts.get(name.replace("-", "_"), {}).get("ipv4_secondaries", []))
        if any(entry.get("address") == address for entry in addresses):
            return str(name)
    return ""


def persistenced_exec_start(unit_text: str) -> str:
    """nvidia-persistenced's ExecStart from `systemctl cat`, with persistence mode on.

    Ubuntu's packaged unit passes --no-persistence-mode; the drop-in keeps the rest of its command line
    (user, verbosity) and asks for --persistence-mode, as NVIDIA's own Ansible role does.
    """
    lines = unit_text.splitlines()
    starts = [line.split("=", 1)[1].strip() for line in lines if line.startswith("ExecStart=")]
    commands = [line for line in starts if line]  # an empty ExecStart= only resets the list
    if not commands:
        raise ValueError("no ExecStart= line in the nvidia-persistenced unit")
    flags = ("--no-persistence-mode", "--persistence-mode")
    words = [word for word in commands[-1].split() if word not in flags]
    return " ".join([*words, "--persistence-mode"])
