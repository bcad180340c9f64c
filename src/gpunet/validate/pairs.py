"""Which host pairs run perftest in which round: rounds of disjoint pairs, run in parallel, per rail.

ring: hosts in name order, each paired with the next (wrapping), so every NIC is tested twice,
    with two different partners. An even ring splits into two rounds of disjoint pairs; an odd
    ring needs a third round holding its closing pair.
all-pairs: the round-robin (circle) method: n-1 rounds for even n, n for odd n (one host rests
    each round), every host meeting every other once.

Rails are independent networks, so round k of every rail runs at the same time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

RING = "ring"
ALL_PAIRS = "all-pairs"
MODES = (RING, ALL_PAIRS)


@dataclass(frozen=True, order=True)
class Pair:
    rail: int
    client: str
    server: str

    def name(self, nic: str) -> str:
        return f"{self.client}__{self.server}__{nic}"


def ring_rounds(hosts: list[str]) -> list[list[tuple[str, str]]]:
    if len(hosts) < 2:
        return []
    if len(hosts) == 2:
        return [[(hosts[0], hosts[1])]]
    edges = [(hosts[i], hosts[(i + 1) % len(hosts)]) for i in range(len(hosts))]
    rounds: list[list[tuple[str, str]]] = [edges[0::2], edges[1::2]]
    if len(hosts) % 2:
        # Odd ring: the first and the closing edge share hosts[0]; move the closing one out.
        rounds[0].remove(edges[-1])
        rounds.append([edges[-1]])
    return rounds


def all_pairs_rounds(hosts: list[str]) -> Iterator[list[tuple[str, str]]]:
    """Lazily, since 4,096 hosts give 4,095 rounds of 2,048 pairs."""
    players: list[str | None] = list(hosts) + ([None] if len(hosts) % 2 else [])
    count = len(players)
    for _ in range(count - 1):
        pairs = [(players[i], players[count - 1 - i]) for i in range(count // 2)]
        yield [(a, b) for a, b in pairs if a is not None and b is not None]
        players = [players[0], players[-1], *players[1:-1]]


def schedule(hosts_by_rail: dict[int, list[str]], mode: str = RING) -> list[list[Pair]]:
    """Rounds of disjoint pairs, every rail's round k merged into round k."""
    if mode not in MODES:
        raise ValueError(f"unknown pair mode {mode!r} (expected one of: {', '.join(MODES)})")
    rounds: list[list[Pair]] = []
    for rail, hosts in sorted(hosts_by_rail.items()):
        ordered = sorted(hosts)
        rail_rounds = ring_rounds(ordered) if mode == RING else all_pairs_rounds(ordered)
        for index, host_pairs in enumerate(rail_rounds):
            if index == len(rounds):
                rounds.append([])
            rounds[index].extend(Pair(rail, client, server) for client, server in host_pairs)
    return rounds
