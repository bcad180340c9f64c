"""Turn raw per-host variables into a validated Fabric, collecting every problem on the way."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Interface, IPv6Interface
from typing import Any

from gpunet.model import crosschecks
from gpunet.model.defaults import port_cable_length_m, with_defaults
from gpunet.model.errors import InventoryInvalidError, Problem
from gpunet.model.fabric import (
    Ecn,
    Fabric,
    Firewall,
    GpuHost,
    Gpus,
    Hardware,
    Nic,
    Ntp,
    Peer,
    Pfc,
    Qos,
    Queue,
    Switch,
    SwitchBuffer,
    SwitchPort,
)
from gpunet.model.names import FABRIC_NAME, HOST_NAME, QUEUE_NAME, case_twins, shown
from gpunet.model.schema_check import check, host_validator, validator

GPU_GROUP = "gpu_nodes"
SWITCH_GROUP = "switches"
SWITCH_ROLE_GROUPS = ("leaf", "spine", "superspine")
CONNECTION_VARS = ("ansible_host", "ansible_port", "ansible_user")


@dataclass
class RawInventory:
    """What the loader hands over: group membership and each relevant host's variables, templated."""

    groups: Mapping[str, Iterable[str]]
    hostvars: Mapping[str, Mapping[str, Any]]
    # gpunet_* names that roles declare in their argument specs; allowed beside the model's keys.
    role_variables: frozenset[str] = field(default_factory=frozenset)
    # Vault-encrypted files left unread because no vault password was given.
    skipped_files: tuple[str, ...] = ()


def is_model_var(key: str, role_variables: frozenset[str] = frozenset()) -> bool:
    """The model owns the connection settings and every gpunet_* name that no role declares."""
    return key in CONNECTION_VARS or (key.startswith("gpunet_") and key not in role_variables)


# roce_host knobs the verify side judges the NICs by, where the inventory overrides their defaults
# or turns one off ([] / false): gpunet-validate's manifest expects on each NIC what roce_host sets.
VERIFIED_ROLE_KNOBS = (
    "roce_host_prio_tc",
    "roce_host_tc_tsa",
    "roce_host_tc_bw",
    "roce_host_set_cable_length",
    "roce_host_cable_length_m",
    "roce_host_mtu",
)
_TSA_NAMES = ("strict", "ets", "vendor")  # what roce_qos takes (mlnx_qos --tsa)
_ANSIBLE_BOOLS = {
    "true": True,
    "yes": True,
    "on": True,
    "1": True,
    "false": False,
    "no": False,
    "off": False,
    "0": False,
}


def is_loaded_var(key: str, role_variables: frozenset[str] = frozenset()) -> bool:
    """What the loaders read of a host: the model's variables and the verified role knobs."""
    return is_model_var(key, role_variables) or key in VERIFIED_ROLE_KNOBS


def relevant_vars(
    all_vars: Mapping[str, Any], role_variables: frozenset[str] = frozenset()
) -> dict[str, Any]:
    return {key: value for key, value in all_vars.items() if is_model_var(key, role_variables)}


