"""The switch hardware model table (models.yml): one row per model, each with its vendor sources."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from gpunet.hardware.physical import Physical, PlatformPorts, parse_mode


@dataclass(frozen=True)
class PgLookupRow:
    """One row of a SONiC SKU's pg_profile_lookup.ini (bytes; speed in Mb/s, cable in metres)."""

    speed_mbps: int
    cable_m: int
    size: int
    xon: int
    xoff: int
    threshold: int
    xon_offset: int | None


@dataclass(frozen=True)
class SwitchModel:
    name: str
    title: str
    vendor: str
    asic: str
    asic_family: str
    platforms: tuple[str, ...]
    ports: int
    max_breakout: int
    speeds_gbps: tuple[int, ...]
    buffer_bytes: int
    cell_bytes: int
    sources: tuple[str, ...]
    assumed: tuple[str, ...] = ()
    eos_queue_keyword: str | None = None
    sonic_buffer_semantics: str | None = None
    sonic_buffer_model: str | None = None
    sonic_pg_lookup: tuple[PgLookupRow, ...] = ()
    sonic_pg_lookup_source: str | None = None
    junos_flavour: str | None = None
    physical: Physical | None = None

    @property
    def max_interfaces(self) -> int:
        return self.ports * self.max_breakout

    def pg_lookup(self, speed_gbps: int, cable_m: int) -> PgLookupRow | None:
        """The vendor row for this speed at the shortest tabulated cable at least `cable_m` long
        (a longer cable needs more headroom, so rounding the cable up is the safe side)."""
        rows = [r for r in self.sonic_pg_lookup if r.speed_mbps == speed_gbps * 1000 and r.cable_m >= cable_m]
        return min(rows, key=lambda r: r.cable_m) if rows else None


class UnknownSwitchModelError(ValueError):
    """A hardware model that is not in models.yml."""


HOW_TO_ADD = (
    "add a row to src/gpunet/hardware/models.yml (docs/switch-rendering.md, 'Adding a switch model'), "
    "or name the closest known model and give this switch's own numbers with gpunet_switch_buffer"
)


@cache
def _table() -> dict[str, SwitchModel]:
    text = resources.files("gpunet.hardware").joinpath("models.yml").read_text()
    return {name: _model(name, row) for name, row in yaml.safe_load(text)["models"].items()}


def _model(name: str, row: dict[str, Any]) -> SwitchModel:
    fields = dict(row)
    lookup = tuple(PgLookupRow(*entry) for entry in fields.pop("sonic_pg_lookup", ()))
    if "physical" in fields:
        fields["physical"] = _physical(fields["physical"])
    for key in ("platforms", "speeds_gbps", "sources", "assumed"):
        if key in fields:
            fields[key] = tuple(fields[key])
    return SwitchModel(name=name, sonic_pg_lookup=lookup, **fields)


def _physical(row: dict[str, Any]) -> Physical:
    lanes = row["cage_lanes"]
    platforms = {
        name: PlatformPorts(tuple(parse_mode(mode, lanes) for mode in entry["modes"]), entry["source"])
        for name, entry in row["platforms"].items()
    }
    return Physical(
        serdes_gbps=row["serdes_gbps"],
        cage_lanes=lanes,
        cage=row["cage"],
        platforms=platforms,
        sources=tuple(row["sources"]),
        assumed=tuple(row.get("assumed", ())),
    )


def known_models() -> list[str]:
    return sorted(_table())


def get_model(name: str) -> SwitchModel:
    try:
        return _table()[name]
    except KeyError:
        raise UnknownSwitchModelError(
            f"unknown switch model {name!r} (known: {', '.join(known_models())}); {HOW_TO_ADD}"
        ) from None
