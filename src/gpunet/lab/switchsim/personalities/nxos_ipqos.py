"""NX-OS's system-defined QoS objects: shown by `show running-config ipqos all`, never changed.

LAB EQUIPMENT. The objects and their sources are factory/cli.yml `nxos.system_defined`. The OS
holds them from boot and `show running-config` leaves them out; `... ipqos all` prints them with
the user's QoS config, a user policy under `system qos` in the default's place. Typing one of
them (to edit it) or `no` one of them is refused: Cisco's 10.6(x) QoS guide says the system
queuing class maps cannot be modified, and the system policies are copied (`qos copy`) to be
changed. The refusal's wording is the simulator's: Cisco's exact text was not found.
"""

from __future__ import annotations

import re

from gpunet.lab.switchsim.configtree import ConfigTree
from gpunet.lab.switchsim.factory import cli_factory_data
from gpunet.lab.switchsim.storage import StorageRules

# The top-level statements of a running config that `show running-config ipqos` prints.
_QOS_TOP = re.compile(r"(class-map|policy-map) |system qos$")
_OBJECT = re.compile(r"(?:no )?(class-map|policy-map) type (\S+) (?:match-\S+ )?(\S+)")
REFUSED = "% System-defined {kind} {name} cannot be modified or deleted; copy it with `qos copy`"


def system_defined() -> list[str]:
    return list(cli_factory_data()["nxos"]["system_defined"])


def _system_objects() -> dict[tuple[str, str, str], str]:
    """(class-map|policy-map, type, name) of every system-defined object -> its header line."""
    found = {}
    for line in system_defined():
        if not line.startswith(" ") and (match := _OBJECT.fullmatch(line)):
            found[(match[1], match[2], match[3])] = line
    return found


def _ipqos_blocks(config: list[str]) -> list[str]:
    """The QoS part of the running config: class and policy maps, `system qos`, and each
    interface's service-policy lines (an interface without one is left out)."""
    shown: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        if _QOS_TOP.match(block[0]):
            shown.extend(block)
        elif block[0].startswith("interface "):
            policies = [line for line in block[1:] if line.strip().startswith("service-policy ")]
            if policies:
                shown.extend([block[0], *policies])

    for line in config:
        if not line.startswith(" "):
            flush()
            block = []
        block.append(line)
    flush()
    return shown


def ipqos_all(config: list[str], rules: StorageRules | None) -> list[str]:
    """`show running-config ipqos all`: the system objects, then the user's QoS config merged in
    (a service-policy under `system qos` replaces the default's: one per type and direction)."""
    tree = ConfigTree.from_lines(system_defined(), 2, rules)
    path: list[str] = []
    for raw in _ipqos_blocks(config):
        depth = (len(raw) - len(raw.lstrip(" "))) // 2
        del path[depth:]
        tree.apply(path, raw.strip())  # as if typed: a one-value statement replaces the default's
        path.append(raw.strip())
    return tree.to_lines()


def refusal(command: str) -> str | None:
    """The refusal NX-OS gives a line that would edit or delete a system-defined object; None for
    any other line. Only `class-map`/`policy-map` lines name one (a `class type ...` inside a
    user policy references a system class, which is allowed)."""
    if not (match := _OBJECT.fullmatch(command)):
        return None
    if (match[1], match[2], match[3]) not in _system_objects():
        return None
    return REFUSED.format(kind=f"{match[1]} type {match[2]}", name=match[3])
