"""LLDP neighbours from the lab's cabling, printed in each OS's layout.

LAB EQUIPMENT: a simulated switch has no cable; it is told its neighbours (SwitchState.neighbours:
port -> [device, port], each port's `peer` in the lab inventory, a host NIC by its netdev as lldpd
on the host advertises it) and prints them as the OS would, in the layouts the LLDP parsers read
(gpunet.validate.parsers.lldp_switch and lldpctl, which cite each vendor's source). Every
neighbour advertises its SysName and its port as an interface name, with a chassis MAC made up
from its name. The faults (SimOptions lldp_swap, lldp_neighbour) change what LLDP shows as a
miswired rack would: two ports' cables exchanged, one port cabled elsewhere or to nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gpunet.lab.switchsim.switch import SimulatedSwitch

# The commands answered per OS (what gpunet.collect.lldp collects).
COMMANDS: dict[str, tuple[str, ...]] = {
    "eos": ("show lldp neighbors detail | json",),
    "nxos": ("show lldp neighbors detail | json",),
    "junos": ("show lldp neighbors | display json",),
    "sonic": ("show lldp table",),
    "cumulus": ("sudo lldpctl -f json", "lldpctl -f json"),
}

Neighbour = tuple[str, str, str]  # (local port, neighbour's SysName, neighbour's port)


def lldp_answer(switch: SimulatedSwitch, command: str) -> str:
    """The OS's output for one of its COMMANDS."""
    return PRINTERS[switch.state.platform](neighbours(switch))


def neighbours(switch: SimulatedSwitch) -> list[Neighbour]:
    """The neighbours LLDP sees, in the switch's port order, with the cabling faults applied."""
    cabled = {port: tuple(peer) for port, peer in switch.state.neighbours.items() if len(peer) == 2}
    options = switch.options
    if options.lldp_swap:
        first, second = options.lldp_swap.split(",", 1)
        one, other = cabled.pop(first, None), cabled.pop(second, None)
        if one is not None:
            cabled[second] = one
        if other is not None:
            cabled[first] = other
    for rewire in options.lldp_neighbour:
        port, _, far = rewire.partition("=")
        cabled.pop(port, None)
        if far:
            device, _, far_port = far.partition(":")  # a Junos channel's port name keeps its own ':'
            cabled[port] = (device, far_port)
    order = {port: index for index, port in enumerate(switch.state.ports)}
    return [
        (port, peer[0], peer[1])
        for port, peer in sorted(cabled.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    ]


def chassis_mac(device: str, separator: str = ":") -> str:
    octets = ["52", *(f"{byte:02x}" for byte in hashlib.sha256(device.encode()).digest()[:5])]
    if separator == ".":  # Cisco/Arista dotted form
        return ".".join("".join(octets[i : i + 2]) for i in range(0, 6, 2))
    return separator.join(octets)


def eos_lldp_json(rows: list[Neighbour]) -> str:
    """EOS `show lldp neighbors detail | json`: every interface with a neighbour."""
    table: dict[str, Any] = {}
    for local, device, port in rows:
        table.setdefault(local, {"lldpNeighborInfo": []})["lldpNeighborInfo"].append(
            {
                "systemName": device,
                "chassisIdType": "macAddress",
                "chassisId": chassis_mac(device, "."),
                "neighborInterfaceInfo": {
                    "interfaceIdType": "interfaceName",
                    "interfaceId": f'"{port}"',
                    "interfaceId_v2": port,
                    "interfaceDescription": port,
                },
            }
        )
    return json.dumps({"lldpNeighbors": table}, indent=2)


def nxos_lldp_json(rows: list[Neighbour]) -> str:
    """NX-OS `show lldp neighbors detail | json`: an empty object without a neighbour (as the parser
    reads NX-API's answer then), one row as an object, several as a list; local ports abbreviated
    (Eth1/1)."""
    if not rows:
        return "{}"
    records = [
        {
            "chassis_type": "Mac Address",
            "chassis_id": chassis_mac(device, "."),
            "port_type": "Interface Name",
            "port_id": port,
            "l_port_id": local.replace("Ethernet", "Eth", 1),
            "port_desc": port,
            "sys_name": device,
            "ttl": 120,
        }
        for local, device, port in rows
    ]
    return json.dumps(
        {"TABLE_nbor_detail": {"ROW_nbor_detail": records[0] if len(records) == 1 else records}}
    )


def junos_lldp_json(rows: list[Neighbour]) -> str:
    """Junos `show lldp neighbors | display json`: every value as [{"data": value}]."""

    def data(value: str) -> list[dict[str, str]]:
        return [{"data": value}]

    entries = [
        {
            "lldp-local-port-id": data(local),
            "lldp-local-parent-interface-name": data("-"),
            "lldp-remote-chassis-id-subtype": data("Mac address"),
            "lldp-remote-chassis-id": data(chassis_mac(device)),
            "lldp-remote-port-id-subtype": data("Interface name"),
            "lldp-remote-port-id": data(port),
            "lldp-remote-system-name": data(device),
        }
        for local, device, port in rows
    ]
    information: dict[str, Any] = {"lldp-neighbor-information": entries} if entries else {}
    return json.dumps({"lldp-neighbors-information": [information]}, indent=4)


_SONIC_HEADER = ("LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr")


def sonic_lldp_table(rows: list[Neighbour]) -> str:
    """SONiC `show lldp table` (scripts/lldpshow): tabulate's `simple` format, then the total."""
    cells = [(local, device, port, "O", port) for local, device, port in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(_SONIC_HEADER)]

    def line(values: tuple[str, ...]) -> str:
        return "  ".join(value.ljust(width) for value, width in zip(values, widths, strict=True)).rstrip()

    out = ["Capability codes: (R) Router, (B) Bridge, (O) Other", line(_SONIC_HEADER)]
    out.append("  ".join("-" * width for width in widths))
    out += [line(row) for row in cells]
    out += ["-" * 50, f"Total entries displayed:  {len(cells)}"]
    return "\n".join(out)


def lldpctl_json(rows: list[Neighbour]) -> str:
    """lldpd's `lldpctl -f json` (Cumulus): one neighbour as an object, several as a list of
    one-key objects, none as {"lldp": {}}."""
    interfaces = [
        {
            local: {
                "via": "LLDP",
                "rid": str(index + 1),
                "age": "0 day, 00:10:00",
                "chassis": {device: {"id": {"type": "mac", "value": chassis_mac(device)}}},
                "port": {"id": {"type": "ifname", "value": port}, "descr": port, "ttl": "120"},
            }
        }
        for index, (local, device, port) in enumerate(rows)
    ]
    if not interfaces:
        return json.dumps({"lldp": {}}, indent=2)
    return json.dumps(
        {"lldp": {"interface": interfaces[0] if len(interfaces) == 1 else interfaces}}, indent=2
    )


PRINTERS = {
    "eos": eos_lldp_json,
    "nxos": nxos_lldp_json,
    "junos": junos_lldp_json,
    "sonic": sonic_lldp_table,
    "cumulus": lldpctl_json,
}
