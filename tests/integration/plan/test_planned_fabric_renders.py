"""A planned inventory is usable downstream: it loads as a Fabric, renders for every platform, and
every rendered line passes that platform's grammar."""

from __future__ import annotations

import pytest

from gpunet.grammar import grammar_for
from gpunet.model.build import build_fabric
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton
from gpunet.plan.request import build_request
from gpunet.platforms import known_platforms
from gpunet.render import render_fabric


@pytest.mark.parametrize("platform", known_platforms())
def test_planned_fabric_renders_valid_config(platform: str) -> None:
    topology = build_topology(build_request({"gpus": 32, "switch_radix": 16}), 3, True)
    fabric = build_fabric(build_skeleton(topology, InventoryOptions(platform=platform)).raw())
    rendered = render_fabric(fabric)
    assert set(rendered) == set(topology.switches)
    for switch in rendered.values():
        grammar_for(platform).check(switch.config)
    # The planned cable lengths reach the model, where PFC headroom is computed from them:
    # 4 nodes fill one rack with their SU's leaves (2 m), the spines sit elsewhere (30 m).
    leaf = fabric.switches["leaf001"]
    assert {port.cable_length_m for port in leaf.ports if port.peer} == {2, 30}
