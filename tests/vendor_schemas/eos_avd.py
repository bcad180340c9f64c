"""What Arista's own AVD (pyavd, eos_cli_config_gen) renders for gpunet's EOS QoS intent.

gpunet's structured design (gpunet.design.design_switch) is translated into AVD's structured config
(schema: pyavd eos_cli_config_gen, keys qos.map.dscp, priority_flow_control.watchdog, qos_profiles
with tx_queues/uc_tx_queues and priority_flow_control, ethernet_interfaces; aristanetworks/avd
python-avd/pyavd, docs https://avd.arista.com/stable/roles/eos_cli_config_gen/docs/tables/qos-profiles.html),
rendered with pyavd.get_device_config, and both texts are reduced to sets of statements.

The translation carries two EOS rules of its own, each a vendor fact:
- the egress queue keyword follows the ASIC family: `uc-tx-queue` on Strata, `tx-queue` on Sand,
  as the model table (gpunet.hardware `eos_queue_keyword`, sourced per row) says; AVD has both keys
  (uc_tx_queues, tx_queues).
- a queue that marks ECN also counts its marks (`random-detect ecn count`), so marking can be
  verified from counters (issue 11, section 2; AVD random_detect.ecn.count).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from gpunet.hardware import get_model

PROFILE = "GPUNET-ROCE"


def queue_keyword_for_model(model: str) -> str:
    """`uc-tx-queue` (Strata) or `tx-queue` (Sand), from the model table (gpunet.hardware)."""
    keyword = get_model(model).eos_queue_keyword
    if keyword not in ("tx-queue", "uc-tx-queue"):
        raise ValueError(f"no EOS queue keyword known for hardware model {model!r}")
    return keyword


def avd_structured_config(design: dict[str, Any], queue_keyword: str) -> dict[str, Any]:
    """AVD eos_cli_config_gen structured config for the same intent as gpunet's design."""
    by_class: dict[int, list[int]] = defaultdict(list)
    for entry in design["classification"]["dscp_to_tc"]:
        by_class[entry["traffic_class"]].append(entry["dscp"])
    queues = []
    for queue in design["queues"]:
        avd_queue: dict[str, Any] = {"id": queue["traffic_class"]}
        if queue["strict"]:
            avd_queue["priority"] = "priority strict"
        else:
            avd_queue["priority"] = "no priority"
            avd_queue["bandwidth_percent"] = queue["bandwidth_percent"]
        if queue["ecn"]:
            device = design["ecn"]["device"]
            threshold = {
                "units": device["unit"],
                "min": device["min"],
                "max": device["max"],
                "max_probability": design["ecn"]["probability"],
                "weight": 0,
            }
            avd_queue["random_detect"] = {"ecn": {"count": True, "threshold": threshold}}
        queues.append(avd_queue)
    pfc = design["pfc"]
    profile_pfc: dict[str, Any] = {
        "enabled": True,
        "priorities": [{"priority": pfc["priority"], "no_drop": True}],
    }
    config: dict[str, Any] = {
        "qos": {
            "map": {
                "dscp": [
                    f"{' '.join(map(str, d))} to traffic-class {tc}" for tc, d in sorted(by_class.items())
                ]
            }
        },
        "qos_profiles": [
            {
                "name": PROFILE,
                "trust": design["classification"]["trust"],
                "priority_flow_control": profile_pfc,
                queue_keyword.replace("-", "_") + "s": queues,
            }
        ],
        "ethernet_interfaces": [
            {"name": p["name"], "mtu": p["mtu"], "speed": p["speed"]}
            | ({"service_profile": PROFILE} if p["lossless"] else {})
            for p in design["ports"]
        ],
    }
    watchdog = pfc["watchdog"]
    if watchdog["enabled"]:
        profile_pfc["watchdog"] = {"enabled": True}
        config["priority_flow_control"] = {
            "watchdog": {
                "action": "drop",
                "timeout": str(watchdog["detect_seconds"]),
                "recovery_time": str(watchdog["restore_seconds"]),
                "polling_interval": str(watchdog["interval_seconds"]),
            }
        }
    return config


def render_with_avd(structured: dict[str, Any]) -> str:
    import pyavd

    validated = pyavd.validate_structured_config(structured)
    violations = [
        f"{'.'.join(map(str, v.path))}: {v.message}" for v in validated.validation_result.violations
    ]
    if violations:
        raise ValueError("AVD refuses the structured config: " + "; ".join(violations))
    return str(pyavd.get_device_config(validated.validated_data))


Statement = tuple[str, ...]
DSCP_MAP = re.compile(r"qos map dscp ((?:\d+ )+)to traffic-class (\d+)")


def statements(text: str) -> set[Statement]:
    """The config as EOS holds it: each line with the block lines above it, indentation, `!`
    separators and order dropped; `qos map dscp A B C to traffic-class N` split per code point
    (EOS takes any grouping of code points on one line)."""
    found: set[Statement] = set()
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.strip() == "!":
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        words = " ".join(line.split())
        parents = tuple(parent for _, parent in stack)
        dscp_map = DSCP_MAP.fullmatch(words)
        if dscp_map and not parents:
            for dscp in dscp_map.group(1).split():
                found.add((f"qos map dscp {dscp} to traffic-class {dscp_map.group(2)}",))
        else:
            found.add((*parents, words))
        stack.append((indent, words))
    return found


def differences(gpunet_text: str, avd_text: str) -> list[str]:
    ours, theirs = statements(gpunet_text), statements(avd_text)
    only_ours = [" > ".join(s) for s in sorted(ours - theirs)]
    only_avd = [" > ".join(s) for s in sorted(theirs - ours)]
    return [f"only in gpunet: {s}" for s in only_ours] + [f"only in AVD: {s}" for s in only_avd]
