"""switch_port_lanes places each distinct port list once: switches asking the same get the same
answer, each under its own name, and a switch whose ports differ is placed on its own."""

from __future__ import annotations

import pytest

from gpunet.model.check import check_raw
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton
from gpunet.plan.request import build_request


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        ({}, []),
        ({"leaf001": 0}, ["leaf001.gpunet_ports[0].lanes"]),
        (
            {"leaf001": 0, "leaf003": 5},
            ["leaf001.gpunet_ports[0].lanes", "leaf003.gpunet_ports[5].lanes"],
        ),
        (
            {"leaf002": 5, "leaf003": 5},
            ["leaf002.gpunet_ports[5].lanes", "leaf003.gpunet_ports[5].lanes"],
        ),
    ],
)
def test_each_switch_reports_its_own_unbuildable_ports(broken: dict[str, int], expected: list[str]) -> None:
    topology = build_topology(build_request({"gpus": 128, "switch_radix": 32}), 2, True)
    skeleton = build_skeleton(topology, InventoryOptions(platform="sonic"))
    for switch, index in broken.items():
        # 400G on one 100G SerDes lane
        skeleton.hostvars[switch]["gpunet_ports"][index]["lanes"] = 1
    problems = check_raw(skeleton.raw()).problems
    assert sorted(p.path for p in problems) == expected, "\n".join(map(str, problems))
