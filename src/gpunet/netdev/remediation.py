"""What to send so a switch's owned config equals intended/: additions and removals, each in
the OS's own form and in an order the OS accepts.

- NX-OS, EOS (indented CLI): hier_config computes the remediation (it knows that `no ...`
  negates and which statements replace their value); gpunet cuts the running config to the owned
  scope first, turns hier_config's `no interface X` for a port gpunet no longer configures into
  `no` of gpunet's own statements on it, and moves whole-object deletions (`no policy-map ...`,
  `no qos profile ...`) after the lines that unbind them.
- Junos `set`, Cumulus `nv set` (flat): per line, `delete`/`nv unset` of what intended/ lacks
  (a whole object at once when intended/ has none of it), then the `set`s. Both stage into a
  candidate that commits atomically, so order within it does not matter to the OS.
- SONiC: one RFC 6902 patch, removals included (stock `BUFFER_PG|<port>|3-4`, stock WRED on a
  queue, a `pfc_to_pg_map` intended/ no longer writes), applied atomically by `config apply-patch`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from hier_config import Platform, WorkflowRemediation, get_hconfig, get_hconfig_driver
from hier_config.models import IdempotentCommandsRule, MatchRule
from hier_config.platforms.driver_base import HConfigDriverBase

from gpunet.netdev import sonic_breakout, sonic_pfcwd
from gpunet.netdev.linediff import config_paths
from gpunet.netdev.osdata import OsRules, os_rules
from gpunet.netdev.scope import blocks, object_of, owned_document, owned_indented, owned_set_lines
from gpunet.netdev.sonic_breakout import BreakoutPlan
from gpunet.netdev.sonic_pfcwd import PfcwdPlan

HIER_PLATFORM = {"nxos": Platform.CISCO_NXOS, "eos": Platform.ARISTA_EOS}
LITERAL = re.compile(r"[A-Za-z0-9 _-]+")
MAX_DEPTH = 4  # deepest statement gpunet renders: policy-map > class > statement (3)


@cache
def hier_driver(platform: str) -> HConfigDriverBase:
    """hier_config's driver, told which statements replace their value (osdata `replace`), so a
    new value is sent as is, without first negating the old one (no moment without it on NX-OS,
    which applies line by line). Only literal keys: a rule cannot say "same captured value"."""
    rules = os_rules(platform)
    driver = get_hconfig_driver(HIER_PLATFORM[platform])
    for key in rules.data.get("replace") or []:
        if not LITERAL.fullmatch(key) or key in (rules.data.get("shown_negated") or []):
            continue
        for depth in range(1, MAX_DEPTH + 1):
            parents = tuple(MatchRule(re_search=".") for _ in range(depth - 1))
            rule = IdempotentCommandsRule(match_rules=(*parents, MatchRule(startswith=f"{key} ")))
            driver.rules.idempotent_commands.append(rule)
    return driver


@dataclass
class Remediation:
    platform: str
    added: list[str] = field(default_factory=list)  # owned statements the switch lacks (with parents)
    removed: list[str] = field(default_factory=list)  # owned statements intended/ lacks
    commands: list[str] = field(default_factory=list)  # what the push sends (SONiC: patch ops as JSON)
    patch: list[dict[str, Any]] = field(default_factory=list)  # SONiC only
    pfcwd: PfcwdPlan = field(default_factory=PfcwdPlan)  # SONiC only: PFC_WD through the `pfcwd` CLI
    # SONiC only: cages split by `config interface breakout` before the patch (sonic_breakout)
    breakout: BreakoutPlan = field(default_factory=BreakoutPlan)

    @property
    def in_sync(self) -> bool:
        return not self.commands

    def diff(self) -> str:
        """The remediation the push applies, as it will be sent."""
        return "\n".join(self.commands)

    def as_dict(self) -> dict[str, Any]:
        return {"added": self.added, "removed": self.removed, "commands": self.commands}


def remediate(platform: str, running: str, intended: str) -> Remediation:
    rules = os_rules(platform)
    if rules.form == "indented":
        return _indented(rules, running, intended)
    if rules.form == "set":
        return _set_form(rules, running, intended)
    return _document(rules, json.loads(running), json.loads(intended))


def _shown(paths: list[tuple[str, ...]], indent: int) -> list[str]:
    return [" " * indent * (len(path) - 1) + path[-1] for path in paths]


def _indented(rules: OsRules, running: str, intended: str) -> Remediation:
    indent = rules.data["indent"]
    owned, _ports = owned_indented(rules, running, intended)
    owned_text = "\n".join(line for b in owned for line in [b.line, *b.children])
    intended_text = "\n".join(
        line for b in blocks(intended) for line in [b.line, *b.children]
    )  # comments and `!` dropped
    hier = hier_driver(rules.platform)
    remediation = WorkflowRemediation(get_hconfig(hier, owned_text), get_hconfig(hier, intended_text))
    by_line = {b.line: b for b in owned}
    first: list[str] = []
    last: list[str] = []
    for child in remediation.remediation_config.children:
        if child.text.startswith("no interface ") and child.text[3:] in by_line:
            # A port gpunet no longer configures: take gpunet's statements off, keep the port.
            port = by_line[child.text[3:]]
            tops = [c.strip() for c in port.children if len(c) - len(c.lstrip(" ")) <= indent]
            if tops:
                first += [port.line, *(f"{' ' * indent}no {c}" for c in tops if not c.startswith("no "))]
            continue
        lines = [child.text] + [
            " " * indent * (node.depth() - 1) + node.text for node in child.all_children_sorted()
        ]
        # Deleting a whole object waits until the lines that unbind it have run.
        deletes_object = child.text.startswith("no ") and bool(
            getattr(by_line.get(child.text[3:]), "children", None)
        )
        (last if deletes_object else first).extend(lines)
    have = set(config_paths(owned_text, indent))
    want = set(config_paths(intended_text, indent))
    return Remediation(
        rules.platform,
        added=_shown([p for p in config_paths(intended_text, indent) if p not in have], indent),
        removed=_shown([p for p in config_paths(owned_text, indent) if p not in want], indent),
        commands=first + last,
    )


def _set_form(rules: OsRules, running: str, intended: str) -> Remediation:
    set_word, unset_word = rules.data["set"], rules.data["unset"]
    owned = owned_set_lines(rules, running, intended)
    wanted = [line.strip() for line in intended.splitlines() if line.strip()]
    wanted_set = set(wanted)
    have = {line.strip() for line in running.splitlines() if line.strip()}
    wanted_keys = {key for line in wanted if (key := rules.replace_key(line))}
    wanted_objects = {obj for line in wanted if (obj := object_of(rules, line))}
    removed = [line for line in owned if line not in wanted_set]
    unsets: list[str] = []
    for line in removed:
        obj = object_of(rules, line)
        key = rules.replace_key(line)
        if obj is not None and obj not in wanted_objects:
            command = unset_word + obj.removeprefix(set_word)
        elif key is not None and key in wanted_keys:
            continue  # the `set` of the new value replaces it
        else:
            command = unset_word + (key or line).removeprefix(set_word)
        if command not in unsets:
            unsets.append(command)
    added = [line for line in wanted if line not in have]
    return Remediation(rules.platform, added=added, removed=removed, commands=unsets + added)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _document(rules: OsRules, running: dict[str, Any], intended: dict[str, Any]) -> Remediation:
    """SONiC: one JSON Patch for config_db, PFC_WD and BREAKOUT_CFG excepted (gpunet.netdev.sonic_pfcwd
    and sonic_breakout say why); a cage to split makes the breakout run first, and the patch shown
    is the one planned on today's ports (the push plans it again after the breakout)."""
    owned = owned_document(rules, running, intended)
    breakout = sonic_breakout.plan(running, intended)
    pfcwd = sonic_pfcwd.plan(running.get("PFC_WD", {}), owned.get("PFC_WD", {}), intended.get("PFC_WD", {}))
    removes: list[dict[str, Any]] = []
    writes: list[dict[str, Any]] = []
    added: list[str] = []
    removed: list[str] = []
    for table, entries in owned.items():
        for key, fields in entries.items():
            path = f"/{_escape(table)}/{_escape(key)}"
            if key not in intended.get(table, {}):
                removes.append({"op": "remove", "path": path})
                removed.append(f"{table}|{key}")
                continue
            for name in fields:
                if name not in intended[table][key]:
                    removes.append({"op": "remove", "path": f"{path}/{_escape(name)}"})
                    removed.append(f"{table}|{key}.{name}")
    for table, entries in intended.items():
        if table not in running:
            writes.append({"op": "add", "path": f"/{_escape(table)}", "value": entries})
            added += [f"{table}|{key}" for key in entries]
            continue
        for key, fields in entries.items():
            path = f"/{_escape(table)}/{_escape(key)}"
            current = running[table].get(key)
            if current is None:
                writes.append({"op": "add", "path": path, "value": fields})
                added.append(f"{table}|{key}")
                continue
            for name, value in fields.items():
                if current.get(name) != value:
                    kind = "replace" if name in current else "add"
                    writes.append({"op": kind, "path": f"{path}/{_escape(name)}", "value": value})
                    if kind == "replace":
                        removed.append(f"{table}|{key}.{name}={current[name]}")
                    added.append(f"{table}|{key}.{name}={value}")
    outside = ("/PFC_WD", f"/{sonic_breakout.TABLE}")
    patch = [op for op in removes + writes if not op["path"].startswith(outside)]
    return Remediation(
        rules.platform,
        added=added,
        removed=removed,
        commands=breakout.apply + [json.dumps(op, sort_keys=True) for op in patch] + pfcwd.commands,
        patch=patch,
        pfcwd=pfcwd,
        breakout=breakout,
    )
