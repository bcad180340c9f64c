"""What the lab must build for an inventory: networks, node containers, NTP server, switches.

Pure data from the Fabric, so it is tested without podman. The committed lab inventory is the
single source: the management network is firewall.mgmt_cidrs[0], each rail network is the subnet
of that rail's NIC addresses, and the lab NTP server takes ntp.servers[0].
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, ip_address, ip_network

from gpunet.lab.errors import LabError
from gpunet.lab.paths import NAME_PREFIX
from gpunet.model.fabric import Fabric, Switch


@dataclass(frozen=True)
class LabNetwork:
    name: str  # podman network name
    subnet: IPv4Network
    mtu: int | None = None
    # Rails are closed fabrics as in production: no default route and no NAT through them.
    internal: bool = False

    @property
    def gateway(self) -> IPv4Address:
        """Podman gives the first address of a subnet to the host side of the bridge."""
        return next(self.subnet.hosts())


@dataclass(frozen=True)
class FabricInterface:
    """One NIC of a node: the container's interface on a rail network, with the inventory's address."""

    network: str
    netdev: str
    address: IPv4Address


@dataclass(frozen=True)
class LabNode:
    host: str
    container: str
    interfaces: tuple[FabricInterface, ...]


@dataclass(frozen=True)
class LabSwitch:
    name: str
    platform: str
    ports: tuple[str, ...]  # front-panel ports as the inventory names them
    model: str = ""  # gpunet_switch_model: the simulator boots that model's factory config
    os_version: str = ""  # gpunet_os_version: the simulator refuses statements newer than it
    # (port, device, far port) per cabled port, as LLDP shows the far end: a switch port by its
    # name, a host NIC by its netdev (what lldpd on the host advertises as its port id).
    neighbours: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class LabPlan:
    fabric: str
    mgmt: LabNetwork
    rails: tuple[LabNetwork, ...]
    ntp_container: str
    ntp_address: IPv4Address
    nodes: tuple[LabNode, ...]
    switches: tuple[LabSwitch, ...]

    @property
    def networks(self) -> tuple[LabNetwork, ...]:
        return (self.mgmt, *self.rails)

    @property
    def containers(self) -> tuple[str, ...]:
        return (self.ntp_container, *(node.container for node in self.nodes))


def container_name(host: str) -> str:
    return f"{NAME_PREFIX}-{host}"


def plan_lab(fabric: Fabric) -> LabPlan:
    """The lab for `fabric`; raises LabError naming the inventory value the lab cannot build.

    Names are copied as plain str: Ansible hands out str subclasses that JSON/YAML dumpers refuse.
    """
    mgmt = LabNetwork(f"{NAME_PREFIX}-mgmt", _ipv4_network(fabric.firewall.mgmt_cidrs, "mgmt_cidrs"))
    ntp_address = _ntp_address(fabric, mgmt)
    rail_subnets: dict[int, IPv4Network] = {}
    rail_of_subnet: dict[IPv4Network, int] = {}
    nodes = []
    for host in fabric.hosts.values():
        interfaces = []
        for index, nic in enumerate(host.nics):
            path = f"{host.name}.gpunet_nics[{index}].ip"
            subnet = nic.ip.network
            if not isinstance(subnet, IPv4Network):
                raise LabError(f"{path}: the lab builds IPv4 rail networks only (got {nic.ip})")
            known = rail_subnets.setdefault(nic.rail, subnet)
            if known != subnet:
                raise LabError(
                    f"{path}: rail {nic.rail} already uses {known}; the lab needs one subnet per rail"
                )
            if rail_of_subnet.setdefault(subnet, nic.rail) != nic.rail:
                raise LabError(f"{path}: {subnet} is already rail {rail_of_subnet[subnet]}'s network")
            if nic.ip.ip == next(subnet.hosts()):
                raise LabError(f"{path}: {nic.ip.ip} is the lab bridge's own address; use another")
            interfaces.append(
                FabricInterface(f"{NAME_PREFIX}-rail{nic.rail}", str(nic.netdev), IPv4Address(nic.ip.ip))
            )
        nodes.append(LabNode(str(host.name), container_name(host.name), tuple(interfaces)))
    rails = tuple(
        LabNetwork(f"{NAME_PREFIX}-rail{rail}", subnet, fabric.host_mtu, internal=True)
        for rail, subnet in sorted(rail_subnets.items())
    )
    for rail in rails:
        if rail.subnet.overlaps(mgmt.subnet):
            raise LabError(
                f"gpunet_fabric.firewall.mgmt_cidrs[0]: {mgmt.subnet} overlaps rail network {rail.subnet}"
            )
    switches = tuple(
        LabSwitch(
            str(s.name),
            str(s.platform),
            tuple(str(p.name) for p in s.ports),
            str(s.model),
            str(s.os_version),
            _neighbours(s, fabric),
        )
        for s in fabric.switches.values()
    )
    return LabPlan(
        fabric=str(fabric.name),
        mgmt=mgmt,
        rails=rails,
        ntp_container=container_name("ntp"),
        ntp_address=ntp_address,
        nodes=tuple(nodes),
        switches=switches,
    )


def _ipv4_network(cidrs: tuple[str, ...], key: str) -> IPv4Network:
    network = ip_network(cidrs[0], strict=False)
    if not isinstance(network, IPv4Network):
        raise LabError(
            f"gpunet_fabric.firewall.{key}[0]: the lab needs an IPv4 network first (got {cidrs[0]})"
        )
    return network


def _ntp_address(fabric: Fabric, mgmt: LabNetwork) -> IPv4Address:
    path = "gpunet_fabric.ntp.servers[0]"
    try:
        address = ip_address(fabric.ntp.servers[0])
    except ValueError:
        raise LabError(
            f"{path}: the lab runs its NTP server at this address, so it must be an IPv4 address "
            f"in {mgmt.subnet} (got {fabric.ntp.servers[0]!r})"
        ) from None
    if not isinstance(address, IPv4Address) or address not in mgmt.subnet or address == mgmt.gateway:
        raise LabError(
            f"{path}: {address} must be an address in the management network {mgmt.subnet} "
            f"other than the bridge's {mgmt.gateway}"
        )
    return address


def _neighbours(switch: Switch, fabric: Fabric) -> tuple[tuple[str, str, str], ...]:
    """The far end of each cabled port of `switch` as LLDP names it (LabSwitch.neighbours)."""
    netdevs = {(host.name, nic.name): nic.netdev for host in fabric.hosts.values() for nic in host.nics}
    found = []
    for port in switch.ports:
        if port.peer is None:
            continue
        far = netdevs.get((port.peer.device, port.peer.port), port.peer.port)
        found.append((str(port.name), str(port.peer.device), str(far)))
    return tuple(found)
