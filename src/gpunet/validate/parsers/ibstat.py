"""`ibstat`: one `CA '<name>'` block per RDMA device, with `Port N:` sub-blocks.

Fields are recognised by name, not by indentation, so a copy whose indentation was flattened
(markdown, chat) still yields its ports. A device listed twice is a duplicated capture (an
error, never twice the devices); a port without its last field (`Link layer`), or fewer ports
than the device's `Number of ports`, means the capture was cut: an error naming the device.

A device ibstat could not read is reported on stderr, which collection appends: rdma-core before
v53 `IBPANIC("stat of IB device '%s' failed")` (`ibpanic: [pid] main: ... failed: <errno>`, and
ibstat stops, so later devices are missing), from v53 (commit 703b52c, 2024-09)
`IBWARN(...)` (`ibwarn: [pid] main: ...`, and it goes on). Such a device is listed under
`failed_devices` with its line and line number, never dropped; after an ibpanic the capture is
`complete: false`. An `ibpanic` that names no device (ibstat stopped, and which devices it did not
print is unknown) is an error naming the line, as is a device both listed and reported failed (two
captures in one); an `ibwarn` that names no device is kept under `warnings`.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines, to_number

_CA = re.compile(r"^CA '(?P<name>[^']+)'")
_PORT = re.compile(r"^\s*Port (?P<port>\d+):\s*$")
# libibmad mad.h IBPANIC/IBWARN: "ibpanic: [%d] %s: " fmt ": %m" / "ibwarn: [%d] %s: " fmt.
_DEVICE_FAILED = re.compile(
    r"^(?P<kind>ibpanic|ibwarn): \[\d+\] \w+: stat of IB device '(?P<name>[^']+)' failed"
)
_FIELD = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z ]*?):\s*(?P<value>.*)$")

_PORT_KEYS = {
    "State": "state",
    "Physical state": "physical_state",
    "Rate": "rate_gbps",
    "Link layer": "link_layer",
    "Base lid": "base_lid",
    "Port GUID": "port_guid",
}
_DEVICE_KEYS = {
    "CA type": "ca_type",
    "Firmware version": "firmware",
    "Node GUID": "node_guid",
    "Number of ports": "port_count",
}
# A field line is matched only when the text before its first colon is a key kept here.
_KEPT_KEYS = frozenset(_PORT_KEYS) | frozenset(_DEVICE_KEYS)


def parse_ibstat(text: str) -> dict[str, Any]:
    devices: list[dict[str, Any]] = []
    listed: dict[str, int] = {}  # device name -> the line of its CA block
    failed: dict[str, tuple[str, int]] = {}  # device name -> (ibpanic/ibwarn line, its number)
    panics: list[tuple[str, int]] = []
    warnings: list[str] = []
    port: dict[str, Any] | None = None
    for number_, line in enumerate(content_lines(text), 1):
        # Each pattern starts with its word after the indentation: the cheap test of the word
        # comes first (a fabric's hosts print 130 of these lines each), the pattern decides.
        stripped = line.strip()
        if stripped.startswith(("ibpanic:", "ibwarn:")):
            if match := _DEVICE_FAILED.match(stripped):
                _refuse_read_and_failed(match["name"], listed.get(match["name"]), number_)
                failed.setdefault(match["name"], (stripped, number_))
            elif stripped.startswith("ibwarn:"):
                warnings.append(stripped)
            if stripped.startswith("ibpanic:"):
                panics.append((stripped, number_))
            port = None
            continue
        if stripped.startswith("CA '") and (match := _CA.match(stripped)):
            if match["name"] in listed:
                raise ParseError(
                    f"line {number_}: CA '{match['name']}' is listed twice (first on line "
                    f"{listed[match['name']]}: a duplicated capture)"
                )
            if match["name"] in failed:
                _refuse_read_and_failed(match["name"], failed[match["name"]][1], number_)
            listed[match["name"]] = number_
            devices.append({"name": match["name"], "ports": []})
            port = None
        elif not devices:
            continue  # a prompt, a banner or a warning before the first device
        elif stripped.startswith("Port ") and (match := _PORT.match(line)):
            port = {"port": int(match["port"])}
            devices[-1]["ports"].append(port)
        elif stripped.partition(":")[0] in _KEPT_KEYS and (match := _FIELD.match(line)):
            key, value = match["key"], match["value"].strip()
            if port is not None and key in _PORT_KEYS:
                port[_PORT_KEYS[key]] = to_number(value) if key == "Rate" else value
            elif port is None and key in _DEVICE_KEYS:
                devices[-1][_DEVICE_KEYS[key]] = to_number(value) if key == "Number of ports" else value
    if not devices and not failed:
        why = (
            f": line {panics[0][1]}: {panics[0][0]}"
            if panics
            else ": not ibstat output, or no RDMA device present"
        )
        raise ParseError(f"no \"CA '<name>'\" block found{why}")
    unnamed = next(((line, n) for line, n in panics if not _DEVICE_FAILED.match(line)), None)
    if unnamed is not None:
        raise ParseError(
            f"line {unnamed[1]}: ibstat stopped ({unnamed[0]!r}) without naming the device it could not "
            "read: the devices after it are missing (expected \"stat of IB device '<name>' failed\")"
        )
    _refuse_cut_capture(devices)
    return {
        "devices": devices,
        "failed_devices": [
            {"name": name, "error": line, "line": number_} for name, (line, number_) in failed.items()
        ],
        "warnings": warnings,
        "complete": not panics,
    }


def _refuse_read_and_failed(name: str, other_line: int | None, number_: int) -> None:
    if other_line is not None:
        raise ParseError(
            f"line {number_}: CA '{name}' is both listed and reported failed (line {other_line}): two "
            "captures in one"
        )


def _refuse_cut_capture(devices: list[dict[str, Any]]) -> None:
    # Every ibstat release prints `Port GUID` per port; releases with RoCE support end each port
    # with `Link layer`. A port missing what its capture's other ports have was cut.
    ports = [port for device in devices for port in device["ports"]]
    last_field = "link_layer" if any("link_layer" in port for port in ports) else "port_guid"
    for device in devices:
        cut = next((p for p in device["ports"] if last_field not in p or "port_guid" not in p), None)
        if cut is not None:
            missing = "Link layer" if last_field == "link_layer" and "port_guid" in cut else "Port GUID"
            raise ParseError(
                f"incomplete ibstat capture: CA '{device['name']}' port {cut['port']} has no '{missing}'"
            )
        expected = device.get("port_count")
        if isinstance(expected, int) and len(device["ports"]) < expected:
            raise ParseError(
                f"incomplete ibstat capture: CA '{device['name']}' lists {len(device['ports'])} of "
                f"{expected} ports"
            )
