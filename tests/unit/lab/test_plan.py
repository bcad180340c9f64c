"""The lab plan derived from the committed lab inventory, and the inventory values it refuses."""

from __future__ import annotations

import dataclasses
import shutil
from ipaddress import IPv4Address, IPv4Network, ip_interface

import pytest

from gpunet.lab.errors import LabError
from gpunet.lab.plan import plan_lab
from gpunet.model.check import load_fabric
from gpunet.model.fabric import Fabric, Firewall, Ntp
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def lab_fabric(tmp_path_factory: pytest.TempPathFactory) -> Fabric:
    """The committed lab inventory, without the values a running lab generates."""
    copy = tmp_path_factory.mktemp("lab") / "lab"
    shutil.copytree(REPO_ROOT / "inventories" / "lab", copy, ignore=shutil.ignore_patterns("generated"))
    return load_fabric(copy)


def test_lab_inventory_meets_the_issue(lab_fabric: Fabric) -> None:
    plan = plan_lab(lab_fabric)
    assert len(plan.nodes) >= 4
    assert len(lab_fabric.switches_in_role("leaf")) >= 2
    assert len(lab_fabric.switches_in_role("spine")) >= 1
    assert len({s.platform for s in plan.switches}) >= 3
    for host in lab_fabric.hosts.values():
        assert host.hardware.gpus is False and host.hardware.rdma_nics is False
        assert host.hardware.reason == "lab container: no GPU or RDMA NIC"


def test_plan_networks_come_from_the_inventory(lab_fabric: Fabric) -> None:
    plan = plan_lab(lab_fabric)
    assert plan.mgmt.subnet == IPv4Network(lab_fabric.firewall.mgmt_cidrs[0])
    assert plan.ntp_address == IPv4Address(lab_fabric.ntp.servers[0])
    assert {str(rail.subnet) for rail in plan.rails} == set(lab_fabric.firewall.fabric_cidrs)
    assert {rail.mtu for rail in plan.rails} == {lab_fabric.host_mtu}
    assert {rail.internal for rail in plan.rails} == {True}  # no default route through a rail
    assert plan.mgmt.internal is False
    assert all(
        name.startswith("gpunet-lab-") for name in (*plan.containers, *(n.name for n in plan.networks))
    )


def test_every_nic_becomes_a_container_interface(lab_fabric: Fabric) -> None:
    plan = plan_lab(lab_fabric)
    for node in plan.nodes:
        host = lab_fabric.hosts[node.host]
        expected = {(f"gpunet-lab-rail{nic.rail}", nic.netdev, nic.ip.ip) for nic in host.nics}
        assert {(i.network, i.netdev, i.address) for i in node.interfaces} == expected


def _with_ntp(fabric: Fabric, server: str) -> Fabric:
    return dataclasses.replace(fabric, ntp=Ntp(servers=(server,), max_offset_ms=50))


def _with_mgmt(fabric: Fabric, cidr: str) -> Fabric:
    firewall = Firewall(fabric.firewall.fabric_cidrs, (cidr,), fabric.firewall.nccl_port_range)
    return dataclasses.replace(fabric, firewall=firewall)


def _with_nic_ip(fabric: Fabric, host: str, index: int, ip: str) -> Fabric:
    old = fabric.hosts[host]
    nics = list(old.nics)
    nics[index] = dataclasses.replace(nics[index], ip=ip_interface(ip))
    hosts = {**fabric.hosts, host: dataclasses.replace(old, nics=tuple(nics))}
    return dataclasses.replace(fabric, hosts=hosts)


BROKEN = [
    ("ntp by name", lambda f: _with_ntp(f, "ntp.example.net"), "ntp.servers[0]: the lab runs its NTP server"),
    ("ntp outside mgmt", lambda f: _with_ntp(f, "10.9.9.9"), "must be an address in the management network"),
    ("ntp on the bridge", lambda f: _with_ntp(f, "10.247.100.1"), "other than the bridge's 10.247.100.1"),
    ("ipv6 mgmt", lambda f: _with_mgmt(f, "2001:db8::/64"), "mgmt_cidrs[0]: the lab needs an IPv4 network"),
    ("mgmt over a rail", lambda f: _with_mgmt(f, "10.247.0.0/16"), "overlaps rail network"),
    ("nic on the bridge", lambda f: _with_nic_ip(f, "gpu02", 0, "10.247.0.1/24"), "gpu02.gpunet_nics[0].ip"),
    ("rail split", lambda f: _with_nic_ip(f, "gpu03", 1, "10.247.9.13/24"), "rail 1 already uses"),
    ("two rails one subnet", lambda f: _with_nic_ip(f, "gpu01", 1, "10.247.0.99/24"), "is already rail 0"),
]


@pytest.mark.parametrize(("case", "breaks", "message"), BROKEN, ids=[case for case, _, _ in BROKEN])
def test_plan_refuses_what_the_lab_cannot_build(lab_fabric: Fabric, case: str, breaks, message: str) -> None:
    with pytest.raises(LabError, match=None) as raised:
        plan_lab(breaks(lab_fabric))
    assert message in str(raised.value)


def test_simulators_get_the_inventory_ports(lab_fabric: Fabric) -> None:
    plan = plan_lab(lab_fabric)
    assert {s.name: s.ports for s in plan.switches} == {
        name: tuple(p.name for p in switch.ports) for name, switch in lab_fabric.switches.items()
    }
    assert dict(next(iter(plan.switches)).__dict__)["ports"]  # a switch without ports would serve defaults


def test_plan_names_are_plain_strings(lab_fabric: Fabric) -> None:
    """Ansible's str subclasses make yaml.safe_dump fail when the generated inventory is written."""
    plan = plan_lab(lab_fabric)
    names = [
        plan.fabric,
        *(n.host for n in plan.nodes),
        *(i.netdev for n in plan.nodes for i in n.interfaces),
    ]
    names += [s.name for s in plan.switches] + [p for s in plan.switches for p in s.ports]
    assert {type(name) for name in names} == {str}
