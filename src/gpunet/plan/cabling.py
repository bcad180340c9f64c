"""Cabling bill of materials: links per reach class, priced with relative cost factors.

Reach classes by length (limits in Distances): DAC (passive copper, in-rack), AOC (active optical
cable, across racks), optics (two transceivers and fibre, for long runs). A cost factor is the
relative price of one link of that class; the operator overrides the defaults 1.0 / 1.5 / 2.2.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpunet.plan.fattree import Topology
from gpunet.plan.request import REACH_CLASSES

TRANSCEIVERS_PER_LINK = {"dac": 0, "aoc": 0, "optics": 2}


@dataclass(frozen=True)
class BomRow:
    reach: str
    links: int
    total_length_m: int
    transceivers: int
    cost_factor: float
    relative_cost: float
    used_for: tuple[str, ...]  # link kinds, e.g. host-leaf

    def as_dict(self) -> dict[str, object]:
        return {
            "reach": self.reach,
            "links": self.links,
            "total_length_m": self.total_length_m,
            "transceivers": self.transceivers,
            "cost_factor": self.cost_factor,
            "relative_cost": round(self.relative_cost, 2),
            "used_for": " ".join(self.used_for),
        }


@dataclass(frozen=True)
class Bom:
    rows: tuple[BomRow, ...]
    switch_ports_used: int
    switch_ports_total: int
    nic_ports: int

    @property
    def links(self) -> int:
        return sum(row.links for row in self.rows)

    @property
    def relative_cost(self) -> float:
        return sum(row.relative_cost for row in self.rows)

    def as_dict(self) -> dict[str, object]:
        return {
            "rows": [row.as_dict() for row in self.rows],
            "links": self.links,
            "relative_cost": round(self.relative_cost, 2),
            "switch_ports_used": self.switch_ports_used,
            "switch_ports_total": self.switch_ports_total,
            "nic_ports": self.nic_ports,
        }


def bill_of_materials(topology: Topology) -> Bom:
    factors = topology.request.cost_factors
    rows = []
    for reach in REACH_CLASSES:
        links = [link for link in topology.links if link.reach == reach]
        if not links:
            continue
        rows.append(
            BomRow(
                reach=reach,
                links=len(links),
                total_length_m=sum(link.length_m for link in links),
                transceivers=len(links) * TRANSCEIVERS_PER_LINK[reach],
                cost_factor=factors[reach],
                relative_cost=len(links) * factors[reach],
                used_for=tuple(sorted({link.kind for link in links})),
            )
        )
    switches = topology.switches.values()
    return Bom(
        rows=tuple(rows),
        switch_ports_used=sum(s.down_used + s.up_used for s in switches),
        switch_ports_total=sum(s.radix for s in switches),
        nic_ports=sum(1 for link in topology.links if link.kind == "host-leaf"),
    )
