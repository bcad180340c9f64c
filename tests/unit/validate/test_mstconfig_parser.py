"""The `mstconfig-query` parser (and `mstconfig-lldp`, verify_host's capture of it) against the
layout of real `mstconfig`/`mlxconfig -d <dev> query` output.

The layout (not the values, which are made up here) follows what public repositories hold of real
runs: the plain `Next Boot` table with 16-wide labels (`Device type:    ConnectX5`, an MFT 4.11
mlxconfig run in a DCQCN how-to), mstflint's current 20-wide labels and the `-e` table with
`Default  Current  Next Boot` columns (k8snetworkplumbingwg/sriov-network-operator, the mstconfig
fixtures of its mlxutils tests), and mstflint's own printers (Mellanox/mstflint b9d9e84,
mlxconfig/mlxcfg_ui.cpp: `printOpening`, `printConfHeader`, `printSingleParam`, and the `-E-` line
of a failed query such as a parameter the device lacks).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.parsers.mstconfig import value_number

OLD_LABELS = """
Device #1:
----------

Device type:    ConnectX5
Name:           N/A
Description:    N/A
Device:         /dev/mst/mt4119_pciconf0

Configurations:                              Next Boot
         NUM_OF_VFS                          4
         LLDP_NB_DCBX_P1                     False(0)
         LLDP_NB_RX_MODE_P1                  OFF(0)
         LLDP_NB_TX_MODE_P1                  OFF(0)
"""

VERBOSE = """
Device #1:
----------

Device type:        ConnectX6DX
Name:               MCX623106AN-CDA_Ax
Description:        ConnectX-6 Dx EN adapter card; 100GbE; Dual-port QSFP56
Device:             0000:3b:00.0

Configurations:                                          Default             Current             Next Boot
*        LLDP_NB_DCBX_P1                                 False(0)            False(0)            True(1)
         LLDP_NB_RX_MODE_P1                              OFF(0)              ALL(2)              ALL(2)
 RO      HOST_CHAINING_DESCRIPTORS                       Array[0..7]         Array[0..7]         Array[0..7]
         LLDP_NB_RX_MODE_P2                              OFF(0)              N/A                 OFF(0)
The '*' shows parameters with next value different from default/current value.

The 'RO' shows parameters which are for read only and cannot be changed
"""

# verify_host's capture: the P1 query, then the P2 rows of a second query appended without its header.
CAPTURE = """
Device #1:
----------

Device type:        ConnectX7
Name:               MCX75310AAS-NEA_Ax
Description:        NVIDIA ConnectX-7 HHHL adapter card; 400GbE / NDR IB
Device:             0000:c1:00.0

Configurations:                                          Next Boot
         LLDP_NB_RX_MODE_P1                              NEAREST_BRIDGE(1)
         LLDP_NB_TX_MODE_P1                              OFF(0)
         LLDP_NB_DCBX_P1                                 False(0)
         LLDP_NB_RX_MODE_P2                              OFF(0)
"""

TWO_DEVICES = OLD_LABELS + OLD_LABELS.replace("#1", "#2").replace("OFF(0)", "ALL(2)")


@pytest.mark.parametrize(
    ("tool", "text", "device", "field", "expected"),
    [
        ("mstconfig-query", OLD_LABELS, 0, "device_type", "ConnectX5"),
        ("mstconfig-query", OLD_LABELS, 0, "device", "/dev/mst/mt4119_pciconf0"),
        ("mstconfig-query", OLD_LABELS, 0, "columns", ["next_boot"]),
        ("mstconfig-query", OLD_LABELS, 0, "LLDP_NB_RX_MODE_P1", {"next_boot": "OFF(0)"}),
        ("mstconfig-query", OLD_LABELS, 0, "NUM_OF_VFS", {"next_boot": "4"}),
        ("mstconfig-query", VERBOSE, 0, "name", "MCX623106AN-CDA_Ax"),
        (
            "mstconfig-query",
            VERBOSE,
            0,
            "description",
            "ConnectX-6 Dx EN adapter card; 100GbE; Dual-port QSFP56",
        ),
        ("mstconfig-query", VERBOSE, 0, "columns", ["default", "current", "next_boot"]),
        (
            "mstconfig-query",
            VERBOSE,
            0,
            "LLDP_NB_DCBX_P1",
            {"default": "False(0)", "current": "False(0)", "next_boot": "True(1)"},
        ),
        (
            "mstconfig-query",
            VERBOSE,
            0,
            "HOST_CHAINING_DESCRIPTORS",
            {"default": "Array[0..7]", "current": "Array[0..7]", "next_boot": "Array[0..7]"},
        ),
        (
            "mstconfig-query",
            VERBOSE,
            0,
            "LLDP_NB_RX_MODE_P2",
            {"default": "OFF(0)", "current": "N/A", "next_boot": "OFF(0)"},
        ),
        ("mstconfig-lldp", CAPTURE, 0, "device", "0000:c1:00.0"),
        ("mstconfig-lldp", CAPTURE, 0, "LLDP_NB_RX_MODE_P1", {"next_boot": "NEAREST_BRIDGE(1)"}),
        ("mstconfig-lldp", CAPTURE, 0, "LLDP_NB_RX_MODE_P2", {"next_boot": "OFF(0)"}),
        ("mstconfig-query", TWO_DEVICES, 1, "index", 2),
        ("mstconfig-query", TWO_DEVICES, 1, "LLDP_NB_TX_MODE_P1", {"next_boot": "ALL(2)"}),
        ("mstconfig-query", TWO_DEVICES, 0, "LLDP_NB_TX_MODE_P1", {"next_boot": "OFF(0)"}),
    ],
)
def test_query_fields(tool: str, text: str, device: int, field: str, expected: Any) -> None:
    parsed = parse(tool, text)["devices"][device]
    assert (parsed[field] if field.islower() else parsed["parameters"][field]) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no 'Device #<n>:' line"),
        ("-E- Failed to open the device\n", "line 1: mstconfig failed: Failed to open the device"),
        (
            OLD_LABELS.split("Configurations")[0]
            + "-E- The Device doesn't support LLDP_NB_RX_MODE_P2 parameter\n",
            "line 10: mstconfig failed: The Device doesn't support LLDP_NB_RX_MODE_P2 parameter",
        ),
        (OLD_LABELS.split("Configurations")[0], "device #1 has no 'Configurations:' table"),
        (
            OLD_LABELS.replace("Next Boot", "Next Boot       Pending"),
            "line 10: 'Configurations:' header with columns ['Next Boot', 'Pending']",
        ),
        (
            OLD_LABELS.replace("False(0)", "False(0)    True(1)"),
            "line 12: LLDP_NB_DCBX_P1 has 2 values for the 1 columns next_boot",
        ),
        (
            OLD_LABELS + "         LLDP_NB_RX_MODE_P1                  ALL(2)\n",
            "line 15: LLDP_NB_RX_MODE_P1 is listed twice",
        ),
        (OLD_LABELS + "garbage after the table\n", "line 15: not a 'NAME  VALUE' row"),
    ],
)
def test_unreadable_output_names_the_line(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("mstconfig-query", text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ALL(2)", 2),
        ("OFF(0)", 0),
        ("True(1)", 1),
        ("NEAREST_BRIDGE(1)", 1),
        ("16", 16),
        ("N/A", None),
        ("Array[0..7]", None),
    ],
)
def test_value_number(value: str, expected: int | None) -> None:
    assert value_number(value) == expected
