"""Switch show outputs collected over real SSH from gpunet's switch simulator (lab equipment, not
a switch OS) on 127.0.0.1, then read back by the validation parsers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect.lldp import LLDP_COMMANDS
from gpunet.collect.switch_commands import SWITCH_COMMANDS
from gpunet.collect.switch_show import FORMS_FILE, collect_switch_show
from gpunet.lab.switchsim import SimOptions, SimulatorFleet
from gpunet.model.fabric import Switch
from gpunet.netdev.errors import LoginError
from gpunet.netdev.push import Connection
from gpunet.validate.parsers import parse

# (platform, a port of the simulator, the parsed path to the port's lossless-priority PFC counters)
PLATFORMS = [
    ("nxos", "Ethernet1/1", lambda parsed, port: parsed["interfaces"][port]["rx_pause"]),
    ("eos", "Et1/1", lambda parsed, port: parsed["interfaces"][port]["rx_pause"]),
    ("sonic", "Ethernet0", lambda parsed, port: parsed["rx"][port][3]),
]


@pytest.fixture
def fleet():
    with SimulatorFleet() as running:
        yield running


def switch_for(platform: str, port: int) -> Switch:
    return Switch(f"sim-{platform}", platform, "leaf", "127.0.0.1", port, (), mgmt_user="admin")


def collect_around(
    fleet, tmp_path: Path, platform: str, change: Callable[[Any], None]
) -> tuple[list, list, Path]:
    """Start a simulated `platform` switch, collect its show outputs over SSH (host key checked),
    apply `change` to the simulator's state, collect again: both collections and the switch's folder."""
    simulated = fleet.start(platform, f"sim-{platform}", options=SimOptions(password="pw"))
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(fleet.known_hosts_line(simulated) + "\n")
    switch = switch_for(platform, simulated.port)
    login = Connection("pw", host_key_checking=True, known_hosts=known_hosts)
    before = collect_switch_show(switch, login, "before", tmp_path)
    fleet.call(lambda: change(simulated.state))
    after = collect_switch_show(switch, login, "after", tmp_path)
    return before, after, tmp_path / "switches" / switch.name


def parsed(folder: Path, stage: str, tool: str) -> Any:
    return parse(tool, (folder / stage / f"{tool}.txt").read_text())


@pytest.mark.parametrize(("platform", "port_name", "pfc_rx"), PLATFORMS)
def test_collected_counters_parse_and_move(
    fleet, tmp_path: Path, platform: str, port_name: str, pfc_rx
) -> None:
    before, after, folder = collect_around(
        fleet, tmp_path, platform, lambda state: state.counters[state.ports[0]]["rx_pfc"].__setitem__(3, 1520)
    )
    # The LLDP neighbours are collected before the tests only (gpunet.collect.lldp); the simulated
    # switch has no neighbour, and its OS's empty answer parses as none.
    ((lldp_tool, _),) = LLDP_COMMANDS[platform].items()
    assert (len(before), len(after)) == (len(SWITCH_COMMANDS[platform]) + 1, len(SWITCH_COMMANDS[platform]))
    assert parsed(folder, "before", lldp_tool)["neighbours"] == []
    tool = next(t for t in SWITCH_COMMANDS[platform] if "pfc" in t and "priority" not in t)
    parsed_before, parsed_after = parsed(folder, "before", tool), parsed(folder, "after", tool)
    assert (pfc_rx(parsed_before, port_name), pfc_rx(parsed_after, port_name)) == (0, 1520)
    # SONiC's PFC counters are read from COUNTERS_DB (`sonic-db-cli -j`); the others have no structured form.
    forms = json.loads((folder / "after" / FORMS_FILE).read_text())
    assert forms[tool]["form"] == ("json" if platform == "sonic" else "text")


def test_unknown_host_key_stops_before_login(fleet, tmp_path: Path) -> None:
    simulated = fleet.start("nxos", "sim-nxos", options=SimOptions(password="pw"))
    with pytest.raises(LoginError, match="known_hosts"):
        login = Connection("pw", host_key_checking=True, known_hosts=tmp_path / "missing")
        collect_switch_show(switch_for("nxos", simulated.port), login, "before", tmp_path)
    assert not list((tmp_path / "switches").rglob("*.txt"))


# (platform, tool, the parsed (drops, ECN marks) of the first port's queue 3)
QUEUE_PLATFORMS = [
    (
        "eos",
        "eos-show-interfaces-counters-queue",
        lambda parsed: next(
            q["drop_packets"] for q in parsed["queues"] if q["port"] == "Ethernet1/1" and q["queue"] == 3
        ),
    ),
    (
        "eos",
        "eos-show-qos-ecn-counters-queue",
        lambda parsed: next(
            q["ecn_marked_packets"]
            for q in parsed["queues"]
            if q["port"] == "Ethernet1/1" and q["queue"] == 3
        ),
    ),
    (
        "junos",
        "junos-show-interfaces-queue",
        lambda parsed: next(iter(parsed["interfaces"].values()))["queues"]["3"]["ecn_ce_packets"],
    ),
    (
        "junos",
        "junos-show-interfaces-queue",
        lambda parsed: next(iter(parsed["interfaces"].values()))["queues"]["3"]["tail_dropped_packets"],
    ),
]


@pytest.mark.parametrize(("platform", "tool", "counter"), QUEUE_PLATFORMS)
def test_queue_drops_and_ecn_marks_are_served_and_move(
    fleet, tmp_path: Path, platform: str, tool: str, counter
) -> None:
    """EOS and Junos per-queue counters over SSH from the simulator: they parse and follow the state."""
    seven_on_queue_3 = [0, 0, 0, 7, 0, 0, 0, 0]
    _, _, folder = collect_around(
        fleet,
        tmp_path,
        platform,
        lambda state: state.counters[state.ports[0]].update(
            tx_drop=seven_on_queue_3, ecn_marked=seven_on_queue_3
        ),
    )
    before, after = parsed(folder, "before", tool), parsed(folder, "after", tool)
    assert (counter(before), counter(after)) == (0, 7)


# (platform, tool, how the test moves the first port's counters, the parsed value that follows)
PFC_PLATFORMS = [
    (
        "junos",
        "junos-show-interfaces-extensive",
        {"rx_pfc": [0, 0, 0, 7, 0, 0, 0, 0]},
        lambda parsed: parsed["interfaces"]["et-0/0/0"]["priorities"]["3"]["rx_pause"],
    ),
    (
        "eos",
        "eos-show-pfc-watchdog-json",
        {"pfc_wd_stuck": [0, 0, 0, 7, 0, 0, 0, 0]},
        lambda parsed: parsed["interfaces"].get("Ethernet1/1", {}).get(3, {}).get("stuck", 0),
    ),
    (
        "eos",
        "eos-show-pfc-counters-detail-json",
        {"tx_pfc": [0, 0, 0, 7, 0, 0, 0, 0]},
        lambda parsed: parsed["interfaces"]["Ethernet1/1"][3]["tx_pause"],
    ),
]


@pytest.mark.parametrize(("platform", "tool", "counters", "value"), PFC_PLATFORMS)
def test_per_priority_pfc_views_are_served_and_move(
    fleet, tmp_path: Path, platform: str, tool: str, counters, value
) -> None:
    """EOS watchdog and pause counters, Junos per-priority PFC counters over SSH: they parse and
    follow the state."""
    _, _, folder = collect_around(
        fleet, tmp_path, platform, lambda state: state.counters[state.ports[0]].update(counters)
    )
    before, after = parsed(folder, "before", tool), parsed(folder, "after", tool)
    assert (value(before), value(after)) == (0, 7)
    if platform == "junos":  # `| match` kept only the interface, PFC-block and priority lines
        assert "MAC statistics" not in (folder / "after" / f"{tool}.txt").read_text()
    if platform == "eos":
        status = parsed(folder, "after", "eos-show-pfc")
        assert status["global_enabled"] is True and set(status["interfaces"]) == {
            "Et1/1",
            "Et2/1",
            "Et3/1",
            "Et4/1",
        }


def test_junos_pfc_profiles_are_served_reduced_and_parse(fleet, tmp_path: Path) -> None:
    """Junos congestion-notification state over SSH: `| match` keeps the interface and profile
    lines, and the profile a port names follows the configuration."""
    simulated = fleet.start("junos", "sim-junos", options=SimOptions(password="pw"))
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(fleet.known_hosts_line(simulated) + "\n")
    first = simulated.state.ports[0]
    lines = [
        "set class-of-service congestion-notification-profile roce input ieee-802.1 code-point 011 pfc",
        f"set class-of-service interfaces {first} congestion-notification-profile roce",
    ]
    fleet.call(lambda: simulated.state.config.extend(lines))
    switch = switch_for("junos", simulated.port)
    collect_switch_show(
        switch, Connection("pw", host_key_checking=True, known_hosts=known_hosts), "after", tmp_path
    )
    folder = tmp_path / "switches" / switch.name / "after"
    text = (folder / "junos-show-cos-interface.txt").read_text()
    assert "Maximum usable queues" not in text  # reduced on the switch
    ports = parse("junos-show-cos-interface", text)["interfaces"]
    assert ports[first] == {"congestion_notification": True, "profile": "roce"}
    assert ports[simulated.state.ports[1]]["congestion_notification"] is False
    profiles = parse(
        "junos-show-cos-congestion-notification",
        (folder / "junos-show-cos-congestion-notification.txt").read_text(),
    )["profiles"]
    assert profiles["roce"]["input"]["priorities"] == {p: p == 3 for p in range(8)}
