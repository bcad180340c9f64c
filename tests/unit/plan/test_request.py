"""Planner input: defaults, conversions, and an error naming each bad field."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from gpunet.plan.request import (
    Distances,
    PlanInputError,
    build_request,
    load_request_file,
    parse_cost_factors,
    parse_ratio,
)


def test_defaults() -> None:
    request = build_request({"gpus": 256})
    assert (request.nodes, request.nics, request.switch_radix, request.nic_speed_gbps) == (32, 256, 64, 400)
    assert request.oversubscription == 1 and request.rail_optimised and request.tiers == "auto"
    assert dict(request.cost_factors) == {"dac": 1.0, "aoc": 1.5, "optics": 2.2}


def test_yaml_style_values_convert() -> None:
    request = build_request(
        {
            "gpus": 64,
            "oversubscription": "3:1",
            "rail_optimised": "no",
            "tiers": 3,
            "distances": {"cross_rack_m": 40},
            "cost_factors": {"aoc": 1.2},
        }
    )
    assert request.oversubscription == Fraction(3)
    assert request.rail_optimised is False and request.tiers == "3"
    assert request.distances == Distances(cross_rack_m=40)
    assert dict(request.cost_factors) == {"dac": 1.0, "aoc": 1.2, "optics": 2.2}


BAD_VALUES = [
    ({}, "plan.gpus", "is required"),
    ({"gpus": 0}, "plan.gpus", "whole number"),
    ({"gpus": 12}, "plan.gpus", "multiple of gpus_per_node"),
    ({"gpus": 8, "switch_radix": 63}, "plan.switch_radix", "must be even"),
    ({"gpus": 8, "nic_speed_gbps": 300}, "plan.nic_speed_gbps", "not a supported speed"),
    ({"gpus": 8, "tiers": 4}, "plan.tiers", "not a tier count"),
    ({"gpus": 8, "oversubscription": "1:3"}, "plan.oversubscription", "undersubscribed"),
    ({"gpus": 8, "oversubscription": "fast"}, "plan.oversubscription", "DOWN:UP"),
    ({"gpus": 8, "rail_optimised": "maybe"}, "plan.rail_optimised", "yes or no"),
    ({"gpus": 8, "intra_node_gbps": -1}, "plan.intra_node_gbps", "positive"),
    ({"gpus": 8, "distances": {"cable_m": 3}}, "plan.distances.cable_m", "not a distance field"),
    ({"gpus": 8, "distances": {"dac_max_m": 200}}, "plan.distances.dac_max_m", "must not exceed aoc_max_m"),
    ({"gpus": 8, "cost_factors": {"copper": 1}}, "plan.cost_factors.copper", "not a reach class"),
    ({"gpus": 8, "cost_factors": {"dac": -1}}, "plan.cost_factors.dac", "non-negative"),
    ({"gpus": 8, "gpu": 8}, "plan.gpu", "not a planner field"),
    ({"gpus": 128, "gpus_per_node": 128}, "plan.gpus_per_node", "whole number"),
    ({"gpus": 8, "name": "my fabric"}, "plan.name", "not a fabric name"),
    ({"gpus": 8, "platform": "ios"}, "plan.platform", "unknown platform"),
    ({"gpus": 8, "mgmt_pool": 10}, "plan.mgmt_pool", "non-empty string"),
]


@pytest.mark.parametrize(("values", "path", "message"), BAD_VALUES)
def test_bad_values_name_the_field(values: dict, path: str, message: str) -> None:
    with pytest.raises(PlanInputError) as caught:
        build_request(values)
    assert any(p.path == path and message in p.message for p in caught.value.problems), caught.value.problems


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(PlanInputError) as caught:
        build_request({"gpus": -1, "tiers": 9, "switch_radix": 3})
    assert {p.path for p in caught.value.problems} == {"plan.gpus", "plan.tiers", "plan.switch_radix"}


@pytest.mark.parametrize(
    ("text", "ratio"), [("1:1", Fraction(1)), ("3:1", Fraction(3)), ("5:3", Fraction(5, 3))]
)
def test_parse_ratio(text: str, ratio: Fraction) -> None:
    assert parse_ratio(text) == ratio


def test_parse_cost_factors() -> None:
    assert parse_cost_factors("dac=1, optics=3.5") == {"dac": 1.0, "optics": 3.5}
    with pytest.raises(ValueError):
        parse_cost_factors("dac=cheap")


def test_request_file(tmp_path: Path) -> None:
    good = tmp_path / "plan.yml"
    good.write_text("gpus: 64\nswitch_radix: 32\n")
    assert build_request(load_request_file(good)).switch_radix == 32
    bad = tmp_path / "list.yml"
    bad.write_text("- 1\n")
    with pytest.raises(PlanInputError, match="mapping of planner fields"):
        load_request_file(bad)
    with pytest.raises(PlanInputError, match="cannot be read"):
        load_request_file(tmp_path / "missing.yml")
