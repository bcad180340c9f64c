"""The part of a switch's running config that gpunet owns (osdata/<os>.yml, `owned`).

Owned: the objects gpunet names (policy maps, profiles, schedulers, config_db entries it writes)
and the QoS/MTU statements on its ports. Its ports are the ones intended/ configures plus any
port the switch still binds to a gpunet object (a port removed from the inventory): gpunet
takes its own statements off such a port. Everything else is never read into a remediation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpunet.netdev.osdata import OsRules


@dataclass
class Block:
    """A top-level statement of an indented config with its sub-mode lines (raw, indented)."""

    line: str
    children: list[str] = field(default_factory=list)


def blocks(text: str) -> list[Block]:
    found: list[Block] = []
    for raw in text.splitlines():
        if not raw.strip() or raw.strip().startswith("!") or raw.strip() == "end":
            continue
        if raw[:1] != " " or not found:
            found.append(Block(raw.strip()))
        else:
            found[-1].children.append(raw.rstrip())
    return found


def _port_of(rules: OsRules, line: str) -> str | None:
    match = re.fullmatch(rules.owned["port"], line)
    return match["port"] if match else None


def _owned_object(rules: OsRules, line: str) -> re.Match[str] | None:
    return next((m for pattern in rules.owned.get("objects", []) if (m := re.fullmatch(pattern, line))), None)


def _port_statement(rules: OsRules, child: str) -> bool:
    text = child.strip().removeprefix("no ")
    return any(re.match(rf"{re.escape(s)}(\s|$)", text) for s in rules.owned["port_statements"])


def owned_indented(rules: OsRules, running: str, intended: str) -> tuple[list[Block], set[str]]:
    """Owned blocks of an NX-OS/EOS running config (port blocks cut to owned statements), and
    the owned ports."""
    intended_ports = {p for b in blocks(intended) if (p := _port_of(rules, b.line))}
    claims = rules.owned["claims"]
    owned: list[Block] = []
    ports = set(intended_ports)
    indent = rules.data["indent"]
    for block in blocks(running):
        if _owned_object(rules, block.line):
            owned.append(block)
            continue
        port = _port_of(rules, block.line)
        if port is None:
            continue
        kept: list[str] = []
        keeping = False
        for child in block.children:
            top = len(child) - len(child.lstrip(" ")) <= indent
            if top:
                keeping = _port_statement(rules, child)
            if keeping:
                kept.append(child)
        if port in intended_ports or any(claims in child for child in kept):
            ports.add(port)
            owned.append(Block(block.line, kept))
    return owned, ports


def owned_set_lines(rules: OsRules, running: str, intended: str) -> list[str]:
    """Owned lines of a flat `set`-form config (Junos `set`, Cumulus `nv set`)."""
    lines = [line.strip() for line in running.splitlines() if line.strip()]
    wanted = [line.strip() for line in intended.splitlines() if line.strip()]
    ports = {p for line in wanted if (p := _port_of(rules, line))}
    claims = re.compile(rules.owned["claims"])
    ports |= {p for line in lines if (p := _port_of(rules, line)) and claims.search(line)}
    return [
        line
        for line in lines
        if _owned_object(rules, line) or ((p := _port_of(rules, line)) is not None and p in ports)
    ]


def object_of(rules: OsRules, line: str) -> str | None:
    """The whole object a set-form line belongs to (`set class-of-service schedulers sch-roce`)."""
    match = _owned_object(rules, line)
    return match["object"] if match and "object" in match.groupdict() else None


def _indexes(key: str) -> set[int]:
    """The PGs or queues of a `<port>|<n>` or `<port>|<n>-<m>` key."""
    first, _, last = key.split("|", 1)[1].partition("-")
    if not first.isdigit() or not (last or first).isdigit():
        return set()
    return set(range(int(first), int(last or first) + 1))


def owned_document(rules: OsRules, running: dict[str, Any], intended: dict[str, Any]) -> dict[str, Any]:
    """Owned part of a SONiC config_db (osdata/sonic.yml `owned` says what and why): gpunet's
    named objects, the entries of its ports it wrote or that contradict intended/, and the fields
    intended/ writes in entries that are not gpunet's."""
    owned_cfg = rules.owned
    claims = re.compile(owned_cfg["claims"], re.IGNORECASE)

    def claimed(fields: dict[str, Any]) -> bool:
        return any(claims.search(str(value)) for value in fields.values())

    intended_ports = set(intended.get("PORT_QOS_MAP", {})) | set(intended.get("PORT", {}))
    ports = intended_ports | {
        port for port, fields in running.get("PORT_QOS_MAP", {}).items() if claimed(fields)
    }
    written: dict[tuple[str, str], set[int]] = {}
    for table in owned_cfg["indexed_port_tables"]:
        for key in intended.get(table, {}):
            written.setdefault((table, key.split("|")[0]), set()).update(_indexes(key))
    part: dict[str, Any] = {}
    for table, entries in running.items():
        wanted_table = intended.get(table, {})
        for key, fields in entries.items():
            port = key.split("|")[0]
            if table in owned_cfg["named"] and re.fullmatch(owned_cfg["named"][table], key):
                kept = dict(fields)
            elif table in owned_cfg["indexed_port_tables"] and port in ports:
                lossless = owned_cfg.get("lossless_entries", {}).get(table)
                if (
                    key not in wanted_table
                    and not claimed(fields)
                    and not (_indexes(key) & written.get((table, port), set()))
                    and not (lossless and all(fields.get(f) == v for f, v in lossless.items()))
                ):
                    continue
                kept = dict(fields)
            elif table in owned_cfg["port_field_tables"] and port in ports and key not in wanted_table:
                if port in intended_ports and owned_cfg["port_field_tables"][table] == "claimed":
                    kept = {f: v for f, v in fields.items() if claims.search(str(v))}
                else:
                    kept = dict(fields)
            elif table in owned_cfg["port_field_tables"] and port in ports:
                wanted = wanted_table[key]
                kept = {f: v for f, v in fields.items() if f in wanted or claims.search(str(v))}
            elif table in owned_cfg["field_tables"] and key in wanted_table:
                wanted = wanted_table[key]
                # CABLE_LENGTH names ports as fields: an owned port's field is gpunet's too.
                kept = {f: v for f, v in fields.items() if f in wanted or f in ports}
            else:
                continue
            if kept:
                part.setdefault(table, {})[key] = kept
    return part
