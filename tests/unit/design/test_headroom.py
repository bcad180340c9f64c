"""PFC headroom: a hand-computed case, and how it must move with cable, speed, MTU and cell size."""

from __future__ import annotations

import pytest

from gpunet.design.headroom import PAUSE_QUANTA, cell_occupancy, compute_headroom
from gpunet.design.platform_defaults import BufferParameters

BROADCOM_LIKE = BufferParameters(
    cell_bytes=256, mac_phy_delay_bytes=1024, small_packet_percent=100, queue_buffer_bytes=1 << 24
)


def test_a_hand_computed_case() -> None:
    # 100G, 100 m, MTU 9216, 256-byte cells, all small packets:
    # cable = 100 m * 5 ns/m * 100 Gb/s / 8 = 6250 B; peer response = 394 quanta * 64 B = 25216 B;
    # propagation = 9216 + 2 * 6250 + 1024 + 25216 = 47956 B; occupancy = 256/64 = 4;
    # xoff = 9216 + 4 * 47956 = 201040 B; xon = 2 * 9216 = 18432 B; size = 219472 B.
    headroom = compute_headroom(100, 9216, 100, BROADCOM_LIKE)
    assert (headroom.cable_bytes, headroom.peer_response_bytes, headroom.propagation_bytes) == (
        6250,
        25216,
        47956,
    )
    assert (headroom.xoff_bytes, headroom.xon_bytes, headroom.size_bytes) == (201040, 18432, 219472)


@pytest.mark.parametrize(
    ("cell", "small_percent", "expected"),
    [
        (64, 100, 1.0),
        (96, 100, 1.5),
        (144, 100, 2.25),
        (256, 100, 4.0),
        (256, 0, 1.0),
        (256, 50, 2.5),
        (32, 100, 1.0),
    ],
)
def test_cell_occupancy(cell: int, small_percent: int, expected: float) -> None:
    assert cell_occupancy(cell, small_percent) == pytest.approx(expected)


@pytest.mark.parametrize("speed", sorted(PAUSE_QUANTA))
def test_headroom_grows_with_cable_length(speed: int) -> None:
    xoffs = [
        compute_headroom(speed, 9216, cable, BROADCOM_LIKE).xoff_bytes for cable in (1, 3, 10, 100, 1000)
    ]
    assert xoffs == sorted(xoffs) and len(set(xoffs)) == len(xoffs)


@pytest.mark.parametrize("cable", [1, 30, 300])
def test_headroom_grows_with_speed(cable: int) -> None:
    xoffs = [compute_headroom(speed, 9216, cable, BROADCOM_LIKE).xoff_bytes for speed in sorted(PAUSE_QUANTA)]
    assert xoffs == sorted(xoffs) and len(set(xoffs)) == len(xoffs)


def test_headroom_grows_with_mtu_and_xon_follows_mtu() -> None:
    small, large = (compute_headroom(400, mtu, 10, BROADCOM_LIKE) for mtu in (1500, 9216))
    assert small.xoff_bytes < large.xoff_bytes
    assert (small.xon_bytes, large.xon_bytes) == (3000, 18432)
    assert large.size_bytes == large.xoff_bytes + large.xon_bytes


def test_smaller_cells_need_less_headroom() -> None:
    cells = [256, 144, 96, 64]
    xoffs = [
        compute_headroom(400, 9216, 10, BufferParameters(cell, 1024, 100, 1 << 24)).xoff_bytes
        for cell in cells
    ]
    assert xoffs == sorted(xoffs, reverse=True)
