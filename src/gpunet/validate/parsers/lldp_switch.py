"""LLDP neighbours as the switch OSes print them, reduced to the records `lldpctl-json` gives
(parsers/lldpctl.py), which the cabling judge reads: per neighbour the local `interface`, the
chassis `name` (SysName, None where none was sent) and `id`, and the port `id` {type, value}
(type in lldpd's words: ifname, ifalias, local, mac, ...) and `descr`.

The layouts, learned from open-source readers of the vendors' output (their layouts, not their
code) and from the vendor's own source where there is one:
- EOS `show lldp neighbors detail | json`: `lldpNeighbors` {local interface: {`lldpNeighborInfo`:
  [{`systemName`, `chassisId`, `chassisIdType`, `neighborInterfaceInfo`: {`interfaceIdType`
  (interfaceName, macAddress, ...), `interfaceId` (quoted: '"Ethernet1"'), `interfaceId_v2`
  (unquoted, newer releases), `interfaceDescription`}}]}}. Arista's ANTA, aristanetworks/anta
  `anta/tests/connectivity.py` VerifyLLDPNeighbors at bb63d39 and its recorded eos_data in
  `tests/units/anta_tests/connectivity/data.py` at 455c581.
- NX-OS `show lldp neighbors detail | json`: `TABLE_nbor_detail` {`ROW_nbor_detail`: one object,
  or a list of them (NX-API prints a single row as an object)} with `l_port_id` (abbreviated,
  `Eth1/1`), `sys_name`, `chassis_id`, `port_id`, `port_desc`. opennetworkinglab/onos
  `drivers/cisco/rest/.../LinkDiscoveryCiscoImpl.java` at 275de30 (it reads these keys and
  expands `Eth` to `Ethernet`). No port id subtype is printed: the port id is tried as a name.
- Junos `show lldp neighbors | display json`: `lldp-neighbors-information` [{
  `lldp-neighbor-information` [{`lldp-local-port-id` (or `lldp-local-interface`, which `detail`
  and some platforms print; preferred: `lldp-local-port-id` can be an SNMP index there),
  `lldp-remote-chassis-id-subtype`, `lldp-remote-chassis-id`, `lldp-remote-port-id-subtype`
  ("Interface name", "Mac address", "Locally assigned"), `lldp-remote-port-id`,
  `lldp-remote-port-description`, `lldp-remote-system-name`}]}], each value Junos JSON's
  [{"data": value}]. Element names: opennetworkinglab/onos
  `drivers/juniper/.../JuniperUtils.java` at 201fe1f; the JSON wrapping: netenglabs/suzieq
  `config/lldp.yml` at 0284487 (junos-mx, junos-qfx).
- SONiC `show lldp table`: sonic-net/sonic-utilities `scripts/lldpshow` at 691b1bb (the vendor's
  own): lldpctl's XML reduced to LocalPort, RemoteDevice (chassis name, '' without one),
  RemotePortID (port id, any subtype: none is printed, so it is tried as a name), Capability,
  RemotePortDescr ('' without one), printed by tabulate's default `simple` format (a dashed line
  under the header gives each column's span, a column of numbers is right-aligned in it), then a
  50-dash line and `Total entries displayed:  N`; `Error: ...` when lldpctl failed.

Cumulus Linux stays on `lldpctl-json`: NVUE's OpenAPI (5.3.0) documents the per-interface
`lldp.neighbor` object, but no source at hand gives the whole-switch command's layout.

Refused, naming the key or line: text that is no JSON object (or a table without its header),
a cut or doubled document, a key twice in one object, a neighbour without its local port, chassis
or port id, and a SONiC table whose row count disagrees with its total.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, one_json_document

# A port id of unknown subtype: tried as an interface name, and where it names no port of the
# inventory the end names the device only (validate.cabling, the `local` rule).
UNTYPED = "local"


def _record(
    interface: str, name: str | None, chassis: tuple[str, str], port: tuple[str, str], descr: str | None
) -> dict[str, Any]:
    return {
        "interface": interface,
        "via": "LLDP",
        "rid": None,
        "age": None,
        "chassis": {"name": name or None, "id": {"type": chassis[0], "value": chassis[1]}, "descr": None},
        "port": {"id": {"type": port[0], "value": port[1]}, "descr": descr or None},
    }


def _load(text: str, what: str) -> Any:
    return one_json_document(text, what)


def _text(value: Any, where: str, what: str, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        state = "missing" if value is None else "empty" if value == "" else "not a string"
        raise ParseError(f"{what}: {where} is {state}")
    return value


# EOS interfaceIdType / chassisIdType -> lldpd's subtype names.
_EOS_TYPES = {
    "interfaceName": "ifname",
    "interfaceAlias": "ifalias",
    "macAddress": "mac",
    "local": "local",
    "networkAddress": "ip",
}
_EOS = "show lldp neighbors detail | json (EOS)"


def parse_eos_lldp_neighbors_detail_json(text: str) -> dict[str, Any]:
    document = _load(text, _EOS)
    table = document.get("lldpNeighbors") if isinstance(document, dict) else None
    if not isinstance(table, dict):
        raise ParseError(f"{_EOS}: no 'lldpNeighbors' object: not this command's output")
    neighbours = []
    for interface, entry in table.items():
        where = f"lldpNeighbors.{interface}"
        infos = entry.get("lldpNeighborInfo") if isinstance(entry, dict) else None
        if not isinstance(infos, list):
            raise ParseError(f"{_EOS}: {where} has no 'lldpNeighborInfo' list")
        for index, info in enumerate(infos):
            at = f"{where}.lldpNeighborInfo[{index}]"
            if not isinstance(info, dict) or not isinstance(info.get("neighborInterfaceInfo"), dict):
                raise ParseError(f"{_EOS}: {at} has no 'neighborInterfaceInfo' object")
            port = info["neighborInterfaceInfo"]
            port_id = port.get("interfaceId_v2")
            if port_id is None and isinstance(port.get("interfaceId"), str):
                port_id = port["interfaceId"].strip('"')  # quoted in the older key
            port_id = _text(port_id, f"{at}.neighborInterfaceInfo.interfaceId_v2", _EOS)
            port_type = _text(
                port.get("interfaceIdType"), f"{at}.neighborInterfaceInfo.interfaceIdType", _EOS
            )
            chassis_id = _text(info.get("chassisId"), f"{at}.chassisId", _EOS)
            chassis_type = _text(info.get("chassisIdType"), f"{at}.chassisIdType", _EOS, required=False)
            neighbours.append(
                _record(
                    interface,
                    _text(info.get("systemName"), f"{at}.systemName", _EOS, required=False),
                    (_EOS_TYPES.get(chassis_type or "", chassis_type or "unknown"), chassis_id or ""),
                    (_EOS_TYPES.get(port_type or "", port_type or ""), port_id or ""),
                    _text(
                        port.get("interfaceDescription"), f"{at}.interfaceDescription", _EOS, required=False
                    ),
                )
            )
    return {"form": "eos-json", "neighbours": neighbours}


_NXOS = "show lldp neighbors detail | json (NX-OS)"
# NX-OS abbreviates its own ports in l_port_id; the inventory (and NX-OS configuration) names
# them in full.
_NXOS_SHORT = re.compile(r"^Eth(?=\d)")


def parse_nxos_lldp_neighbors_detail_json(text: str) -> dict[str, Any]:
    document = _load(text, _NXOS)
    if not isinstance(document, dict):
        raise ParseError(f"{_NXOS}: not a JSON object")
    if document == {}:
        return {"form": "nxos-json", "neighbours": []}  # NX-API prints nothing for no neighbour
    table = document.get("TABLE_nbor_detail")
    rows = table.get("ROW_nbor_detail") if isinstance(table, dict) else None
    if isinstance(rows, dict):
        rows = [rows]  # one row: NX-API's object instead of a list of one
    if not isinstance(rows, list):
        raise ParseError(f"{_NXOS}: no TABLE_nbor_detail.ROW_nbor_detail: not this command's output")
    neighbours = []
    for index, row in enumerate(rows):
        at = f"ROW_nbor_detail[{index}]"
        if not isinstance(row, dict):
            raise ParseError(f"{_NXOS}: {at} is not an object")
        local = _text(row.get("l_port_id"), f"{at}.l_port_id", _NXOS) or ""
        neighbours.append(
            _record(
                _NXOS_SHORT.sub("Ethernet", local),
                _text(row.get("sys_name"), f"{at}.sys_name", _NXOS, required=False),
                ("unknown", _text(row.get("chassis_id"), f"{at}.chassis_id", _NXOS) or ""),
                (UNTYPED, _text(row.get("port_id"), f"{at}.port_id", _NXOS) or ""),
                _text(row.get("port_desc"), f"{at}.port_desc", _NXOS, required=False),
            )
        )
    return {"form": "nxos-json", "neighbours": neighbours}


_JUNOS = "show lldp neighbors | display json (Junos)"
_JUNOS_TYPES = {
    "interface name": "ifname",
    "interface alias": "ifalias",
    "locally assigned": "local",
    "mac address": "mac",
    "network address": "ip",
}


def _junos_data(entry: dict[str, Any], key: str, at: str, required: bool = True) -> str | None:
    """Junos JSON holds each value as [{"data": value}]."""
    value = entry.get(key)
    if value is None and not required:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 1
        or not isinstance(value[0], dict)
        or not isinstance(value[0].get("data"), str)
    ):
        state = "missing" if value is None else 'not [{"data": text}]'
        raise ParseError(f"{_JUNOS}: {at}.{key} is {state}")
    return value[0]["data"]


def parse_junos_lldp_neighbors_json(text: str) -> dict[str, Any]:
    document = _load(text, _JUNOS)
    outer = document.get("lldp-neighbors-information") if isinstance(document, dict) else None
    if not isinstance(outer, list) or len(outer) != 1 or not isinstance(outer[0], dict):
        raise ParseError(f"{_JUNOS}: no 'lldp-neighbors-information' [{{...}}]: not this command's output")
    entries = outer[0].get("lldp-neighbor-information", [])  # absent: no neighbour
    if not isinstance(entries, list):
        raise ParseError(f"{_JUNOS}: 'lldp-neighbor-information' is not a list")
    neighbours = []
    for index, entry in enumerate(entries):
        at = f"lldp-neighbor-information[{index}]"
        if not isinstance(entry, dict):
            raise ParseError(f"{_JUNOS}: {at} is not an object")
        local = _junos_data(entry, "lldp-local-interface", at, required=False)
        local = local or _junos_data(entry, "lldp-local-port-id", at)
        port_type = _junos_data(entry, "lldp-remote-port-id-subtype", at, required=False) or ""
        chassis_type = _junos_data(entry, "lldp-remote-chassis-id-subtype", at, required=False) or ""
        neighbours.append(
            _record(
                local or "",
                _junos_data(entry, "lldp-remote-system-name", at, required=False),
                (
                    _JUNOS_TYPES.get(chassis_type.lower(), "unknown"),
                    _junos_data(entry, "lldp-remote-chassis-id", at) or "",
                ),
                (
                    _JUNOS_TYPES.get(port_type.lower(), UNTYPED),
                    _junos_data(entry, "lldp-remote-port-id", at) or "",
                ),
                _junos_data(entry, "lldp-remote-port-description", at, required=False),
            )
        )
    return {"form": "junos-json", "neighbours": neighbours}


_SONIC = "show lldp table (SONiC)"
_SONIC_HEADER = ("LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr")
_TOTAL = re.compile(r"^Total entries displayed:\s+(\d+)$")


def parse_sonic_show_lldp_table(text: str) -> dict[str, Any]:
    lines = text.splitlines()
    stripped = [line.strip() for line in lines]
    first = next((line for line in stripped if line), "")
    if first.startswith("Error:"):
        raise ParseError(f"{_SONIC}: the command failed: {first[:120]!r}")
    header_at = next((i for i, line in enumerate(stripped) if line.split() == list(_SONIC_HEADER)), None)
    if header_at is None or header_at + 1 >= len(lines):
        raise ParseError(f"{_SONIC}: no header {' '.join(_SONIC_HEADER)!r}: not lldpshow's table")
    dashes = lines[header_at + 1]
    spans = [(match.start(), match.end()) for match in re.finditer(r"-+", dashes)]
    if len(spans) != len(_SONIC_HEADER) or set(dashes.strip()) - {"-", " "}:
        raise ParseError(f"{_SONIC}: line {header_at + 2}: not the dashed line under the header")
    neighbours, total = [], None
    for number, line in enumerate(lines[header_at + 2 :], header_at + 3):
        if not line.strip():
            continue
        if set(line.strip()) == {"-"}:  # the line before the total
            continue
        if (match := _TOTAL.match(line.strip())) is not None:
            total = int(match.group(1))
            break
        cells = [
            line[start : (spans[i + 1][0] if i + 1 < len(spans) else len(line))].strip()
            for i, (start, _) in enumerate(spans)
        ]
        # tabulate's `simple` format parts columns by two spaces: a cell across that gap is no row of it
        crossed = any(line[start - 2 : start].strip() for start, _ in spans[1:])
        if not cells[0] or crossed:
            raise ParseError(f"{_SONIC}: line {number}: not a row of the table: {line.strip()[:80]!r}")
        local, device, port_id, _, descr = cells
        if not port_id:
            raise ParseError(f"{_SONIC}: line {number}: {local} has no RemotePortID")
        neighbours.append(
            _record(local, device or None, ("unknown", device), (UNTYPED, port_id), descr or None)
        )
    if total is None:
        raise ParseError(f"{_SONIC}: no 'Total entries displayed' line: a cut capture?")
    if total != len(neighbours):
        raise ParseError(
            f"{_SONIC}: the table holds {len(neighbours)} rows but says {total}: a garbled capture"
        )
    return {"form": "sonic-table", "neighbours": neighbours}
