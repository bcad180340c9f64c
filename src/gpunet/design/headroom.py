"""PFC headroom per lossless port, with the formula of the SONiC dynamic headroom design
(shared/reference/roce.md): what must fit in the buffer between sending PAUSE and the peer stopping."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from gpunet.design.platform_defaults import BufferParameters

FIBRE_NS_PER_METRE = 5
SMALL_PACKET_BYTES = 64
# Pause quanta (512 bit times each) a peer may still send after receiving PAUSE, per speed.
# 800G is not in the SONiC table: twice the 400G value is assumed (documented).
PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 1810}


@dataclass(frozen=True)
class Headroom:
    cable_bytes: int
    peer_response_bytes: int
    propagation_bytes: int
    cell_occupancy: float
    xoff_bytes: int  # headroom that absorbs what arrives after PAUSE is sent
    xon_bytes: int  # resume threshold
    size_bytes: int  # headroom buffer reserved per port and priority: xoff + xon


@cache
def compute_headroom(speed_gbps: int, mtu: int, cable_length_m: int, buffer: BufferParameters) -> Headroom:
    """Cached: a fabric has few distinct (speed, MTU, cable, ASIC) combinations."""
    cable_bytes = math.ceil(cable_length_m * FIBRE_NS_PER_METRE * speed_gbps / 8)  # ns * Gb/s = bits
    peer_response = PAUSE_QUANTA[speed_gbps] * 512 // 8
    propagation = mtu + 2 * cable_bytes + buffer.mac_phy_delay_bytes + peer_response
    occupancy = cell_occupancy(buffer.cell_bytes, buffer.small_packet_percent)
    xoff = mtu + math.ceil(propagation * occupancy)
    xon = 2 * mtu
    return Headroom(
        cable_bytes=cable_bytes,
        peer_response_bytes=peer_response,
        propagation_bytes=propagation,
        cell_occupancy=occupancy,
        xoff_bytes=xoff,
        xon_bytes=xon,
        size_bytes=xoff + xon,
    )


def cell_occupancy(cell_bytes: int, small_packet_percent: int) -> float:
    """How much buffer a byte of worst-case traffic takes: a 64-byte packet fills whole cells."""
    worst_case_factor = math.ceil(SMALL_PACKET_BYTES / cell_bytes) * cell_bytes / SMALL_PACKET_BYTES
    return (100 - small_packet_percent + small_packet_percent * worst_case_factor) / 100
