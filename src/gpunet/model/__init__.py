"""The inventory model: load an Ansible inventory, validate it, and build a typed Fabric."""

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
    SwitchPort,
)

__all__ = [
    "Ecn",
    "Fabric",
    "Firewall",
    "GpuHost",
    "Gpus",
    "Hardware",
    "InventoryInvalidError",
    "Nic",
    "Ntp",
    "Peer",
    "Pfc",
    "Problem",
    "Qos",
    "Queue",
    "Switch",
    "SwitchPort",
]
