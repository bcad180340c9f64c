"""The simulated SONiC's dynamic port breakout and `config qos reload --ports` (behaviour/sonic_dpb.yml)
as sonic-utilities 691b1bb runs them, on the factory config_db of each SKU: table-driven over the
command's refusals, its child ports and what it deletes."""

from __future__ import annotations

import copy

import pytest

from gpunet.lab.switchsim import SimOptions, sonic_dpb
from gpunet.lab.switchsim.factory import sonic_factory
from gpunet.lab.switchsim.personalities.sonic import SonicPersonality
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimulatedSwitch

MODE = {"SN5600": "2x400G[200G,100G,50G,40G,25G,10G]", "Z9864F": "2x400G(8)"}
ABORTED = "Aborted!"


def with_table(model: str, table: str, entries: dict) -> dict:
    config = copy.deepcopy(sonic_factory(model, "leaf"))
    config[table] = {**config.get(table, {}), **entries}
    return config


REFUSALS = [
    # (model, config or None for the factory's, arguments, the lines printed, in order)
    # The mode must be a key of the cage's platform.json breakout_modes, verbatim (the Z9864F
    # names it 2x400G(8); BreakoutCfg would take 2x400G as the same shape, _validate_interface_mode not).
    ("Z9864F", None, "Ethernet0 2x400G -y -f",
     ["[ERROR] Target mode 2x400G is not available for the port Ethernet0", ABORTED]),
    ("SN5600", None, "Ethernet0 8x100G -y -f",
     ["[ERROR] Target mode 8x100G is not available for the port Ethernet0", ABORTED]),
    # Only a cage (a BREAKOUT_CFG key) breaks out, never a child port or an unknown one
    ("SN5600", None, "Ethernet4 '2x400G[200G,100G,50G,40G,25G,10G]' -y -f",
     ["[ERROR] Ethernet4 interface is NOT present in BREAKOUT_CFG table of CONFIG DB", ABORTED]),
    ("SN5600", None, "Ethernet1 2x400G -y",
     ["[ERROR] Ethernet1 interface is NOT present in BREAKOUT_CFG table of CONFIG DB", ABORTED]),
    # In BREAKOUT_CFG but not a parent port of platform.json
    ("SN5600", with_table("SN5600", "BREAKOUT_CFG", {"Ethernet1000": {"brkout_mode": "1x800G"}}),
     "Ethernet1000 1x800G -y -f",
     ["[ERROR] Ethernet1000 is not a Parent port. So, Breakout Mode is not available on this port", ABORTED]),
    # -y answers the first prompt; without it the prompt reads end of input
    ("SN5600", None, "Ethernet0 '2x400G[200G,100G,50G,40G,25G,10G]'",
     ["Do you want to Breakout the port, continue? [y/N]: ", ABORTED]),
    # the factory's QoS refers to the port: without -f the command lists it and stops
    ("Z9864F", None, "Ethernet0 '2x400G(8)' -y", ["Dependencies Exist. No further action will be taken",
                                                  "*** Printing dependencies ***", "BUFFER_PG|Ethernet0|0"]),
    # -l reads a file hardware images do not ship
    ("SN5600", None, "Ethernet0 '2x400G[200G,100G,50G,40G,25G,10G]' -y -f -l",
     ["[ERROR] Port breakout Failed!!! Opting Out", "Failed to break out Port. Error: "]),
    # a table without a YANG model: the second prompt, which -y does not answer, reads /dev/null
    ("SN5600", with_table("SN5600", "GPUNET_NO_YANG", {"Ethernet0": {"x": "1"}}),
     "Ethernet0 '2x400G[200G,100G,50G,40G,25G,10G]' -y -f",
     ["Below Config can not be verified, It may cause harm to the system",
      "Failed to break out Port. Error: Failed in breakout_warnUser_extraTables. Error: "]),
    ("SN5600", None, "Ethernet0 '1x800G[400G,200G,100G,50G,40G,25G,10G]' -y -f",
     ["[WARNING] No action will be taken as current and desired Breakout Mode are same."]),
]  # fmt: skip


@pytest.mark.parametrize(("model", "config", "arguments", "lines"), REFUSALS)
def test_breakout_refuses_as_sonic_utilities_does(model, config, arguments, lines):
    config = config or sonic_factory(model, "leaf")
    run = sonic_dpb.breakout(config, f" {arguments}", stdin_closed=True)
    assert run.config is None
    text = run.text()
    positions = [text.find(line) for line in lines]
    assert -1 not in positions, text
    assert positions == sorted(positions)


