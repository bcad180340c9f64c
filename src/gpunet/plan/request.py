"""What the operator asks the planner for: a checked PlanRequest built from CLI flags and/or YAML.

Every field has a documented default; unknown or mistyped fields are errors that name the field.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from gpunet.model.errors import Problem
from gpunet.model.yaml_bounds import YamlRefused, safe_load
from gpunet.platforms import PLATFORMS, known_platforms

NIC_SPEEDS_GBPS = (10, 25, 40, 50, 100, 200, 400, 800)  # the inventory schema's speed_gbps values
REACH_CLASSES = ("dac", "aoc", "optics")
# Relative cost of one link per reach class (copper, active optical cable, transceivers + fibre).
DEFAULT_COST_FACTORS = {"dac": 1.0, "aoc": 1.5, "optics": 2.2}


class PlanInputError(ValueError):
    """The request is invalid or no design satisfies it; `problems` names every field at fault."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Distances:
    """Cable lengths in metres per kind of link, and the longest cable each reach class covers."""

    in_rack_m: int = 2  # GPU node to a leaf in its own rack
    cross_rack_m: int = 20  # GPU node to a leaf in another rack of its row
    leaf_spine_m: int = 30
    spine_superspine_m: int = 150  # across rows or halls
    dac_max_m: int = 3  # passive copper reach at 400G
    aoc_max_m: int = 100  # active optical cable reach; longer needs transceivers and fibre


@dataclass(frozen=True)
class PlanRequest:
    gpus: int
    gpus_per_node: int = 8
    nics_per_node: int = 8
    nic_speed_gbps: int = 400
    switch_radix: int = 64  # ports at the NIC speed (a breakout port counts as several)
    tiers: str = "auto"  # auto, 1 (a single switch), 2 or 3
    oversubscription: Fraction = Fraction(1)  # leaf downlink : uplink capacity
    rail_optimised: bool = True
    rack_size: int = 4  # GPU nodes per rack
    intra_node_gbps: float = 3600.0  # per-GPU NVLink bandwidth, one direction (H100: 450 GB/s)
    distances: Distances = field(default_factory=Distances)
    cost_factors: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_COST_FACTORS))

    @property
    def nodes(self) -> int:
        return self.gpus // self.gpus_per_node

    @property
    def nics(self) -> int:
        return self.nodes * self.nics_per_node

    def with_design(self, tiers: int, rail_optimised: bool) -> PlanRequest:
        return dataclasses.replace(self, tiers=str(tiers), rail_optimised=rail_optimised)


def parse_ratio(text: str) -> Fraction:
    """'3:1' -> 3; the ratio of leaf downlink to uplink capacity, at least 1:1."""
    parts = str(text).split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise ValueError("expected DOWN:UP with positive integers, e.g. 1:1 or 3:1")
    ratio = Fraction(int(parts[0]), int(parts[1]))
    if ratio < 1:
        raise ValueError("an undersubscribed leaf (more up than down) wastes ports; use 1:1 or more")
    return ratio


def format_ratio(ratio: Fraction) -> str:
    return f"{ratio.numerator}:{ratio.denominator}"


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "true", "on", "1"):
        return True
    if text in ("no", "false", "off", "0"):
        return False
    raise ValueError("expected yes or no")


def parse_cost_factors(text: str) -> dict[str, float]:
    """'dac=1,aoc=1.4' -> {'dac': 1.0, 'aoc': 1.4}."""
    factors: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        factors[name.strip()] = float(value)
    return factors


# Whole-number fields and their valid range; per-node limits are the inventory schema's.
_INT_FIELDS = {
    "gpus": (1, 1_000_000),
    "gpus_per_node": (1, 64),
    "nics_per_node": (1, 64),
    "switch_radix": (4, 1024),
    "rack_size": (1, 1024),
}
REQUEST_FIELDS = (
    *_INT_FIELDS,
    "nic_speed_gbps",
    "tiers",
    "oversubscription",
    "rail_optimised",
    "intra_node_gbps",
    "distances",
    "cost_factors",
)
INVENTORY_FIELDS = ("name", "platform", "gpu_model", "mgmt_pool", "fabric_pool")


