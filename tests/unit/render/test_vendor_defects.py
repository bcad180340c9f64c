"""Each defect of issue 11 section 2, checked on what the example inventory renders to."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from gpunet.model.check import load_fabric
from gpunet.render import RenderedSwitch, render_fabric, render_switch
from tests.conftest import REPO_ROOT
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric
from tests.unit.render.vendor_defects import PROD_CHECKS, Check


@cache
def _prod() -> dict[str, RenderedSwitch]:
    return render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))


@pytest.mark.parametrize(("switch", "check"), PROD_CHECKS, ids=[f"{s}-{c.__name__}" for s, c in PROD_CHECKS])
def test_defect_is_fixed_in_the_rendered_prod_config(switch: str, check: Check) -> None:
    rendered = _prod()[switch]
    assert check(rendered.config, rendered.summary) == []


def test_junos_os_takes_no_interface_speed_and_gets_ingress_partitions() -> None:
    # Junos OS QFX (not Evolved) sets port speed under chassis; its CoS schema has buffer-partition.
    fabric = one_leaf_fabric(
        "junos", [{"name": "et-0/0/0", "speed_gbps": 100, "cable_length_m": 3}], model="QFX5120-32C"
    )
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert not re.search(r"^set interfaces \S+ speed ", config, re.MULTILINE)
    assert "set chassis fpc 0 pic 0 port 0 speed 100g\n" in config
    partitions = re.findall(r"shared-buffer ingress buffer-partition (\S+) percent (\d+)", config)
    assert [name for name, _ in partitions] == ["lossless", "lossless-headroom", "lossy"]
    assert sum(int(percent) for _, percent in partitions) == 100


def test_junos_evo_takes_interface_speed_and_no_partitions() -> None:
    fabric = one_leaf_fabric("junos", [{"name": "et-0/0/0", "speed_gbps": 400, "cable_length_m": 3}])
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert "set interfaces et-0/0/0 speed 400g\n" in config
    assert "buffer-partition" not in config


@pytest.mark.parametrize(("model", "keyword"), [("7060X6-64PE", "uc-tx-queue"), ("7800R3", "tx-queue")])
def test_eos_queue_keyword_follows_the_hardware_model(model: str, keyword: str) -> None:
    fabric = one_leaf_fabric(
        "eos", [{"name": "Ethernet1/1", "speed_gbps": 400, "cable_length_m": 3}], model=model
    )
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert re.findall(r"^   (\S+) \d$", config, re.MULTILINE) == [keyword] * 3


def test_sonic_lossless_priority_outside_the_stock_range_gets_its_own_key_and_a_note() -> None:
    fabric = one_leaf_fabric(
        "sonic",
        [{"name": "Ethernet0", "speed_gbps": 400, "cable_length_m": 3}],
        qos={
            "lossless_priority": 2,
            "queues": [
                {"name": "default", "traffic_class": 0, "bandwidth_percent": 40},
                {"name": "roce", "traffic_class": 2, "bandwidth_percent": 60},
                {"name": "cnp", "traffic_class": 6, "strict": True},
            ],
        },
    )
    rendered = render_switch(fabric, fabric.switches[LEAF])
    document = json.loads(rendered.config)
    assert list(document["BUFFER_PG"]) == ["Ethernet0|2"] and list(document["BUFFER_QUEUE"]) == [
        "Ethernet0|2"
    ]
    assert "stock BUFFER_QUEUE |3-4 entry stays" in rendered.summary
