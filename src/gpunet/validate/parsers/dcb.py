"""iproute2 `dcb pfc show dev DEV` and `dcb app show dev DEV`, text or `dcb -j` JSON.

Print layouts from iproute2 `dcb/dcb_pfc.c` (dcb_pfc_print: `pfc-cap N macsec-bypass on|off delay
N`, `prio-pfc 0:off .. 7:on`, with `-s` `requests 0:N ..` and `indications 0:N ..`) and
`dcb/dcb_app.c` (dcb_app_print: one line per selector that has entries, `ethtype-prio`,
`default-prio`, `dscp-prio`, `stream-port-prio`, `dgram-port-prio`, `port-prio`, `pcp-prio`, each
`pid:prio` pairs; an empty APP table prints nothing). `dcb app show` names a DSCP by its
`rt_dsfield` name where one exists (`AF31:3 CS6:6`, `default:0`), unless run with `-N`: the names
are read back with iproute2's own table (`etc/iproute2/rt_dsfield`; the file holds DS-field
values, the DSCP shifted left by two). A site that renamed code points in its rt_dsfield gets an
error naming the token (collect with `dcb -N` there).

Read completely or refused: a line of a known keyword whose pairs do not all read, a priority
array that does not list priorities 0-7, a keyword printed twice, or a line that is none of the
lines the command prints (other than a `$ dcb ...` / `# dcb ...` command line ahead of the output)
is an error naming the line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

# iproute2 etc/iproute2/rt_dsfield (at ee2a4a8): name -> DS field; DSCP = field >> 2.
_DSFIELD_NAMES = {
    "default": 0x0,
    **{"AF11": 0x28, "AF12": 0x30, "AF13": 0x38, "AF21": 0x48, "AF22": 0x50, "AF23": 0x58},
    **{"AF31": 0x68, "AF32": 0x70, "AF33": 0x78, "AF41": 0x88, "AF42": 0x90, "AF43": 0x98},
    **{"CS1": 0x20, "CS2": 0x40, "CS3": 0x60, "CS4": 0x80, "CS5": 0xA0, "CS6": 0xC0, "CS7": 0xE0},
    "EF": 0xB8,
}
# dcb_app.c pcp_names: PCP 0-7 with drop-eligible bit clear ("nd") or set ("de").
_PCP_NAMES = {f"{pcp}{de}": pcp + (8 if de == "de" else 0) for de in ("nd", "de") for pcp in range(8)}
_PRIORITIES = 8


def parse_dcb_pfc_show(text: str) -> dict[str, Any]:
    """{"pfc_cap", "macsec_bypass", "delay", "prio_pfc": [8 bools], "pfc_priorities": [..],
    "requests"?, "indications"?}."""
    if text.lstrip().startswith("{"):
        return _pfc_json(text)
    result: dict[str, Any] = {}
    for number_, line in enumerate(content_lines(text), 1):
        tokens = line.split()
        if not tokens:
            continue
        keyword = tokens[0]
        if keyword in ("pfc-cap", "macsec-bypass", "delay"):
            _read_pfc_settings(tokens, number_, result)
        elif keyword in ("prio-pfc", "requests", "indications"):
            key = keyword.replace("-", "_")
            if key in result:
                raise ParseError(f"line {number_}: a second {keyword!r} line (a duplicated capture)")
            values = _priority_array(tokens[1:], number_, keyword, on_off=keyword == "prio-pfc")
            result[key] = values
        elif keyword.startswith(("Error", "RTNETLINK")) or "failed" in line or "not supported" in line:
            raise ParseError(f"line {number_}: dcb reports an error: {line.strip()}")
        elif not _is_command_line(keyword):
            raise ParseError(
                f"line {number_}: {line.strip()!r} is not a line `dcb pfc show` prints (expected pfc-cap, "
                "macsec-bypass, delay, prio-pfc, requests or indications)"
            )
    if "prio_pfc" not in result:
        raise ParseError("no 'prio-pfc 0:on|off ...' line: not `dcb pfc show` output")
    result["pfc_priorities"] = [priority for priority, on in enumerate(result["prio_pfc"]) if on]
    return result


def _read_pfc_settings(tokens: list[str], number_: int, result: dict[str, Any]) -> None:
    if len(tokens) % 2:
        raise ParseError(f"line {number_}: expected 'pfc-cap N macsec-bypass on|off delay N' pairs")
    for name, value in zip(tokens[::2], tokens[1::2], strict=True):
        key = name.replace("-", "_")
        if key in result:
            raise ParseError(f"line {number_}: {name!r} printed twice (a duplicated capture)")
        if name in ("pfc-cap", "delay") and value.isdigit():
            result[key] = int(value)
        elif name == "macsec-bypass" and value in ("on", "off"):
            result[key] = value == "on"
        else:
            raise ParseError(
                f"line {number_}: {name} {value!r}: expected a number (on|off for macsec-bypass)"
            )


def _priority_array(pairs: list[str], number_: int, keyword: str, on_off: bool) -> list[Any]:
    """`0:off 1:on ..` or `0:12 1:0 ..`: one value per priority 0-7, in order."""
    values: list[Any] = []
    for position, pair in enumerate(pairs):
        index, _, value = pair.partition(":")
        readable = value in ("on", "off") if on_off else value.isdigit()
        if index != str(position) or not readable:
            raise ParseError(
                f"line {number_}: {keyword} {pair!r}: expected {position}:{'on|off' if on_off else 'N'} "
                "(a cut or damaged capture)"
            )
        values.append(value == "on" if on_off else int(value))
    if len(values) != _PRIORITIES:
        raise ParseError(f"line {number_}: {keyword} lists {len(values)} of {_PRIORITIES} priorities (cut?)")
    return values


def _pfc_json(text: str) -> dict[str, Any]:
    document = _json_object(text, "dcb -j pfc show")
    if not isinstance(document.get("prio_pfc"), list):
        raise ParseError("dcb -j pfc show: no prio_pfc array")
    prio_pfc = document["prio_pfc"]
    if len(prio_pfc) != _PRIORITIES or not all(isinstance(v, bool) for v in prio_pfc):
        raise ParseError(f"dcb -j pfc show: prio_pfc is not {_PRIORITIES} true/false values")
    result: dict[str, Any] = {"prio_pfc": prio_pfc}
    for key in ("pfc_cap", "macsec_bypass", "delay", "requests", "indications"):
        if key in document:
            result[key] = document[key]
    result["pfc_priorities"] = [priority for priority, on in enumerate(prio_pfc) if on]
    return result


# dcb_app_print order and how each selector prints its protocol id.
_APP_SELECTORS = {
    "ethtype-prio": "hex",
    "dscp-prio": "dscp",
    "stream-port-prio": "dec",
    "dgram-port-prio": "dec",
    "port-prio": "dec",
    "pcp-prio": "pcp",
}


def parse_dcb_app_show(text: str) -> dict[str, Any]:
    """{"default_prio": [..], "dscp_prio": [[dscp, prio], ..], "dscp_to_priorities": {dscp: [..]},
    "ethtype_prio", "stream_port_prio", "dgram_port_prio", "port_prio", "pcp_prio": [[id, prio]]}."""
    if text.lstrip().startswith("{"):
        return _app_json(text)
    result: dict[str, Any] = {"default_prio": [], **{k.replace("-", "_"): [] for k in _APP_SELECTORS}}
    seen: set[str] = set()
    for number_, line in enumerate(content_lines(text), 1):
        tokens = line.split()
        if not tokens:
            continue
        keyword = tokens[0]
        if keyword in _APP_SELECTORS or keyword == "default-prio":
            if keyword in seen:
                raise ParseError(f"line {number_}: a second {keyword!r} line (a duplicated capture)")
            seen.add(keyword)
            if keyword == "default-prio":
                result["default_prio"] = [_app_priority(t, t, number_, keyword) for t in tokens[1:]]
            else:
                key = keyword.replace("-", "_")
                result[key] = [_app_pair(t, _APP_SELECTORS[keyword], number_, keyword) for t in tokens[1:]]
        elif keyword.startswith(("Error", "RTNETLINK")) or "failed" in line or "not supported" in line:
            raise ParseError(f"line {number_}: dcb reports an error: {line.strip()}")
        elif not _is_command_line(keyword):
            raise ParseError(
                f"line {number_}: {line.strip()!r} is not a line `dcb app show` prints (expected "
                f"default-prio or {', '.join(_APP_SELECTORS)})"
            )
    return _with_dscp_map(result)


def _is_command_line(first_token: str) -> bool:
    """A shell transcript's command line ahead of the output: `$ dcb pfc show dev eth2`."""
    return first_token in ("$", "#") or first_token.endswith(("$", "#"))


