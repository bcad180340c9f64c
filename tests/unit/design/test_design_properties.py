"""Properties of the design that must hold on every platform, checked on the structured config and
on the rendered text."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable

import pytest

from gpunet.design import design_switch
from gpunet.model.fabric import Fabric
from gpunet.platforms import UnknownPlatformError, known_platforms
from gpunet.render import render_switch
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric

PORT_NAMES = {
    # 400G unsplit, then 100G on 2 of 8 lanes (NX-OS 4x100G breakout: Ethernet1/<port>/<n>)
    "nxos": ["Ethernet1/1", "Ethernet1/2/1", "Ethernet1/3/1"],
    "eos": ["Ethernet1/1", "Ethernet2/1", "Ethernet3/1"],
    "cumulus": ["swp1s0", "swp2s0", "swp3s0"],  # SN5600: 2x400G, then 8x100G breakouts
    "sonic": ["Ethernet0", "Ethernet8", "Ethernet16"],
    "junos": ["et-0/0/0", "et-0/0/1", "et-0/0/2"],
}


def mixed_fabric(platform: str, **kwargs: object) -> Fabric:
    """Port 1 lossless, port 2 cabled but lossless: false, port 3 not cabled."""
    first, second, third = PORT_NAMES[platform]
    return one_leaf_fabric(
        platform,
        [
            {"name": first, "speed_gbps": 400, "cable_length_m": 3},
            {"name": second, "speed_gbps": 100, "cable_length_m": 10, "lossless": False},
            {"name": third, "speed_gbps": 100, "cabled": False},
        ],
        **kwargs,  # type: ignore[arg-type]
    )


def _blocks(config: str, header: str) -> dict[str, str]:
    """Indented sub-mode blocks of line platforms, by the name after `header`."""
    blocks: dict[str, str] = {}
    current = None
    for line in config.splitlines():
        if line.startswith(header):
            current = line[len(header) :]
            blocks[current] = ""
        elif line.startswith(" ") and current is not None:
            blocks[current] += line.strip() + "\n"
        else:
            current = None
    return blocks


def _ports_with_pfc_nxos(config: str) -> set[str]:
    return {n for n, body in _blocks(config, "interface ").items() if "priority-flow-control mode on" in body}


def _ports_with_pfc_eos(config: str) -> set[str]:
    return {n for n, body in _blocks(config, "interface ").items() if "service-profile GPUNET-ROCE" in body}


def _ports_with_pfc_cumulus(config: str) -> set[str]:
    return set(re.findall(r"^nv set interface (\S+) qos pfc profile ", config, re.MULTILINE))


def _ports_with_pfc_junos(config: str) -> set[str]:
    return set(
        re.findall(r"^set class-of-service interfaces (\S+) congestion-notification-profile ", config, re.M)
    )


def _ports_with_pfc_sonic(config: str) -> set[str]:
    document = json.loads(config)
    enabled = {port for port, fields in document["PORT_QOS_MAP"].items() if fields.get("pfc_enable")}
    buffered = {key.split("|")[0] for key in document["BUFFER_PG"]}
    assert enabled == buffered, "every PFC port needs its headroom buffer and no other port has one"
    return enabled


PFC_PORTS: dict[str, Callable[[str], set[str]]] = {
    "nxos": _ports_with_pfc_nxos,
    "eos": _ports_with_pfc_eos,
    "cumulus": _ports_with_pfc_cumulus,
    "junos": _ports_with_pfc_junos,
    "sonic": _ports_with_pfc_sonic,
}


@pytest.mark.parametrize("platform", known_platforms())
def test_every_lossless_port_gets_pfc_and_no_lossy_port_does(platform: str) -> None:
    fabric = mixed_fabric(platform)
    rendered = render_switch(fabric, fabric.switches[LEAF])
    assert PFC_PORTS[platform](rendered.config) == {PORT_NAMES[platform][0]}


@pytest.mark.parametrize("platform", known_platforms())
def test_lossless_ports_and_only_they_carry_headroom(platform: str) -> None:
    fabric = mixed_fabric(platform)
    design = design_switch(fabric, fabric.switches[LEAF])
    assert [p["headroom"] is not None for p in design["ports"]] == [True, False, False]
    assert [p["name"] for p in design["lossless_ports"]] == PORT_NAMES[platform][:1]


@pytest.mark.parametrize("platform", known_platforms())
@pytest.mark.parametrize(("roce", "cnp", "lossless", "cnp_class"), [(26, 48, 3, 6), (24, 46, 4, 7)])
def test_dscp_map_is_complete(platform: str, roce: int, cnp: int, lossless: int, cnp_class: int) -> None:
    qos = {
        "roce_dscp": roce,
        "cnp_dscp": cnp,
        "lossless_priority": lossless,
        "cnp_priority": cnp_class,
        "queues": [
            {"name": "default", "traffic_class": 0, "bandwidth_percent": 50},
            {"name": "roce", "traffic_class": lossless, "bandwidth_percent": 50},
            {"name": "cnp", "traffic_class": cnp_class, "strict": True},
        ],
    }
    fabric = mixed_fabric(platform, qos=qos)
    mapping = {
        e["dscp"]: e["traffic_class"]
        for e in design_switch(fabric, fabric.switches[LEAF])["classification"]["dscp_to_tc"]
    }
    assert sorted(mapping) == list(range(64))
    assert (mapping[roce], mapping[cnp]) == (lossless, cnp_class)
    assert {tc for dscp, tc in mapping.items() if dscp not in (roce, cnp)} == {0}


def test_sonic_overrides_the_stock_map_that_sends_dscp_26_to_tc_1() -> None:
    fabric = mixed_fabric("sonic")
    document = json.loads(render_switch(fabric, fabric.switches[LEAF]).config)
    assert document["DSCP_TO_TC_MAP"]["GPUNET"]["26"] == "3"
    assert len(document["DSCP_TO_TC_MAP"]["GPUNET"]) == 64
    assert {fields["dscp_to_tc_map"] for fields in document["PORT_QOS_MAP"].values()} == {"GPUNET"}


@pytest.mark.parametrize("platform", known_platforms())
@pytest.mark.parametrize(
    ("min_kb", "max_kb"), [(150, 1500), (100, 3000), (1000, 2048), (9, 32768), (150, 160)]
)
def test_ecn_thresholds_convert_back_to_the_same_bytes(platform: str, min_kb: int, max_kb: int) -> None:
    fabric = mixed_fabric(platform, qos={"ecn": {"min_threshold_kb": min_kb, "max_threshold_kb": max_kb}})
    ecn = design_switch(fabric, fabric.switches[LEAF])["ecn"]
    buffer_bytes = design_switch(fabric, fabric.switches[LEAF])["buffer"]["queue_buffer_bytes"]
    assert (ecn["min_bytes"], ecn["max_bytes"]) == (min_kb * 1024, max_kb * 1024)
    device = ecn["device"]
    to_bytes = {
        "kbytes": lambda value: value * 1024,
        "bytes": lambda value: value,
        "percent fill level": lambda value: value * buffer_bytes / 100,
        "percent fill level (decimal)": lambda value: float(value) * buffer_bytes / 100,
    }[device["unit"]]
    # Whole-percent fill levels (Junos OS QFX; at least 1, rising): allow that rounding; decimal fill
    # levels (Junos OS Evolved, six places) round by at most 0.0000005 % of the buffer.
    tolerance = {
        "percent fill level": buffer_bytes / 100,
        "percent fill level (decimal)": buffer_bytes / 1e8,
    }.get(device["unit"], 0)
    assert abs(to_bytes(device["min"]) - ecn["min_bytes"]) <= tolerance
    assert float(device["min"]) < float(device["max"])
    if device["unit"].startswith("percent fill level") and ecn["max_bytes"] > buffer_bytes:
        # A threshold beyond the buffer cannot be a fill level: full, and the summary says so.
        assert float(device["max"]) == 100
        assert "exceeds queue_buffer_bytes" in device["note"]
    else:
        # The max level may also be lifted one percent above the min to keep the levels rising.
        assert abs(to_bytes(device["max"]) - ecn["max_bytes"]) <= 2 * tolerance


@pytest.mark.parametrize(
    ("detect_ms", "restore_ms", "intervals", "seconds"),
    [
        (200, 400, (2, 4), ("0.2", "0.4")),
        (250, 1000, (3, 10), ("0.25", "1")),
        (10, 50, (1, 1), ("0.01", "0.05")),
    ],
)
def test_watchdog_times_in_each_unit(
    detect_ms: int, restore_ms: int, intervals: tuple[int, int], seconds: tuple[str, str]
) -> None:
    qos = {"pfc": {"watchdog_detect_ms": detect_ms, "watchdog_restore_ms": restore_ms}}
    fabric = mixed_fabric("nxos", qos=qos)
    watchdog = design_switch(fabric, fabric.switches[LEAF])["pfc"]["watchdog"]
    assert (watchdog["detect_intervals"], watchdog["restore_intervals"]) == intervals
    assert (watchdog["detect_seconds"], watchdog["restore_seconds"]) == seconds


@pytest.mark.parametrize(
    ("detect_ms", "restore_ms", "polling"), [(200, 400, "0.1"), (100, 300, "0.05"), (10, 1000, "0.005")]
)
def test_eos_watchdog_polling_is_at_most_half_the_shorter_time(
    detect_ms: int, restore_ms: int, polling: str
) -> None:
    qos = {"pfc": {"watchdog_detect_ms": detect_ms, "watchdog_restore_ms": restore_ms}}
    fabric = mixed_fabric("eos", qos=qos)
    config = render_switch(fabric, fabric.switches[LEAF]).config
    assert f"priority-flow-control pause watchdog default polling-interval {polling}\n" in config


def test_eos_mtu_is_clamped_to_its_maximum_and_the_summary_says_so() -> None:
    fabric = mixed_fabric("eos")
    rendered = render_switch(fabric, fabric.switches[LEAF])
    assert "mtu 9216" not in rendered.config
    assert rendered.config.count("   mtu 9214\n") == 3
    assert "MTU clamped to the eos maximum 9214 on 3 port(s)" in rendered.summary


def test_buffer_override_changes_the_headroom_rendered() -> None:
    # NX-OS is the OS that takes gpunet's computed headroom (its system no-drop buffer), where a cable
    # is longer than Cisco's 100 m.
    ports = [{"name": "Ethernet1/1", "speed_gbps": 400, "cable_length_m": 300}]
    default = one_leaf_fabric("nxos", ports)
    small_cells = one_leaf_fabric("nxos", ports, buffer={"cell_bytes": 64})
    buffers = [design_switch(f, f.switches[LEAF])["nxos"]["system_headroom"] for f in (default, small_cells)]
    assert buffers[1]["buffer_size"] < buffers[0]["buffer_size"]
    config = render_switch(small_cells, small_cells.switches[LEAF]).config
    assert f"pause buffer-size {buffers[1]['buffer_size']} " in config


def test_ets_shares_and_strict_queues_follow_qos_queues() -> None:
    fabric = mixed_fabric("sonic")
    document = json.loads(render_switch(fabric, fabric.switches[LEAF]).config)
    assert document["SCHEDULER"] == {
        "gpunet.0": {"type": "DWRR", "weight": "50"},
        "gpunet.3": {"type": "DWRR", "weight": "50"},
        "gpunet.6": {"type": "STRICT"},
    }
    wred_queues = {key for key, fields in document["QUEUE"].items() if "wred_profile" in fields}
    assert {key.split("|")[1] for key in wred_queues} == {"3"}


def test_an_unknown_platform_is_an_error_listing_the_known_ones() -> None:
    fabric = mixed_fabric("nxos")
    switch = dataclasses.replace(fabric.switches[LEAF], platform="ios")
    with pytest.raises(UnknownPlatformError, match=r"'ios'.*cumulus, eos, junos, nxos, sonic"):
        render_switch(fabric, switch)
