"""Small fabrics built straight from RawInventory dicts: one GPU host cabled to one leaf.

Fast (no Ansible inventory loading), so property tests can build many variants.
"""

from __future__ import annotations

from typing import Any

from gpunet.model.build import RawInventory, build_fabric
from gpunet.model.fabric import Fabric
from gpunet.platforms import get_platform

LEAF = "leaf01"
HOST = "gpu01"


def one_leaf_fabric(
    platform: str,
    ports: list[dict[str, Any]],
    *,
    qos: dict[str, Any] | None = None,
    buffer: dict[str, int] | None = None,
    model: str | None = None,
) -> Fabric:
    """`model`: the leaf's hardware model (default: the platform's example model).
    `ports`: dicts with name, speed_gbps and optionally cable_length_m, mtu, lossless, cabled
    (default True: a NIC of gpu01 is cabled to the port)."""
    fabric = {
        "name": "t",
        "ntp": {"servers": ["192.0.2.1"]},
        "firewall": {"fabric_cidrs": ["198.51.0.0/16"], "mgmt_cidrs": ["192.0.2.0/24"]},
        "qos": qos or {},
    }
    nics, switch_ports = [], []
    for port in ports:
        entry = {key: value for key, value in port.items() if key != "cabled"}
        if port.get("cabled", True):
            nic = f"mlx5_{len(nics)}"
            entry["peer"] = f"{HOST}:{nic}"
            nics.append(
                {
                    "name": nic,
                    "netdev": f"rail{len(nics)}",
                    "speed_gbps": port["speed_gbps"],
                    "rail": len(nics),
                    "switch": LEAF,
                    "switch_port": port["name"],
                    "ip": f"198.51.{len(nics)}.1/24",
                }
            )
        switch_ports.append(entry)
    leaf: dict[str, Any] = {
        "gpunet_fabric": fabric,
        "ansible_host": "192.0.2.11",
        "gpunet_platform": platform,
        "gpunet_switch_model": model or get_platform(platform).example_model,
        "gpunet_role": "leaf",
        "gpunet_ports": switch_ports,
    }
    if buffer:
        leaf["gpunet_switch_buffer"] = buffer
    host = {
        "gpunet_fabric": fabric,
        "ansible_host": "192.0.2.101",
        "gpunet_gpus": {"count": 8, "model": "H100"},
        "gpunet_nics": nics,
    }
    raw = RawInventory(
        groups={"gpu_nodes": [HOST], "switches": [LEAF], "leaf": [LEAF]},
        hostvars={HOST: host, LEAF: leaf},
    )
    return build_fabric(raw)
