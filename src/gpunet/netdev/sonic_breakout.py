"""SONiC: a cage whose BREAKOUT_CFG mode intended/ changes is split by dynamic port breakout, never
through `config apply-patch`.

Why: GCU only records BREAKOUT_CFG (no validator or sorter rule of sonic-utilities
generic_config_updater knows it), so a patch leaves the cage unsplit. `config interface breakout
<cage> '<mode>'` (sonic-utilities 691b1bb config/main.py `breakout`, config/config_mgmt.py
ConfigMgmtDPB) deletes the cage's ports and, with -f, everything that refers to them (BUFFER_PG,
BUFFER_QUEUE, QUEUE, PORT_QOS_MAP, the buffer profile lists, CABLE_LENGTH, PFC_WD: the YANG
leafrefs to PORT), adds the new mode's ports from platform.json with alias, lanes, speed, index,
subport and fec only (portconfig.py BreakoutCfg), and writes BREAKOUT_CFG itself. -y answers its
first prompt; its second ("Do you wish to Continue?", asked whenever config_db holds a table
without a YANG model) reads standard input, so the push gives it /dev/null: the command then
fails with nothing changed instead of waiting for an answer.

So the push breaks each such cage out after the checkpoint, has `config qos reload --ports` give
the new ports the SKU's own buffer and QoS entries (_qos_update_ports renders the SKU's templates
for those ports, as at first boot), carries the old cage port's admin_status (whose YANG default is
"down"), description, mtu and dhcp_rate_limit onto its child ports, and plans the patch
again on what the switch then holds: it has no BREAKOUT_CFG change left. Undo breaks each cage
back into the mode it had, gives those ports their QoS again and restarts the watchdog they had
(through `pfcwd`: GCU may not write PFC_WD) before `config rollback` puts the rest of the
checkpoint back.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from gpunet.netdev import sonic_pfcwd

TABLE = "BREAKOUT_CFG"
# What BreakoutCfg.get_config writes on a child port.
BREAKOUT_FIELDS = ("alias", "lanes", "speed", "index", "subport", "fec")
# The old port's fields carried onto its child ports (sonic-port.yang at buildimage 086b03bd):
# they hold for any port of the cage. Not the fields that depend on the old port's lanes or speed
# (autoneg, adv_speeds, interface_type, link_training): those start from their defaults.
CARRIED_FIELDS = ("admin_status", "description", "mtu", "dhcp_rate_limit")
# A breakout waits up to this long for the old ports to leave ASIC_DB before it adds the new ones
# (config_mgmt.py breakOutPort: MAX_WAIT = 60, _verifyAsicDB polls once a second): its reply may
# come that much later than any other command's, so its read waits that much longer.
ASIC_DB_WAIT_S = 60.0


def command(cage: str, mode: str) -> str:
    return f"sudo config interface breakout {cage} {shlex.quote(mode)} -y -f < /dev/null"


@dataclass(frozen=True)
class CageBreakout:
    cage: str
    running: str  # the mode the switch has ("" where BREAKOUT_CFG lacks the cage)
    intended: str


@dataclass
class BreakoutPlan:
    cages: list[CageBreakout] = field(default_factory=list)
    # the intended document: the patch is planned again once the cages are split
    intended: dict[str, Any] = field(default_factory=dict)
    # PFC_WD entries of the ports about to be deleted, for the undo (the breakout deletes them)
    watchdog: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def apply(self) -> list[str]:
        return [command(cage.cage, cage.intended) for cage in self.cages]


def plan(running: dict[str, Any], intended: dict[str, Any]) -> BreakoutPlan:
    """The cages whose intended mode the switch does not run."""
    modes = running.get(TABLE, {})
    cages = [
        CageBreakout(cage, modes.get(cage, {}).get("brkout_mode", ""), fields["brkout_mode"])
        for cage, fields in intended.get(TABLE, {}).items()
        if "brkout_mode" in fields and modes.get(cage, {}).get("brkout_mode") != fields["brkout_mode"]
    ]
    watchdog = {
        port: fields
        for port, fields in running.get("PFC_WD", {}).items()
        if any(_on_cage(running, port, cage.cage) for cage in cages)
    }
    return BreakoutPlan(cages, intended if cages else {}, watchdog)


# What the push gives a split cage's ports again: the SKU's QoS (`config qos reload --ports`),
# intended/'s own entries, the watchdog (intended/'s, or the old one on undo) and the PORT fields.
RESTORED = {
    "PORT",
    TABLE,
    "PORT_QOS_MAP",
    "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST",
    "QUEUE",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "CABLE_LENGTH",
    "PFC_WD",
}


def foreign_references(running: dict[str, Any], plan: BreakoutPlan) -> list[str]:
    """Entries outside RESTORED that name a port of a cage to split (a key part, or an item of a
    comma-separated field): `-f` would delete them for good (an IP address, a VLAN or LAG
    membership, an ACL binding), so the push refuses such a breakout before any change."""
    ports = {
        port for cage in plan.cages for port in running.get("PORT", {}) if _on_cage(running, port, cage.cage)
    }
    found = []
    for table, entries in running.items():
        if table in RESTORED or not isinstance(entries, dict):
            continue
        for key, fields in entries.items():
            items = set(key.split("|"))
            if isinstance(fields, dict):
                items |= {item.strip() for value in fields.values() for item in str(value).split(",")}
            if items & ports:
                found.append(f"{table}|{key}")
    return sorted(found)


def _lanes(config: dict[str, Any], port: str) -> set[str]:
    return {lane.strip() for lane in str(config.get("PORT", {}).get(port, {}).get("lanes", "")).split(",")}


def _on_cage(config: dict[str, Any], port: str, cage: str) -> bool:
    """A port on `cage`'s lanes (the cage's port holds all of them in a 1x mode, a child some)."""
    return port == cage or bool(_lanes(config, port) & _lanes(config, cage) - {""})


def new_ports(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Ports the breakout made: absent before, or on other lanes than before."""
    ports = after.get("PORT", {})
    return sorted((p for p in ports if _lanes(before, p) != _lanes(after, p)), key=_number)


