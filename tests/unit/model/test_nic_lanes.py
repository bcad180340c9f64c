"""Issue 26, NIC lanes: a NIC that states its port's lanes (a ConnectX-7 400G OSFP is 4 x 100G) must
meet a switch port running the same lane count, as a copper cable carries lanes one to one; the
error names both ends. Before this the NIC had no lanes and nothing compared them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpunet.model.build import build_fabric
from gpunet.model.errors import InventoryInvalidError
from tests.unit.model.helpers import fixtures, raw_inventory

nic = fixtures.nic


def _leaf01_on(model: str, ports: list[str]) -> Callable[[dict[str, Any]], None]:
    """leaf01 (EOS) on another model, its two NIC-facing ports renamed as that model's cages need."""

    def mutate(inv: dict[str, Any]) -> None:
        leaf = inv["host_vars"]["leaf01"]
        leaf["gpunet_switch_model"] = model
        for index, name in enumerate(ports):
            leaf["gpunet_ports"][index]["name"] = name
            nic(inv, f"gpu0{index + 1}", 0)["switch_port"] = name
        uplink = leaf["gpunet_ports"][2]
        uplink["name"] = {"7800R3": "Ethernet3/3/1"}.get(model, uplink["name"])
        inv["host_vars"]["spine01"]["gpunet_ports"][0]["peer"] = f"leaf01:{uplink['name']}"

    return mutate


def _with(*mutations: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
    def mutate(inv: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(inv)

    return mutate


JERICHO2 = _leaf01_on("7800R3", ["Ethernet3/1/1", "Ethernet3/2/1"])  # 50G SerDes: 400G on 8 lanes

# (case, inventory mutation, problems expected: path -> words of the message)
CASES: list[tuple[str, Callable[[dict[str, Any]], Any], dict[str, list[str]]]] = [
    ("CX-7 4 x 100G on Tomahawk 5 400g-4", lambda inv: nic(inv, "gpu01", 0).update(lanes=4), {}),
    ("CX-7 4 x 100G on Spectrum-4 swp1s0", lambda inv: nic(inv, "gpu01", 1).update(lanes=4), {}),
    ("no lanes stated: not compared", JERICHO2, {}),
    (
        "8 x 50G NIC on Jericho2's 8-lane 400G",
        _with(JERICHO2, lambda inv: nic(inv, "gpu02", 0).update(lanes=8)),
        {},
    ),
    (
        "CX-7 4 x 100G on Jericho2's 8 x 50G",
        _with(JERICHO2, lambda inv: nic(inv, "gpu02", 0).update(lanes=4)),
        {
            "gpu02.gpunet_nics[0].lanes": [
                "leaf01 Ethernet3/2/1",
                "gpu02 mlx5_0 runs 400G on 4 lanes",
                "8 x 50G",
            ]
        },
    ),
    (
        "8-lane NIC on Tomahawk 5's 400g-4",
        lambda inv: nic(inv, "gpu01", 0).update(lanes=8),
        {"gpu01.gpunet_nics[0].lanes": ["leaf01 Ethernet1/1", "4 x 100G", "leaf01.gpunet_ports[0].lanes 8"]},
    ),
    (
        "the switch port's own lanes count, not the default",
        _with(
            lambda inv: inv["host_vars"]["leaf01"]["gpunet_ports"][0].update(lanes=8),
            lambda inv: nic(inv, "gpu01", 0).update(lanes=4),
        ),
        {"gpu01.gpunet_nics[0].lanes": ["on 8 x 50G"]},
    ),
]


@pytest.mark.parametrize(("case", "mutate", "expected"), CASES, ids=[c[0] for c in CASES])
def test_nic_lanes_meet_the_switch_port(
    case: str, mutate: Callable[[dict[str, Any]], Any], expected: dict[str, list[str]]
) -> None:
    if not expected:
        build_fabric(raw_inventory(mutate))  # must not raise
        return
    with pytest.raises(InventoryInvalidError) as caught:
        build_fabric(raw_inventory(mutate))
    found = {p.path: str(p) for p in caught.value.problems}
    assert set(found) == set(expected), "\n".join(found.values())
    for path, words in expected.items():
        for word in words:
            assert word in found[path], found[path]
