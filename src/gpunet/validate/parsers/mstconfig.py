"""`mstconfig -d <dev> query [PARAM ...]` (mstflint; NVIDIA MFT's `mlxconfig` prints the same table).

Layout, from mstflint's mlxconfig/mlxcfg_ui.cpp (Mellanox/mstflint b9d9e84, `printOpening`,
`printConfHeader`, `printSingleParam`): per device a `Device #<n>:` line, a dashes line, then
`Device type:`, `Name:`, `Description:`, `Device:` (label and value), then the table header
`Configurations:` followed by its value columns (`Next Boot`, or with `-e` `Default  Current  Next
Boot`; a set prints a `New` column too; with `Default` absent the next-boot column may be labelled
`Default`). Each row: a `*` where the next value differs from the default or current one, `RO` for a
read-only one, the parameter name and one value per column: `OFF(0)`, `ALL(2)`, `True(1)` (the
label and the number), a plain number, `Array[0..7]`, or `N/A`. Errors go to stdout as `-E- <message>`
(`The Device doesn't support LLDP_NB_RX_MODE_P2 parameter` for a parameter the device lacks, which
ends the query without rows).

Returns {"devices": [{"index", "device_type", "name", "description", "device", "columns",
"parameters": {NAME: {column: value}}}]}, the columns lower-cased with `_` (`next_boot`).
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

_DEVICE = re.compile(r"^Device #(?P<index>\d+):\s*$")
_FIELD = re.compile(r"^(?P<label>Device type|Name|Description|Device):\s*(?P<value>.*?)\s*$")
_HEADER = re.compile(r"^Configurations:(?P<columns>.*)$")
_COLUMNS = {"Default", "Current", "Next Boot", "New"}
_ROW = re.compile(r"^(?P<flags>[* ](?:RO|  )?)\s+(?P<name>[A-Za-z][A-Za-z0-9_.\[\]]*)\s+(?P<values>\S.*)$")
_VALUE = re.compile(r"^(?P<label>.*)\((?P<number>-?\d+)\)$")
# The notes printed after the table (mlxcfg_ui.cpp, queryDevCfg) and warnings.
_NOTES = ("The '*' shows", "The 'RO' shows", "Device Firmware does not support reading", "-W-")


def parse_mstconfig_query(text: str) -> dict[str, Any]:
    devices: list[dict[str, Any]] = []
    device: dict[str, Any] | None = None
    columns: list[str] | None = None
    for number, line in enumerate(content_lines(text), 1):
        stripped = line.strip()
        if not stripped or set(stripped) == {"-"}:
            continue
        if stripped.startswith("-E-"):
            raise ParseError(f"line {number}: mstconfig failed: {stripped[3:].strip()}")
        if (match := _DEVICE.match(stripped)) is not None:
            device = {"index": int(match["index"]), "device_type": None, "name": None, "description": None}
            device |= {"device": None, "columns": [], "parameters": {}}
            devices.append(device)
            columns = None
            continue
        if device is None:
            continue  # before the first device: a shell prompt, a banner
        if (match := _HEADER.match(stripped)) is not None:
            labels = [label for label in re.split(r"\s{2,}", match["columns"].strip()) if label]
            if not labels or not set(labels) <= _COLUMNS:
                raise ParseError(
                    f"line {number}: 'Configurations:' header with columns {labels!r}, expected some of "
                    "Default, Current, Next Boot, New"
                )
            columns = [label.lower().replace(" ", "_") for label in labels]
            device["columns"] = columns
            continue
        if columns is None:
            if (match := _FIELD.match(stripped)) is not None:
                device[match["label"].lower().replace(" ", "_")] = match["value"]
            continue
        if stripped.startswith(_NOTES):
            continue
        match = _ROW.match(line)
        if match is None:
            raise ParseError(
                f"line {number}: not a 'NAME  VALUE' row of the configurations table: {stripped!r}"
            )
        values = match["values"].split()
        if len(values) != len(columns):
            raise ParseError(
                f"line {number}: {match['name']} has {len(values)} values for the {len(columns)} columns "
                f"{', '.join(columns)}"
            )
        if match["name"] in device["parameters"]:
            raise ParseError(f"line {number}: {match['name']} is listed twice for device #{device['index']}")
        device["parameters"][match["name"]] = dict(zip(columns, values, strict=True))
    if not devices:
        raise ParseError("no 'Device #<n>:' line: not mstconfig/mlxconfig query output")
    for device in devices:
        if not device["columns"]:
            raise ParseError(f"device #{device['index']} has no 'Configurations:' table")
    return {"devices": devices}


def value_number(value: str) -> int | None:
    """The number of a query value: 2 for `ALL(2)`, 0 for `False(0)`, 5 for `5`; None for `N/A`."""
    match = _VALUE.match(value)
    if match is not None:
        return int(match["number"])
    return int(value) if value.isdigit() else None