def _number(port: str) -> tuple[int, str]:
    digits = "".join(char for char in port if char.isdigit())
    return (int(digits) if digits else -1, port)


def qos_reload(ports: list[str]) -> str:
    return f"sudo config qos reload --ports {','.join(ports)}"


def carried(before: dict[str, Any], after: dict[str, Any], ports: list[str]) -> dict[str, dict[str, Any]]:
    """Per new port, the CARRIED_FIELDS of the old port on its lanes that the new port lacks."""
    result: dict[str, dict[str, Any]] = {}
    old = before.get("PORT", {})
    for port in ports:
        lanes = _lanes(after, port) - {""}
        parent = next((name for name in old if lanes & _lanes(before, name)), None)
        if parent is None:
            continue
        fields = {
            name: value
            for name, value in old[parent].items()
            if name in CARRIED_FIELDS and name not in after["PORT"][port]
        }
        if fields:
            result[port] = fields
    return result


def carry_operations(fields: dict[str, dict[str, Any]], intended: dict[str, Any]) -> list[dict[str, Any]]:
    """JSON Patch adds of the carried fields intended/ does not write itself. Not put into intended/:
    a port there would be gpunet's, and its factory QoS entries with it."""
    wanted = intended.get("PORT", {})
    return [
        {"op": "add", "path": f"/PORT/{port}/{name}", "value": value}
        for port, values in fields.items()
        for name, value in values.items()
        if name not in wanted.get(port, {})
    ]


def reverse(plan: BreakoutPlan, running: dict[str, Any]) -> list[str]:
    """Each cage the switch now runs in another mode than before the push, broken back."""
    modes = running.get(TABLE, {})
    return [
        command(cage.cage, cage.running)
        for cage in plan.cages
        if cage.running and modes.get(cage.cage, {}).get("brkout_mode") != cage.running
    ]


def watchdog_restore(plan: BreakoutPlan) -> list[str]:
    """`pfcwd start` of the watchdog the breakout deleted with the cage's old ports (once they
    exist again with their PORT_QOS_MAP)."""
    return sonic_pfcwd.start_commands(plan.watchdog)
