"""port_peers reports each cabling mistake as before, and on a clean fabric spells nothing per
port beyond its two ends (issue 33: 1.3 million ports at 262,144 GPUs)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from gpunet.model import build, crosschecks
from gpunet.model.check import check_raw
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.fabric import Fabric, Peer
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton
from gpunet.plan.request import build_request
from tests.unit.model.helpers import raw_inventory


def _fabric(mutate: Any, monkeypatch: pytest.MonkeyPatch) -> Fabric:
    """The fabric build_fabric cross-checks, also when it then raises its problems."""
    seen: list[Fabric] = []
    run_all = crosschecks.run_all

    def spy(fabric: Fabric, broken: set[str]) -> list[Any]:
        seen.append(fabric)
        return run_all(fabric, broken)

    monkeypatch.setattr(build.crosschecks, "run_all", spy)
    with contextlib.suppress(InventoryInvalidError):
        build.build_fabric(raw_inventory(mutate))
    return seen[0]


def _ports(switch: str) -> Any:
    return lambda inv: inv["host_vars"][switch]["gpunet_ports"]


def _set(switch: str, index: int, key: str, value: Any) -> Any:
    def mutate(inv: dict[str, Any]) -> None:
        _ports(switch)(inv)[index][key] = value

    return mutate


def _drop_peer(inv: dict[str, Any]) -> None:
    del _ports("spine01")(inv)[0]["peer"]


ROWS = [
    ("clean", None, []),
    (
        "claimed twice",
        _set("leaf02", 1, "peer", "gpu01:mlx5_1"),
        [
            (
                "leaf02.gpunet_ports[1].peer",
                "is already the peer of leaf02:swp1s0",
                "gpu01:mlx5_1",
                "one cable per end",
            )
        ],
    ),
    (
        "unknown device",
        _set("leaf01", 1, "peer", "gpu99:mlx5_0"),
        [
            (
                "leaf01.gpunet_ports[1].peer",
                "names a device that is not in the inventory",
                "gpu99:mlx5_0",
                "<gpu host>:<nic> or <switch>:<port>",
            )
        ],
    ),
    (
        "unknown NIC",
        _set("leaf01", 1, "peer", "gpu02:mlx5_7"),
        [
            (
                "leaf01.gpunet_ports[1].peer",
                "names a NIC gpu02 does not have",
                "gpu02:mlx5_7",
                "one of mlx5_0, mlx5_1",
            )
        ],
    ),
    (
        "host disagrees, then claimed twice",
        _set("leaf01", 0, "peer", "gpu02:mlx5_1"),
        [
            (
                "leaf01.gpunet_ports[0].peer",
                "cabling disagrees: gpu02 mlx5_1 says it is on leaf02:swp2s0",
                "gpu02:mlx5_1",
                "gpu02 mlx5_1 with switch/switch_port leaf01:Ethernet1/1",
            ),
            (
                "leaf02.gpunet_ports[1].peer",
                "is already the peer of leaf01:Ethernet1/1",
                "gpu02:mlx5_1",
                "one cable per end",
            ),
        ],
    ),
    (
        "port not listed",
        _set("spine01", 0, "peer", "leaf01:Ethernet9/1"),
        [
            (
                "leaf01.gpunet_ports[2].peer",
                "cabling disagrees: spine01 Ethernet0 says its peer is leaf01:Ethernet9/1",
                "spine01:Ethernet0",
                "spine01 Ethernet0 peer leaf01:Ethernet3/1",
            ),
            (
                "spine01.gpunet_ports[0].peer",
                "names a port leaf01 does not list",
                "leaf01:Ethernet9/1",
                "a port in leaf01.gpunet_ports",
            ),
        ],
    ),
    (
        "far end has no peer",
        _drop_peer,
        [
            (
                "leaf01.gpunet_ports[2].peer",
                "cabling disagrees: spine01 Ethernet0 says its peer is nothing",
                "spine01:Ethernet0",
                "spine01 Ethernet0 peer leaf01:Ethernet3/1",
            )
        ],
    ),
    (
        "speeds differ",
        _set("spine01", 0, "speed_gbps", 200),
        [
            ("leaf01.gpunet_ports[2].speed_gbps", "differs from spine01:Ethernet0's speed", 400, 200),
            ("spine01.gpunet_ports[0].speed_gbps", "differs from leaf01:Ethernet3/1's speed", 200, 400),
        ],
    ),
]


@pytest.mark.parametrize(("mutate", "expected"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_each_cabling_mistake_as_before(
    mutate: Any, expected: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fabric = _fabric(mutate, monkeypatch)
    found = crosschecks.port_peers(fabric, set())
    assert [(p.path, p.message, p.got, p.expected) for p in found] == expected


def test_a_clean_fabric_spells_no_peer_through_str(monkeypatch: pytest.MonkeyPatch) -> None:
    topology = build_topology(build_request({"gpus": 128, "switch_radix": 32}), 2, True)
    result = check_raw(build_skeleton(topology, InventoryOptions(platform="sonic")).raw())
    assert result.ok and result.fabric is not None
    spelled: list[int] = []
    original = Peer.__str__

    def counting(self: Peer) -> str:
        spelled.append(1)
        return original(self)

    monkeypatch.setattr(Peer, "__str__", counting)
    assert crosschecks.port_peers(result.fabric, set()) == []
    assert sum(len(s.ports) for s in result.fabric.switches.values()) > 0
    assert spelled == []
