"""The push's PFC watchdog plan on SONiC (`pfcwd` commands, their undo, the interval last),
table-driven over running and intended PFC_WD tables."""

from __future__ import annotations

import pytest

from gpunet.netdev.sonic_pfcwd import plan

WD = {"action": "drop", "detection_time": "200", "restoration_time": "400"}
OLD = {"action": "alert", "detection_time": "400", "restoration_time": "800", "pfc_stat_history": "enable"}

CASES = [
    # (name, running PFC_WD, owned entries, intended PFC_WD, apply, undo, before_save)
    (
        "factory: no table",
        {},
        {},
        {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": WD, "Ethernet8": WD},
        ["sudo pfcwd start --action drop --restoration-time 400 Ethernet0 Ethernet8 200"],
        ["sudo pfcwd stop Ethernet0 Ethernet8"],
        ["sudo pfcwd interval 200"],
    ),
    (
        "in sync: pfc_stat_history is the switch's",
        {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": {**WD, "pfc_stat_history": "disable"}},
        {"Ethernet0": WD},
        {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": WD},
        [],
        [],
        [],
    ),
    (
        "changed timers, a port gone, the interval changed",
        {"GLOBAL": {"POLL_INTERVAL": "400"}, "Ethernet0": OLD, "Ethernet8": WD, "Ethernet16": WD},
        {"Ethernet0": OLD, "Ethernet8": WD},
        {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": WD},
        ["sudo pfcwd stop Ethernet8", "sudo pfcwd start --action drop --restoration-time 400 Ethernet0 200"],
        [
            "sudo pfcwd start --action drop --restoration-time 400 Ethernet8 200",
            "sudo pfcwd start --action alert --restoration-time 800 Ethernet0 400",
        ],
        ["sudo pfcwd interval 200"],
    ),
]


@pytest.mark.parametrize(("name", "running", "owned", "intended", "apply", "undo", "before_save"), CASES)
def test_pfcwd_plan(name, running, owned, intended, apply, undo, before_save):
    result = plan(running, owned, intended)
    assert (result.apply, result.undo, result.before_save) == (apply, undo, before_save), name
