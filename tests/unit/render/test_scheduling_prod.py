"""Issue 26, scheduling and ECN, on what `gpunet render -i inventories/prod` produces. Each check fails
on the intended/prod of 7f59434: Junos classified two code points only and scheduled neither
best-effort nor network-control; Junos OS Evolved got whole-percent fill levels (1.65 / 3.3 MB of
165 MB for a 150 / 1500 KB policy)."""

from __future__ import annotations

import re
from functools import cache

from gpunet.model.check import load_fabric
from gpunet.render import RenderedSwitch, render_fabric, render_switch
from tests.conftest import REPO_ROOT
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric


@cache
def _prod() -> dict[str, RenderedSwitch]:
    return render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))


def _classified(config: str) -> dict[str, str]:
    points: dict[str, str] = {}
    for fc, listed in re.findall(
        r"^set class-of-service classifiers dscp GPUNET-DSCP forwarding-class (\S+) loss-priority low "
        r"code-points \[ ([01 ]+) \]$",
        config,
        re.MULTILINE,
    ):
        points.update(dict.fromkeys(listed.split(), fc))
    return points


def test_junos_classifier_covers_every_code_point() -> None:
    points = _classified(_prod()["leaf08"].config)
    assert sorted(points) == [format(dscp, "06b") for dscp in range(64)]


def test_junos_every_class_that_carries_traffic_has_a_scheduler() -> None:
    config = _prod()["leaf08"].config
    mapped = set(
        re.findall(r"^set class-of-service scheduler-maps GPUNET-MAP forwarding-class (\S+) ", config, re.M)
    )
    carried = set(_classified(config).values()) | {"network-control"}  # the switch's own traffic
    assert carried <= mapped
    rates = re.findall(r"^set class-of-service schedulers \S+ transmit-rate percent (\d+)$", config, re.M)
    assert sum(map(int, rates)) <= 100


def test_junos_evo_fill_levels_mean_the_policy_bytes() -> None:
    rendered = _prod()["leaf08"]
    ((low, high),) = re.findall(r"interpolate fill-level \[ (\S+) (\S+) \]", rendered.config)
    buffer_bytes = 165_000_000  # QFX5240, Juniper buffer table (models.yml)
    assert abs(float(low) * buffer_bytes / 100 - 150 * 1024) < 2
    assert abs(float(high) * buffer_bytes / 100 - 1500 * 1024) < 2
    assert "the basis is the model's documented buffer" in rendered.summary


def test_a_policy_queue_on_queue_7_needs_no_extra_network_control_scheduler() -> None:
    qos = {
        "cnp_priority": 7,
        "queues": [
            {"name": "default", "traffic_class": 0, "bandwidth_percent": 40},
            {"name": "roce", "traffic_class": 3, "bandwidth_percent": 60},
            {"name": "cnp", "traffic_class": 7, "strict": True},
        ],
    }
    fabric = one_leaf_fabric("junos", [{"name": "et-0/0/0", "speed_gbps": 400}], qos=qos)
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert "network-control" not in config
    assert "sch-default transmit-rate percent 40\n" in config


def test_nxos_prod_keeps_the_switch_no_drop_thresholds_below_100_m() -> None:
    # Cisco's PFC guidelines: the static pause buffer is optional below 100 m (prod cables: 3 m, 30 m).
    for switch in ("leaf01", "leaf02", "spine02"):
        config = _prod()[switch].config
        assert "pause buffer-size" not in config and "GPUNET-QUEUING-IN" not in config
        assert "    pause pfc-cos 3\n" in config


def test_nxos_static_pause_threshold_above_100_m_does_not_pre_empt_ecn() -> None:
    ports = [
        {"name": "Ethernet1/1", "speed_gbps": 400, "cable_length_m": 3},
        {"name": "Ethernet1/2", "speed_gbps": 400, "cable_length_m": 300},
    ]
    fabric = one_leaf_fabric("nxos", ports)
    config = render_switch(fabric, fabric.switches[LEAF]).config
    ((size, pause, resume),) = re.findall(
        r"pause buffer-size (\d+) pause-threshold (\d+) resume-threshold (\d+)", config
    )
    ecn_max_bytes = 1500 * 1024  # the fabric's default ECN maximum
    assert int(pause) >= ecn_max_bytes and int(resume) < int(pause) < int(size)


def test_eos_strata_states_the_mmu_headroom_assumption_and_sand_does_not() -> None:
    assert "MMU queue profile" in _prod()["leaf03"].summary  # 7060X6-64PE, Tomahawk 5
    assert "30 m on Ethernet9/1" in _prod()["leaf03"].summary
    assert "MMU queue profile" not in _prod()["spine01"].summary  # 7800R3, Jericho2
