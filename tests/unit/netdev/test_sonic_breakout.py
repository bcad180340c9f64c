"""The push's breakout plan on SONiC (gpunet.netdev.sonic_breakout): which cages run
`config interface breakout`, the command it sends, what it refuses to delete, what it carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.lab.switchsim.factory import sonic_factory
from gpunet.netdev import sonic_breakout
from gpunet.netdev.remediation import remediate

INTENDED = Path(__file__).resolve().parents[3] / "intended" / "prod"
SWITCHES = {"leaf06": "SN5600", "leaf07": "Z9864F"}


@pytest.mark.parametrize("name", list(SWITCHES))
def test_from_factory_every_intended_cage_breaks_out_and_the_patch_leaves_breakout_cfg_alone(name):
    factory = sonic_factory(SWITCHES[name], name)
    text = (INTENDED / f"{name}.cfg").read_text()
    intended = json.loads(text)
    remediation = remediate("sonic", json.dumps(factory), text)
    cages = remediation.breakout.cages
    assert [cage.cage for cage in cages] == list(intended["BREAKOUT_CFG"])
    assert {cage.running for cage in cages} == {factory["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"]}
    mode = intended["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"]
    assert remediation.commands[0] == f"sudo config interface breakout Ethernet0 '{mode}' -y -f < /dev/null"
    assert not [op for op in remediation.patch if op["path"].startswith("/BREAKOUT_CFG")]
    # once split, nothing is left to break out
    split = json.loads(json.dumps(factory))
    split["BREAKOUT_CFG"] = intended["BREAKOUT_CFG"]
    assert remediate("sonic", json.dumps(split), text).breakout.cages == []


FOREIGN = [
    # (table, entries on a cage's port, what the push names as lost)
    ("INTERFACE", {"Ethernet8|10.0.0.0/31": {}}, ["INTERFACE|Ethernet8|10.0.0.0/31"]),
    ("VLAN_MEMBER", {"Vlan10|Ethernet0": {"tagging_mode": "untagged"}}, ["VLAN_MEMBER|Vlan10|Ethernet0"]),
    ("ACL_TABLE", {"DATA": {"ports": "Ethernet504,Ethernet16"}}, ["ACL_TABLE|DATA"]),
    # a port on no cage the push splits, and the tables the push restores itself
    ("INTERFACE", {"Ethernet504|10.0.0.2/31": {}}, []),
    ("PFC_WD", {"Ethernet0": {"action": "drop"}}, []),
]


@pytest.mark.parametrize(("table", "entries", "lost"), FOREIGN)
def test_config_the_breakout_would_delete_for_good_is_named(table, entries, lost):
    running = sonic_factory("SN5600", "leaf06")
    running[table] = entries
    intended = json.loads((INTENDED / "leaf06.cfg").read_text())
    plan = sonic_breakout.plan(running, intended)
    assert sonic_breakout.foreign_references(running, plan) == lost


def test_the_child_ports_get_the_old_ports_other_fields_and_the_undo_breaks_back():
    before = sonic_factory("Z9864F", "leaf07")
    after = json.loads(json.dumps(before))
    del after["PORT"]["Ethernet0"]
    after["PORT"]["Ethernet0"] = {"alias": "etp1a", "lanes": "1,2,3,4", "speed": "400000", "index": "1",
                                  "subport": "1", "fec": "rs"}  # fmt: skip
    after["PORT"]["Ethernet4"] = {**after["PORT"]["Ethernet0"], "alias": "etp1b", "lanes": "5,6,7,8"}
    after["BREAKOUT_CFG"]["Ethernet0"] = {"brkout_mode": "2x400G(8)"}
    ports = sonic_breakout.new_ports(before, after)
    assert ports == ["Ethernet0", "Ethernet4"]
    carried = sonic_breakout.carried(before, after, ports)
    kept = {"admin_status": "up", "dhcp_rate_limit": "300", "mtu": "9100"}  # the factory's, not BreakoutCfg's
    assert carried == {port: kept for port in ports}
    intended = {"PORT": {"Ethernet0": {"mtu": "9216"}}}
    paths = [op["path"] for op in sonic_breakout.carry_operations(carried, intended)]
    assert "/PORT/Ethernet0/mtu" not in paths and "/PORT/Ethernet4/mtu" in paths
    plan = sonic_breakout.plan(before, {"BREAKOUT_CFG": {"Ethernet0": {"brkout_mode": "2x400G(8)"}}})
    assert sonic_breakout.reverse(plan, after) == [
        "sudo config interface breakout Ethernet0 1x800G -y -f < /dev/null"
    ]
    assert sonic_breakout.reverse(plan, before) == []  # never split: nothing to break back
