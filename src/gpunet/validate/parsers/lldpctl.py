"""lldpd's `lldpctl -f json` (`show neighbors`, the default command): the LLDP neighbours of every
local interface. GPU hosts run lldpd; so do SONiC (in its lldp container) and Cumulus Linux.

The layout comes from lldpd's own source, checked at lldpd/lldpd da2ab0b (2026-07-01):
- `src/client/display.c` display_interfaces/display_interface: one `interface` element per
  neighbour (attributes `name`, `via`, `rid`, `age`), holding `chassis` (`id` with a `type`
  attribute and the id as data, `name` = SysName, `descr`, `mgmt-ip`, `capability`) and `port`
  (`id` with `type`, `descr`, `ttl`, ...); an interface with two neighbours is two elements.
- `src/client/json_writer.c` json_element_cleanup (the `-f json` variant; `-f json0` skips it):
  an array of one member is replaced by that member, an object whose only key is `value` by that
  value, and an object with a string `name` is wrapped in a new object keyed by that name. So one
  neighbour gives `"interface": {"eth0": {...}}` and several a list of one-key objects
  (`[{"eth0": {...}}, {"eth1": {...}}]`); a chassis with a SysName is `{"leaf01": {"id": ...}}`
  and one without is `{"id": ...}`; `yes`/`no`/`on`/`off` attributes become booleans; no
  neighbour at all prints `{"lldp": {}}`.
- `tests/integration/test_lldpcli.py` test_json_output / test_json0_output: the expected
  documents of both variants.

Read completely or refused: text that is no JSON object, a cut document, a second document or text
after it, a key twice in one object, the json0 variant (every element an array: collect with `-f
json`), `show interfaces` or `show statistics` output (local ports, no `via`), and an interface
entry without its chassis or port id are each an error saying so.
"""

from __future__ import annotations

from typing import Any

from gpunet.validate.parsers.base import ParseError, one_json_document

_WHAT = "lldpctl -f json"


def parse_lldpctl_json(text: str) -> dict[str, Any]:
    """{"form": "json", "neighbours": [{"interface", "via", "rid", "age", "chassis": {"name", "id":
    {"type", "value"}, "descr"}, "port": {"id": {"type", "value"}, "descr"}}, ...]} in lldpd's
    order; `name`, `descr`, `rid` and `age` are None where lldpd printed none."""
    document = _load(text)
    lldp = document["lldp"]
    if isinstance(lldp, list):
        raise ParseError(
            f"{_WHAT}: 'lldp' is a list: the json0 layout (lldpctl -f json0); collect with -f json"
        )
    if not isinstance(lldp, dict):
        raise ParseError(f"{_WHAT}: 'lldp' is not an object")
    unknown = sorted(set(lldp) - {"interface"})
    if unknown:
        raise ParseError(f"{_WHAT}: 'lldp' holds {unknown[0]!r}: not `lldpctl show neighbors` output")
    entries = lldp.get("interface", [])
    if isinstance(entries, dict):  # one neighbour: the list of one was replaced by its member
        entries = [entries]
    if not isinstance(entries, list):
        raise ParseError(f"{_WHAT}: 'interface' is neither an object nor a list")
    return {"form": "json", "neighbours": [_neighbour(entry, index) for index, entry in enumerate(entries)]}


def _load(text: str) -> dict[str, Any]:
    document = one_json_document(text, _WHAT)
    if not isinstance(document, dict) or "lldp" not in document:
        raise ParseError(f"{_WHAT}: no 'lldp' key: not lldpctl output")
    if len(document) != 1:
        other = sorted(set(document) - {"lldp"})[0]
        raise ParseError(f"{_WHAT}: the document holds {other!r} beside 'lldp': not `lldpctl show neighbors`")
    return document


def _neighbour(entry: Any, index: int) -> dict[str, Any]:
    where = f"interface entry {index + 1}"
    if not isinstance(entry, dict) or len(entry) != 1:
        raise ParseError(f"{_WHAT}: {where} is not one object keyed by the interface name")
    ((interface, body),) = entry.items()
    where = f"interface {interface!r}"
    if not isinstance(body, dict):
        raise ParseError(f"{_WHAT}: {where} is not an object")
    if "via" not in body:
        raise ParseError(
            f"{_WHAT}: {where} has no 'via': local ports (`lldpctl show interfaces` or `show statistics`), "
            "not `show neighbors`"
        )
    for key in ("chassis", "port"):
        if not isinstance(body.get(key), dict):
            raise ParseError(f"{_WHAT}: {where} has no {key} object (a cut capture?)")
    return {
        "interface": interface,
        "via": _text(body, "via", where),
        "rid": _optional_text(body, "rid", where),
        "age": _optional_text(body, "age", where),
        "chassis": _chassis(body["chassis"], where),
        "port": {
            "id": _identifier(body["port"].get("id"), f"{where} port"),
            "descr": _optional_text(body["port"], "descr", f"{where} port"),
        },
    }


def _chassis(chassis: dict[str, Any], where: str) -> dict[str, Any]:
    name = None
    if len(chassis) == 1:
        ((key, value),) = chassis.items()
        if isinstance(value, dict) and isinstance(value.get("id"), dict):
            name, chassis = key, value  # keyed by its SysName (json_element_cleanup)
    return {
        "name": name,
        "id": _identifier(chassis.get("id"), f"{where} chassis"),
        "descr": _optional_text(chassis, "descr", f"{where} chassis"),
    }


def _identifier(value: Any, where: str) -> dict[str, str]:
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("type"), str)
        or not isinstance(value.get("value"), str)
    ):
        raise ParseError(f"{_WHAT}: {where} has no id {{type, value}} (a cut capture?)")
    return {"type": value["type"], "value": value["value"]}


def _text(body: dict[str, Any], key: str, where: str) -> str:
    value = body[key]
    if not isinstance(value, str):
        raise ParseError(f"{_WHAT}: {where} {key} is not a string")
    return value


def _optional_text(body: dict[str, Any], key: str, where: str) -> str | None:
    return None if body.get(key) is None else _text(body, key, where)