def build_fabric(raw: RawInventory) -> Fabric:
    """Validate `raw` and return the Fabric; raise InventoryInvalidError listing every problem."""
    problems: list[Problem] = []
    gpu_names = list(dict.fromkeys(raw.groups.get(GPU_GROUP, ())))
    switch_names = list(dict.fromkeys(raw.groups.get(SWITCH_GROUP, ())))
    if not gpu_names and not switch_names:
        problems.append(
            Problem("inventory", "has no hosts in the gpu_nodes or switches groups", expected="at least one")
        )
        raise InventoryInvalidError(problems)
    # Still built and cross-checked: the name is the one mistake reported, and a fabric with a
    # problem is never rendered or pushed.
    problems += _device_name_problems(gpu_names + switch_names)
    in_both = set(gpu_names) & set(switch_names)
    for name in sorted(in_both):
        problems.append(Problem(name, "is in both gpu_nodes and switches", expected="one of the two"))
    # Checked as a GPU host only: its switch-schema errors would repeat the same mistake.
    switch_names = [name for name in switch_names if name not in in_both]

    fabric_value = _fabric_value(raw, gpu_names + switch_names, problems)
    fabric_settings = None
    if fabric_value is not None:
        fabric_problems = _with_name_rules(
            check(fabric_value, validator("fabric"), "gpunet_fabric"), fabric_value
        )
        problems.extend(fabric_problems)
        if not fabric_problems:
            fabric_settings = with_defaults(dict(fabric_value))

    hosts: dict[str, GpuHost] = {}
    switches: dict[str, Switch] = {}
    broken: set[str] = set()
    for name in gpu_names:
        own = relevant_vars(raw.hostvars.get(name, {}), raw.role_variables)
        host_problems = check(own, host_validator("gpu_host"), name)
        knobs, knob_problems = roce_host_knobs(name, raw.hostvars.get(name, {}))
        host_problems.extend(knob_problems)
        if not host_problems:
            host, host_problems = _gpu_host(name, own, knobs)
            if host:
                hosts[name] = host
        problems.extend(host_problems)
        if host_problems:
            broken.add(name)
    role_of_group = {host: group for group in SWITCH_ROLE_GROUPS for host in raw.groups.get(group, ())}
    buildable: dict[str, Mapping[str, Any]] = {}
    for name in switch_names:
        own = relevant_vars(raw.hostvars.get(name, {}), raw.role_variables)
        switch_problems = check(own, host_validator("switch"), name)
        if not switch_problems and fabric_settings is not None:
            buildable[name] = own
        problems.extend(switch_problems)
        if switch_problems:
            broken.add(name)
        group = role_of_group.get(name)
        if not switch_problems and group and own["gpunet_role"] != group:
            problems.append(
                Problem(
                    f"{name}.gpunet_role",
                    f"does not match its inventory group {group!r}",
                    own["gpunet_role"],
                    group,
                )
            )

    if fabric_settings is None:
        raise InventoryInvalidError(problems)
    # Built once every switch is known, so that each port's peer is made with its kind (a second
    # pass that replaced 1.3 million ports at 262,144 GPUs was a third of building the switches).
    peer_kind = _peer_kinds(set(buildable), set(hosts))
    for name, own in buildable.items():
        switches[name] = _switch(name, own, fabric_settings, peer_kind)
    fabric = _fabric(fabric_settings, switches, hosts)
    problems.extend(crosschecks.run_all(fabric, broken))
    if problems:
        raise InventoryInvalidError(problems)
    return fabric


def _device_name_problems(names: list[str]) -> list[Problem]:
    """The name rule for every host and switch, and names that differ only in case."""
    problems = []
    for name in dict.fromkeys(names):
        if (problem := HOST_NAME.problem(name)) is not None:
            problems.append(Problem(shown(name), problem, expected="a name such as gpu01 or leaf01.pod1"))
    for name, earlier in case_twins([name for name in dict.fromkeys(names) if not HOST_NAME.problem(name)]):
        problems.append(
            Problem(
                name,
                f"names the same host as {earlier}: host names ignore case (DNS, and file names on "
                "case-insensitive file systems)",
                expected="one spelling",
            )
        )
    return problems


def _with_name_rules(problems: list[Problem], fabric_value: Any) -> list[Problem]:
    """The schema's problems, with the name rule's own words for the fabric's and queues' names
    (the schema's pattern says only "badly formed")."""
    if not isinstance(fabric_value, Mapping):
        return problems
    named = [("gpunet_fabric.name", FABRIC_NAME, fabric_value.get("name"))]
    qos = fabric_value.get("qos")
    queues = qos.get("queues") if isinstance(qos, Mapping) else None
    if isinstance(queues, list):
        named += [
            (f"gpunet_fabric.qos.queues[{index}].name", QUEUE_NAME, queue.get("name"))
            for index, queue in enumerate(queues)
            if isinstance(queue, Mapping)
        ]
    own: list[Problem] = []
    for path, rule, value in named:
        if isinstance(value, str) and (problem := rule.problem(value)) is not None:
            own.append(Problem(path, problem, value))
    paths = {problem.path for problem in own}
    return [problem for problem in problems if problem.path not in paths] + own


def _fabric_value(raw: RawInventory, names: list[str], problems: list[Problem]) -> Any:
    reference_host = next((n for n in names if "gpunet_fabric" in raw.hostvars.get(n, {})), None)
    if reference_host is None:
        problems.append(
            Problem("gpunet_fabric", "is not set", expected="a gpunet_fabric mapping in group_vars/all")
        )
        return None
    reference = raw.hostvars[reference_host]["gpunet_fabric"]
    if reference is None:  # `gpunet_fabric:` with nothing under it, or `gpunet_fabric: null`
        problems.append(
            Problem(
                "gpunet_fabric",
                "is empty (null)",
                expected="a mapping with at least name, ntp and firewall, as in inventories/prod",
            )
        )
        return None
    for name in names:
        value = raw.hostvars.get(name, {}).get("gpunet_fabric")
        if value != reference:
            problems.append(
                Problem(
                    f"{name}.gpunet_fabric",
                    f"differs from the value host {reference_host} sees",
                    expected="gpunet_fabric set once, in group_vars/all",
                )
            )
    return reference