def build_request(values: Mapping[str, Any], source: str = "plan") -> PlanRequest:
    """A PlanRequest from plain values (YAML or CLI); raises PlanInputError naming every bad field."""
    problems: list[Problem] = []
    unknown = sorted(set(values) - set(REQUEST_FIELDS) - set(INVENTORY_FIELDS))
    for key in unknown:
        problems.append(
            Problem(f"{source}.{key}", "is not a planner field", expected=", ".join(REQUEST_FIELDS))
        )
    checked: dict[str, Any] = {}
    for key, (minimum, maximum) in _INT_FIELDS.items():
        if key in values:
            value = values[key]
            if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
                problems.append(
                    Problem(f"{source}.{key}", "must be a whole number", value, f"{minimum}..{maximum}")
                )
            else:
                checked[key] = value
    problems.extend(_inventory_field_problems(values, source))
    if "gpus" not in values:
        problems.append(Problem(f"{source}.gpus", "is required", expected="the number of GPUs to connect"))
    if "switch_radix" in checked and checked["switch_radix"] % 2:
        problems.append(
            Problem(f"{source}.switch_radix", "must be even", checked["switch_radix"], "e.g. 32, 64, 128")
        )
    if "nic_speed_gbps" in values:
        if values["nic_speed_gbps"] in NIC_SPEEDS_GBPS:
            checked["nic_speed_gbps"] = values["nic_speed_gbps"]
        else:
            problems.append(
                Problem(
                    f"{source}.nic_speed_gbps",
                    "is not a supported speed",
                    values["nic_speed_gbps"],
                    NIC_SPEEDS_GBPS,
                )
            )
    if "tiers" in values:
        tiers = str(values["tiers"])
        if tiers in ("auto", "1", "2", "3"):
            checked["tiers"] = tiers
        else:
            problems.append(
                Problem(f"{source}.tiers", "is not a tier count", values["tiers"], "auto, 1, 2 or 3")
            )
    _convert(values, checked, problems, source, "oversubscription", parse_ratio)
    _convert(values, checked, problems, source, "rail_optimised", parse_bool)
    if "intra_node_gbps" in values:
        value = values["intra_node_gbps"]
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            problems.append(Problem(f"{source}.intra_node_gbps", "must be a positive number", value, "Gb/s"))
        else:
            checked["intra_node_gbps"] = float(value)
    if "distances" in values:
        checked["distances"] = _distances(values["distances"], f"{source}.distances", problems)
    if "cost_factors" in values:
        checked["cost_factors"] = _cost_factors(values["cost_factors"], f"{source}.cost_factors", problems)
    if not problems:
        gpus, per_node = checked["gpus"], checked.get("gpus_per_node", PlanRequest.gpus_per_node)
        if gpus % per_node:
            problems.append(
                Problem(
                    f"{source}.gpus", f"is not a multiple of gpus_per_node ({per_node})", gpus, "whole nodes"
                )
            )
    if problems:
        raise PlanInputError(problems)
    return PlanRequest(**checked)


FABRIC_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")  # as in fabric.schema.json


def _inventory_field_problems(values: Mapping[str, Any], source: str) -> list[Problem]:
    """The --write-inventory fields, checked up front so a bad one is an input error."""
    problems = []
    for key in INVENTORY_FIELDS:
        if key in values and (not isinstance(values[key], str) or not values[key]):
            problems.append(Problem(f"{source}.{key}", "must be a non-empty string", values[key]))
    name = values.get("name")
    if isinstance(name, str) and name and not FABRIC_NAME.match(name):
        problems.append(Problem(f"{source}.name", "is not a fabric name", name, FABRIC_NAME.pattern))
    platform = values.get("platform")
    if isinstance(platform, str) and platform and platform not in PLATFORMS:
        problems.append(
            Problem(f"{source}.platform", "unknown platform", platform, ", ".join(known_platforms()))
        )
    return problems


def _convert(
    values: Mapping[str, Any], checked: dict[str, Any], problems: list[Problem], source: str, key: str, parse
) -> None:
    if key not in values:
        return
    try:
        checked[key] = parse(values[key])
    except ValueError as error:
        problems.append(Problem(f"{source}.{key}", str(error), values[key]))


def _distances(value: Any, path: str, problems: list[Problem]) -> Distances:
    names = [f.name for f in dataclasses.fields(Distances)]
    if not isinstance(value, Mapping):
        problems.append(Problem(path, "must be a mapping", value, ", ".join(names)))
        return Distances()
    good: dict[str, int] = {}
    for key, metres in value.items():
        if key not in names:
            problems.append(Problem(f"{path}.{key}", "is not a distance field", expected=", ".join(names)))
        elif isinstance(metres, bool) or not isinstance(metres, int) or not 1 <= metres <= 40000:
            problems.append(Problem(f"{path}.{key}", "must be whole metres", metres, "1..40000"))
        else:
            good[key] = metres
    distances = Distances(**good)
    if distances.dac_max_m > distances.aoc_max_m:
        problems.append(
            Problem(
                f"{path}.dac_max_m", "must not exceed aoc_max_m", distances.dac_max_m, distances.aoc_max_m
            )
        )
    return distances


def _cost_factors(value: Any, path: str, problems: list[Problem]) -> dict[str, float]:
    factors = dict(DEFAULT_COST_FACTORS)
    if not isinstance(value, Mapping):
        problems.append(Problem(path, "must be a mapping", value, "dac, aoc, optics"))
        return factors
    for key, factor in value.items():
        if key not in REACH_CLASSES:
            problems.append(
                Problem(f"{path}.{key}", "is not a reach class", expected=", ".join(REACH_CLASSES))
            )
        elif isinstance(factor, bool) or not isinstance(factor, int | float) or factor < 0:
            problems.append(Problem(f"{path}.{key}", "must be a non-negative number", factor))
        else:
            factors[key] = float(factor)
    return factors


def load_request_file(path: str | Path, holds: str = "planner fields") -> dict[str, Any]:
    """The mapping in a YAML (or JSON) file: a request (same names as the CLI flags, with
    underscores) or a distances file."""
    path = Path(path)
    try:
        data = safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise PlanInputError([Problem(str(path), f"cannot be read: {error}".splitlines()[0])]) from None
    except YamlRefused as error:  # an alias bomb: refused before it is walked (issue 34)
        where = f"{path}:{error.line}" if error.line else str(path)
        raise PlanInputError([Problem(where, str(error))]) from None
    if not isinstance(data, dict):
        raise PlanInputError([Problem(str(path), f"must hold a mapping of {holds}", type(data).__name__)])
    return data


def check_platform(name: str, path: str = "plan.platform") -> None:
    if name not in PLATFORMS:
        raise PlanInputError(
            [Problem(path, "unknown platform", name, f"one of {', '.join(known_platforms())}")]
        )
