"""host_link_devices: each lab NIC's veth end in this namespace, found by the NIC's `iflink`
(its peer's ifindex) among /sys/class/net, and left out where no device here has that index."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

import pytest

from gpunet.lab import nodes
from gpunet.lab.plan import FabricInterface, LabNetwork, LabNode, LabPlan


def node(host: str, *netdevs: str) -> LabNode:
    interfaces = tuple(
        FabricInterface(f"gpunet-lab-rail{i}", netdev, IPv4Address(f"10.0.{i}.1"))
        for i, netdev in enumerate(netdevs)
    )
    return LabNode(host, f"gpunet-lab-{host}", interfaces)


PLAN = LabPlan(
    fabric="lab",
    mgmt=LabNetwork("gpunet-lab-mgmt", IPv4Network("10.9.0.0/24")),
    rails=(),
    ntp_container="gpunet-lab-ntp",
    ntp_address=IPv4Address("10.9.0.2"),
    nodes=(node("gpu01", "rail0", "rail1"), node("gpu02", "rail0", "rail1")),
    switches=(),
)


class IflinkPodman:
    def __init__(self, iflinks: dict[tuple[str, str], str]) -> None:
        self.iflinks = iflinks

    def run(self, *args: str, **_: object) -> str:
        assert args[0] == "exec" and args[2] == "cat", args
        netdev = args[3].split("/")[4]
        return self.iflinks[(args[1], netdev)] + "\n"


@pytest.mark.parametrize(
    ("devices", "expected"),
    [
        (
            {"lo": "1", "eth0": "2", "veth11": "11", "veth12": "12", "veth21": "21", "veth22": "22"},
            {
                "gpu01": {"rail0": "veth11", "rail1": "veth12"},
                "gpu02": {"rail0": "veth21", "rail1": "veth22"},
            },
        ),
        # rootless podman: the peers live in its own namespace, so only what is here is kept
        ({"lo": "1", "veth12": "12"}, {"gpu01": {"rail1": "veth12"}}),
        ({"lo": "1", "eth0": "2"}, {}),
    ],
    ids=["rootful", "partial", "rootless"],
)
def test_each_nic_maps_to_its_peer_device(
    tmp_path: Path, devices: dict[str, str], expected: dict[str, dict[str, str]]
) -> None:
    for name, index in devices.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "ifindex").write_text(index + "\n")
    (tmp_path / "bonding_masters").write_text("\n")  # a sysfs file, not a device: skipped
    podman = IflinkPodman(
        {
            ("gpunet-lab-gpu01", "rail0"): "11",
            ("gpunet-lab-gpu01", "rail1"): "12",
            ("gpunet-lab-gpu02", "rail0"): "21",
            ("gpunet-lab-gpu02", "rail1"): "22",
        }
    )
    assert nodes.host_link_devices(podman, PLAN, tmp_path) == expected  # type: ignore[arg-type]
