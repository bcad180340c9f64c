"""Real LLDP frames from a simulated switch onto the lab's host links.

LAB EQUIPMENT: a simulated switch has no port to send from. In the lab each host NIC is a veth
whose far end sits in the lab machine's own network namespace, on the rail's bridge; this module
sends, out of that far end, the LLDPDU the switch port cabled to the NIC would send, so the host's
real lldpd (roles/lldpd) learns its neighbour from a real frame and `lldpctl -f json` prints it as
it would on a cabled server. Which port reaches which NIC comes from the simulator's neighbour table
with its cabling faults applied (personalities.lldp.neighbours): with two ports' cables swapped, each
NIC hears the other port, as on a miswired rack.

Frame layout: IEEE 802.1AB-2016 clause 8 (TLV header of a 7-bit type and a 9-bit length; Chassis
ID, Port ID and TTL first, End last), sent to the nearest-bridge address 01-80-C2-00-00-0E with
EtherType 88-CC, which is what lldpd's receive filter takes ("ether proto 0x88cc and ether dst
01:80:c2:00:00:0e", lldpd src/daemon/interfaces-linux.c). A bridge never forwards that address,
so a frame sent on a bridge port's device goes out of that port only. Written here rather than with
a packet library: five fixed TLVs, and the test reads them back with the real lldpd.

The TTL is short (TTL_S): a fault restarts the simulator, and a host must forget the old neighbour
within seconds, not the 120 s a real switch advertises.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path

from gpunet.lab.switchsim.personalities.lldp import chassis_mac, neighbours
from gpunet.lab.switchsim.switch import SimulatedSwitch

NEAREST_BRIDGE = bytes.fromhex("0180c200000e")
ETHERTYPE_LLDP = 0x88CC
CHASSIS_ID, PORT_ID, TIME_TO_LIVE, PORT_DESCRIPTION, SYSTEM_NAME, END = 1, 2, 3, 4, 5, 0
CHASSIS_SUBTYPE_MAC = 4  # 802.1AB Table 8-2: MAC address
PORT_SUBTYPE_IFNAME = 5  # 802.1AB Table 8-3: interface name
MIN_FRAME = 60  # Ethernet minimum without the FCS
INTERVAL_S = 4.0
TTL_S = 12

# host -> NIC netdev -> the veth end in the lab machine's namespace (gpunet.lab.nodes.host_link_devices)
Wires = dict[str, dict[str, str]]


def tlv(kind: int, value: bytes) -> bytes:
    if not 0 <= kind < 128 or len(value) > 511:
        raise ValueError(f"LLDP TLV type {kind} with {len(value)} bytes does not fit its header")
    return struct.pack("!H", kind << 9 | len(value)) + value


def lldp_frame(system_name: str, port: str, ttl_s: int = TTL_S) -> bytes:
    """The Ethernet frame a switch named `system_name` sends out of `port`."""
    mac = bytes.fromhex(chassis_mac(system_name, ""))
    name, port_name = system_name.encode(), port.encode()
    body = (
        tlv(CHASSIS_ID, bytes([CHASSIS_SUBTYPE_MAC]) + mac)
        + tlv(PORT_ID, bytes([PORT_SUBTYPE_IFNAME]) + port_name)
        + tlv(TIME_TO_LIVE, struct.pack("!H", ttl_s))
        + tlv(PORT_DESCRIPTION, port_name)
        + tlv(SYSTEM_NAME, name)
        + tlv(END, b"")
    )
    frame = NEAREST_BRIDGE + mac + struct.pack("!H", ETHERTYPE_LLDP) + body
    return frame.ljust(MIN_FRAME, b"\0")


def frames_to_send(switch: SimulatedSwitch, wires: Wires) -> list[tuple[str, bytes]]:
    """(device to send on, frame) for every host NIC a port of `switch` is cabled to."""
    name = switch.state.hostname
    sends = []
    for port, device, far_port in neighbours(switch):
        wire = wires.get(device, {}).get(far_port)
        if wire:
            sends.append((wire, lldp_frame(name, port)))
    return sends


def read_wires(path: Path) -> Wires:
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not all(
        isinstance(nics, dict) and all(isinstance(v, str) for v in nics.values()) for nics in data.values()
    ):
        raise ValueError(f"{path}: expected {{host: {{netdev: device}}}}")
    return data


def send_raw(device: str, frame: bytes) -> None:
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as raw:
        raw.bind((device, 0))
        raw.send(frame)


class LldpWire:
    """Sends the switch's frames every INTERVAL_S until `stop` is set (a daemon thread)."""

    def __init__(
        self,
        switch: SimulatedSwitch,
        wires: Wires,
        log: Callable[[str], None],
        send: Callable[[str, bytes], None] = send_raw,
    ) -> None:
        self.switch, self.wires, self.log, self.send = switch, wires, log, send
        self.failing: set[str] = set()

    def send_once(self) -> int:
        sent = 0
        for device, frame in frames_to_send(self.switch, self.wires):
            try:
                self.send(device, frame)
            except OSError as error:
                if device not in self.failing:  # once per device: a log line every 4 s helps nobody
                    self.log(f"lldp-wire: cannot send on {device}: {error}")
                self.failing.add(device)
                continue
            self.failing.discard(device)
            sent += 1
        return sent

    def start(self, stop: threading.Event) -> threading.Thread:
        def loop() -> None:
            while True:
                self.send_once()
                if stop.wait(INTERVAL_S):
                    return

        thread = threading.Thread(target=loop, name="lldp-wire", daemon=True)
        thread.start()
        return thread
