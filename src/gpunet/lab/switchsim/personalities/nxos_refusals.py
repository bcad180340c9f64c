"""NX-OS QoS lines refused for what they combine with in the running config (LAB EQUIPMENT).

Cisco Nexus 9000 NX-OS Quality of Service Configuration Guide 10.5(x), "Configuring Priority
Flow Control", Guidelines and Limitations: "Input queuing policy maps cannot have pause buffer
and priority/bandwidth together."
https://cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/105x/configuration/qos/cisco-nexus-9000-series-nx-os-quality-of-service-configuration-guide-105x/m-configuring-priority-flow-control.html
A queuing policy is an input one once `service-policy type queuing input <name>` attaches it (under
`system qos` or a port). NX-OS applies line by line, so the line that completes the combination
(the attach, or a `pause buffer-size` / `priority` / `bandwidth` typed into an attached policy) is
the one refused, and the config stays as it was. The wording is the simulator's: Cisco's text was
not found.
"""

from __future__ import annotations

import re

_ATTACH = re.compile(r"service-policy type queuing input (\S+)")
_POLICY = re.compile(r"policy-map type queuing (\S+)")
REFUSED = "% Input queuing policy {name} cannot have pause buffer and priority/bandwidth together"


def _queuing_policies(config: list[str]) -> dict[str, list[str]]:
    """Per queuing policy map, the statements under its classes (stripped)."""
    policies: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in config:
        if not line.startswith(" "):
            match = _POLICY.fullmatch(line)
            current = policies.setdefault(match[1], []) if match else None
        elif current is not None and line.startswith("    "):
            current.append(line.strip())
    return policies


def input_queuing_refusal(config: list[str]) -> str | None:
    """The refusal for a config where an input-attached queuing policy holds a pause buffer and a
    priority or bandwidth statement; None when there is none."""
    attached = {m[1] for line in config if (m := _ATTACH.fullmatch(line.strip()))}
    for name, statements in _queuing_policies(config).items():
        if name not in attached:
            continue
        pause = any(s.startswith("pause buffer-size ") for s in statements)
        scheduling = any(s.startswith(("priority ", "bandwidth ")) for s in statements)
        if pause and scheduling:
            return REFUSED.format(name=name)
    return None