def _app_pair(token: str, kind: str, number_: int, keyword: str) -> list[int]:
    protocol, colon, priority = token.rpartition(":")
    if not colon or not protocol:
        raise ParseError(f"line {number_}: {keyword} {token!r}: expected <id>:<priority> (a cut capture?)")
    value: int | None
    if kind == "hex":
        value = int(protocol, 16) if re.fullmatch(r"[0-9a-fA-F]+", protocol) else None
    elif kind == "dscp":
        value = int(protocol) if protocol.isdigit() else _dscp_by_name(protocol)
        value = value if value is not None and value <= 63 else None
    elif kind == "pcp":
        value = _PCP_NAMES.get(protocol, int(protocol) if protocol.isdigit() else None)
    else:
        value = int(protocol) if protocol.isdigit() else None
    if value is None:
        known = " (iproute2 rt_dsfield names; collect with `dcb -N` for numbers)" if kind == "dscp" else ""
        raise ParseError(f"line {number_}: {keyword} {token!r}: unknown {kind} id {protocol!r}{known}")
    return [value, _app_priority(priority, token, number_, keyword)]


def _app_priority(priority: str, token: str, number_: int, keyword: str) -> int:
    if not priority.isdigit() or int(priority) >= _PRIORITIES:
        raise ParseError(f"line {number_}: {keyword} {token!r}: priority {priority!r} is not 0-7")
    return int(priority)


def _dscp_by_name(name: str) -> int | None:
    field = _DSFIELD_NAMES.get(name)
    return None if field is None else field >> 2


def _app_json(text: str) -> dict[str, Any]:
    """`dcb -j app show`: the same keys, every id numeric (dcb_app_print_pid_dscp prints numbers in
    JSON), pcp ids as their names."""
    document = _json_object(text, "dcb -j app show")
    result: dict[str, Any] = {"default_prio": document.get("default_prio", [])}
    for keyword, kind in _APP_SELECTORS.items():
        key = keyword.replace("-", "_")
        pairs = document.get(key, [])
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ParseError(f"dcb -j app show: {key} is not a list of [id, priority] pairs")
        result[key] = [_app_pair(f"{pid}:{prio}", kind, 1, keyword) for pid, prio in pairs]
    return _with_dscp_map(result)


def _with_dscp_map(result: dict[str, Any]) -> dict[str, Any]:
    mapping: dict[int, list[int]] = {}
    for dscp, priority in result["dscp_prio"]:
        mapping.setdefault(dscp, []).append(priority)
    result["dscp_to_priorities"] = {dscp: sorted(priorities) for dscp, priorities in sorted(mapping.items())}
    return result


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"{what}: not JSON (cut or damaged?): {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict):
        raise ParseError(f"{what}: not a JSON object")
    return document
