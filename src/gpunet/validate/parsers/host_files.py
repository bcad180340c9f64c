"""Small host-side files and command outputs: /etc/nccl.conf, RoCE traffic class, lspci ACS, lsmod,
`nft -j list ruleset`."""

from __future__ import annotations

import json
import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

_ASSIGNMENT = re.compile(r"^(?P<key>[A-Z][A-Z0-9_]*)\s*=\s*(?P<value>.*)$")
# The whole line: `Global tclass=106` (MLNX_OFED, newer kernels) or the bare number (older ones).
_TRAFFIC_CLASS = re.compile(r"^(?:Global tclass=)?(?P<value>\d{1,3})$")
TRAFFIC_CLASS_MAX = 255  # an 8-bit IPv4 TOS / IPv6 traffic class
_LSPCI_DEVICE = re.compile(
    r"^(?P<address>[0-9a-fA-F]{2,4}:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})?\.[0-7])\s+(?P<name>.+)$"
)
_ACS_CONTROL = re.compile(r"^\s+ACSCtl:\s*(?P<flags>.+)$")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# pciutils ls-ecaps.c cap_acs: `ACSCtl:\tSrcValid%c TransBlk%c ReqRedir%c CmpltRedir%c UpstreamFwd%c
# EgressCtrl%c DirectTrans%c`, each flag followed by + or -.
_ACS_FLAGS = frozenset(
    {"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"}
)
_LSMOD_ROW = re.compile(r"^(?P<module>[A-Za-z0-9_]+)\s+\d+\s+(?:\d+|-)(?:\s.*)?$")


def parse_nccl_conf(text: str) -> dict[str, Any]:
    settings: dict[str, str] = {}
    for line in content_lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _ASSIGNMENT.match(stripped)
        if match is None:
            raise ParseError(f"not a NAME=value line in nccl.conf: {stripped[:80]!r}")
        settings[match["key"]] = match["value"].strip().strip("'\"")
    return {"settings": settings}


def parse_traffic_class(text: str) -> dict[str, Any]:
    """/sys/class/infiniband/<dev>/tc/1/traffic_class: newer kernels print `Global tclass=106`."""
    lines = [line.strip() for line in content_lines(text) if line.strip()]
    match = _TRAFFIC_CLASS.match(lines[0]) if len(lines) == 1 else None
    if match and int(match["value"]) <= TRAFFIC_CLASS_MAX:
        return {"traffic_class": int(match["value"])}
    shown = lines[0][:60] if lines else ""
    raise ParseError(
        f"not a traffic_class file: expected one line 'Global tclass=N' or 'N' with N 0..255, got {shown!r}"
    )


def parse_lspci_acs(text: str) -> dict[str, Any]:
    """`lspci -vvv`: the ACS control flags of every device that has the ACS capability."""
    devices: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    seen_device = False
    # A device line starts with its address (a hex digit); the capability lines are indented, and
    # only ACSCtl is read: the cheap tests come first (a whole lspci -vvv is 50-100 lines a device).
    for number_, line in enumerate(content_lines(text), 1):
        if line[:1] in _HEX_DIGITS and (match := _LSPCI_DEVICE.match(line)):
            current = {"address": match["address"], "name": match["name"]}
            seen_device = True
        elif "ACSCtl:" in line and (match := _ACS_CONTROL.match(line)) and current is not None:
            tokens = match["flags"].split()
            flags = {flag[:-1]: flag.endswith("+") for flag in tokens if flag[-1] in "+-"}
            if len(flags) != len(tokens) or not flags.keys() >= _ACS_FLAGS:
                raise ParseError(
                    f"line {number_}: expected ACSCtl's seven flags, each + or - "
                    f"({', '.join(sorted(_ACS_FLAGS))}), "
                    f"got {match['flags'].strip()!r} (a cut line)"
                )
            devices.append({**current, "acs_control": flags})
    if not seen_device:
        raise ParseError("no PCI device lines found: not `lspci -vvv` output")
    return {"devices": devices}


def parse_lsmod(text: str) -> dict[str, Any]:
    """{"modules": [names]}. kmod's lsmod (tools/lsmod.c) prints its header, then per module
    `printf("%-19s %8ld  %d", name, size, refcnt)` and the holders; busybox's copies
    /proc/modules (name, size, refcount or `-`, ...) under the same header. A line after the
    header that is not such a row (cut before its refcount) or a module twice: errors naming the
    line. A header alone is a kernel with no module loaded."""
    lines = content_lines(text)
    if not lines or not lines[0].startswith("Module"):
        raise ParseError("no 'Module Size Used by' header: not lsmod output")
    modules: set[str] = set()
    for number_, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        match = _LSMOD_ROW.match(line)
        if match is None:
            raise ParseError(
                f"line {number_}: expected '<module> <size> <used by count> [holders]', got {line.strip()!r}"
            )
        if match["module"] in modules:
            raise ParseError(f"line {number_}: module {match['module']} listed twice (duplicated capture)")
        modules.add(match["module"])
    return {"modules": sorted(modules)}


def parse_nft_ruleset(text: str) -> dict[str, Any]:
    """`nft -j list ruleset`: tables, and for every rule the set of destination ports it matches."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"not `nft -j list ruleset` output: {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict) or not isinstance(document.get("nftables"), list):
        raise ParseError("not `nft -j list ruleset` output: no 'nftables' list")
    tables: list[str] = []
    rules: list[dict[str, Any]] = []
    for item in document["nftables"]:
        if "table" in item:
            tables.append(f"{item['table'].get('family')} {item['table'].get('name')}")
        elif "rule" in item:
            rule = item["rule"]
            rules.append(
                {
                    "table": f"{rule.get('family')} {rule.get('table')}",
                    "chain": rule.get("chain"),
                    "verdict": _verdict(rule.get("expr", [])),
                    "dports": sorted(_dports(rule.get("expr", []))),
                }
            )
    return {"tables": tables, "rules": rules}


def _verdict(expressions: list[dict[str, Any]]) -> str | None:
    for expression in expressions:
        for verdict in ("accept", "drop", "reject"):
            if verdict in expression:
                return verdict
    return None


def _dports(expressions: list[dict[str, Any]]) -> set[int]:
    """Destination ports a rule matches: single ports, sets and ranges (ranges expanded)."""
    ports: set[int] = set()
    for expression in expressions:
        match = expression.get("match") if isinstance(expression, dict) else None
        if not match or not isinstance(match.get("left"), dict):
            continue
        if match["left"].get("payload", {}).get("field") != "dport":
            continue
        ports |= _port_values(match.get("right"))
    return ports


def _port_values(right: Any) -> set[int]:
    if isinstance(right, int):
        return {right}
    if isinstance(right, dict) and "set" in right:
        return set().union(*(_port_values(item) for item in right["set"])) if right["set"] else set()
    if isinstance(right, dict) and "range" in right:
        low, high = right["range"]
        return set(range(int(low), int(high) + 1))
    return set()