def roce_host_knobs(name: str, hostvars: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The VERIFIED_ROLE_KNOBS the inventory sets for `name`, in the types roce_host's argument spec
    converts them to (a comma-separated list, an Ansible boolean), or the problems of those it cannot."""
    knobs: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, kind, allowed in (
        ("roce_host_prio_tc", int, "[] or 8 traffic classes 0-7, one per priority"),
        ("roce_host_tc_tsa", str, f"[] or 8 of {', '.join(_TSA_NAMES)}, one per traffic class"),
        ("roce_host_tc_bw", int, "[] or 8 percentages 0-100, one per traffic class"),
    ):
        if key not in hostvars:
            continue
        value = hostvars[key]
        items = value.split(",") if isinstance(value, str) else value
        try:
            if not isinstance(items, list | tuple):
                raise ValueError
            listed = [kind(str(item).strip()) for item in items if str(item).strip()]
        except ValueError:
            listed = None
        if listed is None or not _valid_knob(key, listed):
            problems.append(Problem(f"{name}.{key}", "is not what roce_host takes", value, allowed))
        else:
            knobs[key] = listed
    tsa, bw = knobs.get("roce_host_tc_tsa"), knobs.get("roce_host_tc_bw")
    if (tsa == []) != (bw == []) and (tsa is not None or bw is not None):
        problems.append(
            Problem(
                f"{name}.roce_host_tc_tsa",
                "and roce_host_tc_bw go together: [] leaves ETS alone only with both []",
                {"roce_host_tc_tsa": tsa, "roce_host_tc_bw": bw},
                "both [] or both 8 values (left out: the fabric's queues)",
            )
        )
    if "roce_host_set_cable_length" in hostvars:
        value = hostvars["roce_host_set_cable_length"]
        flag = value if isinstance(value, bool) else _ANSIBLE_BOOLS.get(str(value).strip().lower())
        if flag is None:
            problems.append(
                Problem(f"{name}.roce_host_set_cable_length", "is not a boolean", value, "true or false")
            )
        else:
            knobs["roce_host_set_cable_length"] = flag
    if "roce_host_cable_length_m" in hostvars:
        value = hostvars["roce_host_cable_length_m"]
        try:
            if not isinstance(value, Mapping):
                raise ValueError
            lengths = {str(netdev): int(m) for netdev, m in value.items()}
            if any(metres < 1 for metres in lengths.values()):
                raise ValueError
            knobs["roce_host_cable_length_m"] = lengths
        except (TypeError, ValueError):
            problems.append(
                Problem(
                    f"{name}.roce_host_cable_length_m",
                    "is not what roce_host takes",
                    value,
                    "netdev: metres >= 1",
                )
            )
    if "roce_host_mtu" in hostvars:
        value = hostvars["roce_host_mtu"]
        try:
            # roce_qos takes an int (`roce_host_mtu | int` in the role); 0 leaves the MTU alone.
            if isinstance(value, bool) or int(str(value).strip()) < 0:
                raise ValueError
            knobs["roce_host_mtu"] = int(str(value).strip())
        except ValueError:
            problems.append(
                Problem(
                    f"{name}.roce_host_mtu",
                    "is not what roce_host takes",
                    value,
                    "an MTU in bytes (0: roce_host leaves the netdevs' MTU alone)",
                )
            )
    return knobs, problems


def _valid_knob(key: str, listed: list[Any]) -> bool:
    if not listed:
        return True  # [] turns the setting off
    if key == "roce_host_tc_tsa":
        return len(listed) == 8 and all(tsa in _TSA_NAMES for tsa in listed)
    top = 7 if key == "roce_host_prio_tc" else 100
    return len(listed) == 8 and all(0 <= item <= top for item in listed)


def _gpu_host(
    name: str, own: Mapping[str, Any], knobs: Mapping[str, Any] | None = None
) -> tuple[GpuHost | None, list[Problem]]:
    problems: list[Problem] = []
    nics = []
    for index, nic in enumerate(own["gpunet_nics"]):
        try:
            if "/" not in nic["ip"]:  # ip_interface would read a bare address as a /32 or /128
                raise ValueError("no prefix length")
            # What ip_interface returns, without first failing to read an IPv6 address as IPv4
            # (a colon is never in an IPv4 one): a tenth of building the hosts at 262,144 GPUs.
            address = (IPv6Interface if ":" in nic["ip"] else IPv4Interface)(nic["ip"])
        except ValueError:
            problems.append(
                Problem(
                    f"{name}.gpunet_nics[{index}].ip",
                    "is not an address with prefix length",
                    nic["ip"],
                    "e.g. 198.51.100.1/31 or 2001:db8::1/127",
                )
            )
            continue
        nics.append(
            Nic(
                name=nic["name"],
                netdev=nic["netdev"],
                speed_gbps=nic["speed_gbps"],
                rail=nic["rail"],
                switch=nic["switch"],
                switch_port=nic["switch_port"],
                ip=address,
                lanes=nic.get("lanes"),
            )
        )
    if problems:
        return None, problems
    hardware = own.get("gpunet_hardware", {})
    return (
        GpuHost(
            name=name,
            mgmt_address=str(own.get("ansible_host", name)),
            gpus=Gpus(count=own["gpunet_gpus"]["count"], model=own["gpunet_gpus"]["model"]),
            nics=tuple(nics),
            hardware=Hardware(
                gpus=hardware.get("gpus", True),
                rdma_nics=hardware.get("rdma_nics", True),
                reason=hardware.get("reason", ""),
                simulated_incast=hardware.get("simulated_incast", False),
            ),
            roce_host_knobs=dict(knobs or {}),
        ),
        [],
    )


def _peer_kinds(switch_names: set[str], host_names: set[str]) -> Callable[[str], str]:
    """A peer device's kind: "switch" or "host" when it is one of the fabric's (a device whose
    variables failed their schema is neither), else "unknown"."""

    def kind(device: str) -> str:
        return "switch" if device in switch_names else "host" if device in host_names else "unknown"

    return kind


def _switch(
    name: str, own: Mapping[str, Any], settings: Mapping[str, Any], peer_kind: Callable[[str], str]
) -> Switch:
    ports = []
    for port in own["gpunet_ports"]:
        peer = None
        if "peer" in port:
            device, _, peer_port = port["peer"].partition(":")
            # One string per device and port name, not one per cable end (2.6 million at 262,144 GPUs).
            peer = Peer(kind=peer_kind(device), device=sys.intern(device), port=sys.intern(peer_port))
        ports.append(
            SwitchPort(
                name=port["name"],
                speed_gbps=port["speed_gbps"],
                peer=peer,
                cable_length_m=port_cable_length_m(port, settings),
                mtu=port.get("mtu", settings["mtu"]),
                lossless=port.get("lossless", peer is not None),
                lanes=port.get("lanes"),
            )
        )
    return Switch(
        name=name,
        platform=own["gpunet_platform"],
        role=own["gpunet_role"],
        mgmt_address=str(own.get("ansible_host", name)),
        mgmt_port=int(own.get("ansible_port", 22)),
        ports=tuple(ports),
        mgmt_user=str(own.get("ansible_user", "")),
        model=own["gpunet_switch_model"],
        buffer=SwitchBuffer(**own.get("gpunet_switch_buffer", {})),
        os_version=str(own.get("gpunet_os_version", "")),
        asics=int(own.get("gpunet_switch_asics", 0)),
    )


def _fabric(settings: Mapping[str, Any], switches: dict[str, Switch], hosts: dict[str, GpuHost]) -> Fabric:
    qos = settings["qos"]
    return Fabric(
        name=settings["name"],
        transport=settings["transport"],
        mtu=settings["mtu"],
        host_mtu=settings["host_mtu"],
        qos=Qos(
            trust=qos["trust"],
            roce_dscp=qos["roce_dscp"],
            cnp_dscp=qos["cnp_dscp"],
            lossless_priority=qos["lossless_priority"],
            cnp_priority=qos["cnp_priority"],
            ecn=Ecn(**qos["ecn"]),
            pfc=Pfc(**qos["pfc"]),
            queues=tuple(
                Queue(
                    name=q["name"],
                    traffic_class=q["traffic_class"],
                    bandwidth_percent=q.get("bandwidth_percent"),
                    strict=q.get("strict", False),
                )
                for q in qos["queues"]
            ),
        ),
        ntp=Ntp(servers=tuple(settings["ntp"]["servers"]), max_offset_ms=settings["ntp"]["max_offset_ms"]),
        firewall=Firewall(
            fabric_cidrs=tuple(settings["firewall"]["fabric_cidrs"]),
            mgmt_cidrs=tuple(settings["firewall"]["mgmt_cidrs"]),
            nccl_port_range=tuple(settings["firewall"]["nccl_port_range"]),  # type: ignore[arg-type]
            nccl_socket_cidrs=tuple(
                settings["firewall"].get("nccl_socket_cidrs") or settings["firewall"]["mgmt_cidrs"]
            ),
        ),
        switches=switches,
        hosts=hosts,
    )
