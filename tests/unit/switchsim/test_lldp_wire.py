"""The LLDP frames a lab switch sends down its host links: the IEEE 802.1AB layout, which NIC
hears which port (cabling faults applied), and a send that fails without stopping the others.

The layout is read here field by field as 802.1AB-2016 clause 8 defines it (not with the
module's own encoder); the lab e2e test (tests/e2e/test_lab.py) has the real lldpd read them.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from gpunet.lab.switchsim.lldp_wire import LldpWire, frames_to_send, lldp_frame, read_wires
from gpunet.lab.switchsim.personalities.lldp import chassis_mac
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimOptions, SimulatedSwitch


def tlvs(frame: bytes) -> list[tuple[int, bytes]]:
    """(type, value) of each TLV up to and including End, per 802.1AB 8.4 (7-bit type, 9-bit length)."""
    assert frame[:6] == bytes.fromhex("0180c200000e"), "not the nearest-bridge group address"
    assert frame[12:14] == b"\x88\xcc", "not EtherType 88-CC"
    found, offset = [], 14
    while True:
        (header,) = struct.unpack_from("!H", frame, offset)
        kind, length = header >> 9, header & 0x1FF
        found.append((kind, frame[offset + 2 : offset + 2 + length]))
        offset += 2 + length
        if kind == 0:
            return found


@pytest.mark.parametrize(
    ("system", "port", "ttl"),
    [("leaf01", "swp1", 12), ("leaf08", "et-0/0/12:1", 120), ("sonic-leaf-17", "Ethernet248", 0)],
)
def test_frame_has_the_mandatory_tlvs_in_order(system: str, port: str, ttl: int) -> None:
    frame = lldp_frame(system, port, ttl)
    mac = bytes.fromhex(chassis_mac(system, ""))
    assert len(frame) >= 60, "shorter than the Ethernet minimum"
    assert frame[6:12] == mac, "source address is not the chassis MAC"
    assert tlvs(frame) == [
        (1, b"\x04" + mac),  # Chassis ID, subtype 4: MAC address
        (2, b"\x05" + port.encode()),  # Port ID, subtype 5: interface name
        (3, struct.pack("!H", ttl)),  # Time To Live
        (4, port.encode()),  # Port Description
        (5, system.encode()),  # System Name
        (0, b""),  # End of LLDPDU
    ]


def leaf(options: SimOptions | None = None) -> SimulatedSwitch:
    state = SwitchState(
        "cumulus",
        "leaf01",
        ports=["swp1", "swp2", "swp3", "swp31"],
        neighbours={
            "swp1": ["gpu01", "rail0"],
            "swp2": ["gpu02", "rail0"],
            "swp3": ["gpu03", "rail0"],
            "swp31": ["spine01", "Ethernet1"],
        },
    )
    return SimulatedSwitch(state, options or SimOptions())


WIRES = {"gpu01": {"rail0": "veth-a"}, "gpu02": {"rail0": "veth-b"}, "gpu03": {"rail0": "veth-c"}}


def heard(switch: SimulatedSwitch, wires: dict[str, dict[str, str]] = WIRES) -> dict[str, str]:
    """device -> the port its frame names."""
    return {device: dict(tlvs(frame))[2][1:].decode() for device, frame in frames_to_send(switch, wires)}


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (SimOptions(), {"veth-a": "swp1", "veth-b": "swp2", "veth-c": "swp3"}),
        # the two cables exchanged: gpu01's NIC now ends in swp2, gpu02's in swp1
        (SimOptions(lldp_swap="swp1,swp2"), {"veth-a": "swp2", "veth-b": "swp1", "veth-c": "swp3"}),
        # swp3 pulled: gpu03 hears nothing
        (SimOptions(lldp_neighbour=["swp3="]), {"veth-a": "swp1", "veth-b": "swp2"}),
        # gpu03's cable moved into swp2 (and gpu02's out): gpu03 hears swp2 and swp3 is empty
        (
            SimOptions(lldp_neighbour=["swp2=gpu03:rail0", "swp3="]),
            {"veth-a": "swp1", "veth-c": "swp2"},
        ),
    ],
    ids=["as-planned", "swap", "pulled", "moved"],
)
def test_each_nic_hears_the_port_its_cable_ends_in(options: SimOptions, expected: dict[str, str]) -> None:
    assert heard(leaf(options)) == expected


def test_nics_without_a_wire_and_switch_links_get_no_frame() -> None:
    assert heard(leaf(), {"gpu02": {"rail0": "veth-b"}, "spine01": {}}) == {"veth-b": "swp2"}


def test_a_failing_device_is_logged_once_and_the_others_still_get_frames() -> None:
    sent: list[str] = []
    logged: list[str] = []

    def send(device: str, frame: bytes) -> None:
        if device == "veth-b":
            raise OSError(19, "No such device")
        sent.append(device)

    wire = LldpWire(leaf(), WIRES, logged.append, send)
    assert wire.send_once() == 2
    assert wire.send_once() == 2
    assert sent == ["veth-a", "veth-c"] * 2
    assert logged == ["lldp-wire: cannot send on veth-b: [Errno 19] No such device"]


@pytest.mark.parametrize(
    "text",
    ['["gpu01"]', '{"gpu01": ["rail0"]}', '{"gpu01": {"rail0": 3}}', "not json"],
)
def test_a_malformed_wires_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "wires.json"
    path.write_text(text)
    with pytest.raises(ValueError):
        read_wires(path)


def test_a_wires_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "wires.json"
    path.write_text(json.dumps(WIRES))
    assert read_wires(path) == WIRES