# Per SKU, cage Ethernet0 in 2x400G: the child ports BreakoutCfg builds from platform.json
# (sonic-buildimage 086b03bd) and nothing else on them.
CHILDREN = {
    "SN5600": {
        "Ethernet0": {"alias": "etp1a", "lanes": "0,1,2,3", "speed": "400000", "index": "1", "subport": "1",
                      "fec": "rs"},
        "Ethernet4": {"alias": "etp1b", "lanes": "4,5,6,7", "speed": "400000", "index": "1", "subport": "2",
                      "fec": "rs"},
    },
    "Z9864F": {
        "Ethernet0": {"alias": "etp1a", "lanes": "1,2,3,4", "speed": "400000", "index": "1", "subport": "1",
                      "fec": "rs"},
        "Ethernet4": {"alias": "etp1b", "lanes": "5,6,7,8", "speed": "400000", "index": "1", "subport": "2",
                      "fec": "rs"},
    },
}  # fmt: skip


@pytest.mark.parametrize("model", list(CHILDREN))
def test_breakout_with_force_deletes_the_old_port_and_what_refers_to_it(model):
    factory = sonic_factory(model, "leaf")
    run = sonic_dpb.breakout(factory, f" Ethernet0 '{MODE[model]}' -y -f", stdin_closed=True)
    assert "Breakout process got successfully completed." in run.text()
    config = run.config
    assert {port: config["PORT"][port] for port in CHILDREN[model]} == CHILDREN[model]
    assert config["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": MODE[model]}
    for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP"):
        assert [key for key in config[table] if key.split("|")[0] == "Ethernet0"] == [], table
        assert [key for key in factory[table] if key.split("|")[0] == "Ethernet0"] != [], table
    assert "Ethernet0" not in config["CABLE_LENGTH"]["AZURE"]
    # every other cage as it was
    untouched = {table: {k: v for k, v in entries.items() if not k.startswith(("Ethernet0", "Ethernet4|"))}
                 for table, entries in factory.items() if table != "CABLE_LENGTH"}  # fmt: skip
    assert all(config[table].get(key) == value for table, e in untouched.items() for key, value in e.items())


@pytest.mark.parametrize("model", list(CHILDREN))
def test_qos_reload_ports_gives_the_new_ports_the_skus_entries(model):
    factory = sonic_factory(model, "leaf")
    split = sonic_dpb.breakout(factory, f" Ethernet0 '{MODE[model]}' -y -f", stdin_closed=True).config
    config, output = sonic_dpb.qos_reload_ports(split, "Ethernet0,Ethernet4,Ethernet2")
    assert output == "The port(s) {'Ethernet2'} are not updated because they do not exist"
    for port in ("Ethernet0", "Ethernet4"):
        for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP"):
            mine = {
                key.replace(port, "P", 1): v for key, v in config[table].items() if key.split("|")[0] == port
            }
            theirs = {key.replace("Ethernet8", "P", 1): v for key, v in factory[table].items()
                      if key.split("|")[0] == "Ethernet8"}  # fmt: skip
            assert mine == theirs != {}, (port, table)
        assert config["CABLE_LENGTH"]["AZURE"][port] == factory["CABLE_LENGTH"]["AZURE"]["Ethernet8"]


def session(model: str, os_version: str | None = None) -> SonicPersonality:
    state = SwitchState(
        "sonic", "leaf", model=model, os_version=os_version, config=sonic_factory(model, "leaf")
    )
    return SonicPersonality(SimulatedSwitch(state, SimOptions()), "admin")


def test_the_shell_needs_root_and_takes_stdin_from_dev_null():
    shell = session("Z9864F")
    assert shell.handle("config interface breakout Ethernet0 '2x400G(8)' -y -f") == (
        "Root privileges are required for this operation"
    )
    shell.state.config["GPUNET_NO_YANG"] = {"k": {"x": "1"}}
    # with a terminal the second prompt waits for an answer; "y" goes on
    out = shell.handle("sudo config interface breakout Ethernet0 '2x400G(8)' -y -f")
    assert "Below Config can not be verified" in out and shell.prompt() == "Do you wish to Continue? [y/N]: "
    assert "Breakout process got successfully completed." in shell.handle("y")
    assert "Ethernet4" in shell.state.config["PORT"]
    # from /dev/null it reads end of input and aborts, nothing changed
    before = copy.deepcopy(shell.state.config)
    out = shell.handle("sudo config interface breakout Ethernet8 '2x400G(8)' -y -f < /dev/null")
    assert out.endswith("Failed in breakout_warnUser_extraTables. Error: ") and shell.state.config == before


def test_an_older_release_has_no_breakout_command():
    shell = session("SN5600", os_version="201911")
    out = shell.handle("sudo config interface breakout Ethernet0 '2x400G[200G,100G,50G,40G,25G,10G]' -y -f")
    assert out.endswith('Error: No such command "breakout".')
