"""Cabling bill of materials: reach class by length and placement, cost factors, port totals."""

from __future__ import annotations

import pytest

from gpunet.plan.cabling import bill_of_materials
from gpunet.plan.fattree import build_topology, reach_class
from gpunet.plan.request import Distances, build_request


@pytest.mark.parametrize(
    ("length", "reach"), [(1, "dac"), (3, "dac"), (4, "aoc"), (100, "aoc"), (101, "optics")]
)
def test_reach_class_by_length(length: int, reach: str) -> None:
    assert reach_class(length, Distances()) == reach


def rows(values: dict, tiers: int, rail: bool) -> dict[str, tuple[int, float, tuple[str, ...]]]:
    bom = bill_of_materials(build_topology(build_request(values), tiers, rail))
    return {row.reach: (row.links, row.relative_cost, row.used_for) for row in bom.rows}


# request, tiers, rail-optimised -> {reach: (links, relative cost, link kinds)}
CASES = [
    # top-of-rack: 4 nodes per leaf and per rack, so node cables stay in the rack (DAC)
    (
        {"gpus": 256},
        2,
        False,
        {"dac": (256, 256.0, ("host-leaf",)), "aoc": (256, 384.0, ("leaf-spine",))},
    ),
    # rail-optimised: a leaf serves 32 nodes in 8 racks, so node cables cross racks (AOC)
    ({"gpus": 256}, 2, True, {"aoc": (512, 768.0, ("host-leaf", "leaf-spine"))}),
    # a whole SU in one rack keeps rail-optimised cabling in the rack
    (
        {"gpus": 64, "rack_size": 8},
        2,
        True,
        {"dac": (64, 64.0, ("host-leaf",)), "aoc": (64, 96.0, ("leaf-spine",))},
    ),
    # three tiers: the spine to super-spine run needs long-reach optics; overridden cost factor
    (
        {"gpus": 256, "cost_factors": {"optics": 3.0}},
        3,
        False,
        {
            "dac": (256, 256.0, ("host-leaf",)),
            "aoc": (256, 384.0, ("leaf-spine",)),
            "optics": (256, 768.0, ("spine-superspine",)),
        },
    ),
    # longer rack-to-rack runs beyond AOC reach become optics
    (
        {"gpus": 256, "distances": {"leaf_spine_m": 150}},
        2,
        False,
        {"dac": (256, 256.0, ("host-leaf",)), "optics": (256, 563.2, ("leaf-spine",))},
    ),
]


@pytest.mark.parametrize(("values", "tiers", "rail", "expected"), CASES)
def test_bill_of_materials(values: dict, tiers: int, rail: bool, expected: dict) -> None:
    got = rows(values, tiers, rail)
    assert got.keys() == expected.keys()
    for reach, (links, cost, kinds) in expected.items():
        assert got[reach][0] == links
        assert got[reach][1] == pytest.approx(cost)
        assert got[reach][2] == kinds


def test_totals_count_ports_and_transceivers() -> None:
    bom = bill_of_materials(build_topology(build_request({"gpus": 256}), 3, True))
    assert bom.nic_ports == 256
    assert bom.switch_ports_used == 2 * bom.links - bom.nic_ports
    # 8 rail leaves, 8 pod spines, 2 super-spines per plane (never one: redundancy) x 8 planes
    assert bom.switch_ports_total == (8 + 8 + 16) * 64
    optics = next(row for row in bom.rows if row.reach == "optics")
    assert optics.transceivers == 2 * optics.links
    assert bom.relative_cost == pytest.approx(sum(row.relative_cost for row in bom.rows))
