"""The simulated SONiC's `show queue wredcounters` and `show pfcwd stats` (lab equipment) print its
counters in sonic-utilities' formats, which gpunet's parsers read back to the same numbers; the
watchdog lists only the PFC-enabled queues of the ports pfcwd watches, and only those that counted."""

from __future__ import annotations

import pytest

from gpunet.lab.switchsim.personalities.sonic_incast import sonic_pfcwd_stats, sonic_wredcounters
from gpunet.lab.switchsim.state import SwitchState
from gpunet.validate.parsers import parse

PORTS = ["Ethernet0", "Ethernet8", "Ethernet16"]


def _state(**counters: dict[str, list[int]]) -> SwitchState:
    config = {
        "PORT": {port: {} for port in PORTS},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet8": {"pfc_enable": "3"}},
        # Ethernet16 has no PFC; Ethernet8 is not watched.
        "PFC_WD": {"Ethernet0": {"action": "drop"}, "GLOBAL": {"POLL_INTERVAL": "200"}},
    }
    state = SwitchState(platform="sonic", hostname="leaf04", config=config, ports=list(PORTS))
    for port, values in counters.items():
        state.counters[port].update(values)
    return state


def _at(queue: int, value: int) -> list[int]:
    return [value if q == queue else 0 for q in range(8)]


@pytest.mark.parametrize(
    ("counters", "port", "queue", "marks", "drops"),
    [
        ({"Ethernet0": {"ecn_marked": _at(3, 52_113)}}, "Ethernet0", "UC3", 52_113, 0),
        ({"Ethernet8": {"wred_drop": _at(1, 7)}}, "Ethernet8", "UC1", 0, 7),
        ({"Ethernet16": {"ecn_marked": _at(0, 12_345_678_901)}}, "Ethernet16", "UC0", 12_345_678_901, 0),
        ({}, "Ethernet8", "UC3", 0, 0),
    ],
)
def test_wredcounters_print_the_marks_and_drops_of_each_queue(
    counters: dict, port: str, queue: str, marks: int, drops: int
) -> None:
    parsed = parse("sonic-show-queue-wredcounters", sonic_wredcounters(_state(**counters)))
    queues = {(q["port"], q["queue"]): q for q in parsed["queues"]}
    assert len(queues) == 8 * len(PORTS)
    assert queues[(port, queue)]["ecn_marked_pkts"] == marks
    assert queues[(port, queue)]["ecn_marked_bytes"] == marks * 1024
    assert queues[(port, queue)]["wred_drop_pkts"] == drops
    others = [q for key, q in queues.items() if key != (port, queue)]
    assert not any(q["ecn_marked_pkts"] or q["wred_drop_pkts"] for q in others)


@pytest.mark.parametrize(
    ("counters", "rows"),
    [
        ({}, {}),  # nothing counted: the header alone
        # traffic on the watched lossless queue: operational
        ({"Ethernet0": {"tx_queue": _at(3, 1_200)}}, {("Ethernet0", 3): ("operational", 0, 0, 1_200)}),
        # two storms restored on queue 3, one still on on queue 4
        (
            {"Ethernet0": {"pfc_wd_stuck": [0, 0, 0, 2, 1, 0, 0, 0], "pfc_wd_recovered": _at(3, 2)}},
            {("Ethernet0", 3): ("operational", 2, 2, 0), ("Ethernet0", 4): ("stormed", 1, 0, 0)},
        ),
        # Ethernet8 is not watched, queue 1 of Ethernet0 is not PFC-enabled: neither is listed
        ({"Ethernet8": {"pfc_wd_stuck": _at(3, 5)}, "Ethernet0": {"tx_queue": _at(1, 9)}}, {}),
    ],
)
def test_pfcwd_stats_list_the_watched_queues_that_counted(counters: dict, rows: dict) -> None:
    parsed = parse("sonic-show-pfcwd-stats", sonic_pfcwd_stats(_state(**counters)))
    found = {
        (q["port"], q["queue"]): (q["status"], q["storm_detected"], q["storm_restored"], q["tx_ok"])
        for q in parsed["queues"]
    }
    assert found == rows
