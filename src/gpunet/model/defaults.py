"""The usual lossless RoCEv2 values (see shared/reference/roce.md); an operator writes only what differs."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

FABRIC_DEFAULTS: dict[str, Any] = {
    "transport": "roce",
    "mtu": 9216,
    "host_mtu": 9000,
    "qos": {
        "trust": "dscp",
        "roce_dscp": 26,
        "cnp_dscp": 48,
        "lossless_priority": 3,
        "cnp_priority": 6,
        # Cumulus and Onyx RoCE defaults: mark from ~150 KB, always by ~1.5 MB.
        "ecn": {"min_threshold_kb": 150, "max_threshold_kb": 1500, "max_mark_probability": 100},
        # SONiC's AZURE defaults: detect and restore after 200 ms; 100 m is the Cumulus default cable.
        "pfc": {
            "watchdog": True,
            "watchdog_detect_ms": 200,
            "watchdog_restore_ms": 200,
            "cable_length_m": 100,
        },
        "queues": [
            {"name": "default", "traffic_class": 0, "bandwidth_percent": 50},
            {"name": "roce", "traffic_class": 3, "bandwidth_percent": 50},
            {"name": "cnp", "traffic_class": 6, "strict": True},
        ],
    },
    "ntp": {"max_offset_ms": 10},
    "firewall": {"nccl_port_range": [50000, 51000]},
}


def with_defaults(operator_value: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge the operator's gpunet_fabric over the defaults. Lists replace, never merge."""
    return _merge(copy.deepcopy(FABRIC_DEFAULTS), operator_value)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def port_cable_length_m(port: Mapping[str, Any], settings: Mapping[str, Any]) -> int:
    """A switch port's cable length: its own `cable_length_m`, else the fabric's qos.pfc default.

    The one rule for both ends of the cable: switch headroom (design/) and the host NIC's
    `mlnx_qos --cable_len` (gpunet.hosts.settings.nic_cable_lengths) read it from here.
    """
    return int(port.get("cable_length_m", settings["qos"]["pfc"]["cable_length_m"]))
