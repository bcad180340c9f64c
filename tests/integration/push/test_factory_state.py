"""The push onto a switch in its factory state, over real SSH to the simulator.

Each simulated switch boots with what its model ships (gpunet.lab.switchsim.factory: SONiC's
config_db rendered from the SKU's own sonic-buildimage templates). Pushing intended/ onto it must
leave every factory entry gpunet does not replace byte for byte as it was, make the intent hold,
and a second push must change nothing. SONiC's GCU refusals (simulated from sonic-utilities'
rules) must never be hit: the watchdog goes through `pfcwd`.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from gpunet.lab.switchsim import SimOptions, sonic_gcu
from gpunet.lab.switchsim.factory import SONIC_SKUS, cli_factory
from gpunet.netdev import remediation as remediation_module
from gpunet.netdev.errors import PushError
from gpunet.netdev.osdata import os_rules
from gpunet.netdev.push import push_switch
from gpunet.netdev.sonic_pfcwd import PfcwdPlan
from tests.integration.push.conftest import PASSWORD, Target
from tests.integration.push.test_push import OPTIONS, connection, running

# Per SONiC switch of the prod inventory: its model, and the factory entries on gpunet's ports
# that contradict the intent and so must be gone (the SN5600's dynamic image has lossless PGs
# `3-4` on profile NULL; gpunet makes PG 3 alone lossless). Nothing else may change.
SONIC_SWITCHES = {
    "leaf06": ("SN5600", {"BUFFER_PG": "{port}|3-4"}),
    "leaf07": ("Z9864F", {}),
}
# What the issue names as lost before: each must be on every gpunet port after the push.
KEPT_ON_EVERY_PORT = {
    "BUFFER_PG": ["{port}|0"],
    "BUFFER_QUEUE": ["{port}|0-2", "{port}|5-6"],
    "QUEUE": ["{port}|1", "{port}|2", "{port}|4", "{port}|5"],
}
OTHER_SWITCHES = {"nxos": "leaf01", "eos": "leaf03", "cumulus": "leaf05", "junos": "leaf08"}
# PORT fields a breakout writes on a child port from platform.json (portconfig.py BreakoutCfg);
# every other factory PORT field of a split cage's port must stay.
BREAKOUT_FIELDS = {"alias", "lanes", "speed", "index", "subport", "fec"}
# Per SONiC switch: cage Ethernet0's child ports in intended/'s 2x400G mode, as BreakoutCfg builds
# them from the SKU's platform.json (sonic-buildimage 086b03bd: lanes 0-7 on the SN5600, 1-8 on the
# Z9864F; aliases etp1a/etp1b), and the mode's name in that platform.json.
SPLIT_CAGE = {
    "leaf06": ("2x400G[200G,100G,50G,40G,25G,10G]", {
        "Ethernet0": {"alias": "etp1a", "lanes": "0,1,2,3", "speed": "400000", "index": "1", "subport": "1",
                      "fec": "rs"},
        "Ethernet4": {"alias": "etp1b", "lanes": "4,5,6,7", "speed": "400000", "index": "1", "subport": "2",
                      "fec": "rs"},
    }),
    "leaf07": ("2x400G(8)", {
        "Ethernet0": {"alias": "etp1a", "lanes": "1,2,3,4", "speed": "400000", "index": "1", "subport": "1",
                      "fec": "rs"},
        "Ethernet4": {"alias": "etp1b", "lanes": "5,6,7,8", "speed": "400000", "index": "1", "subport": "2",
                      "fec": "rs"},
    }),
}  # fmt: skip


@pytest.fixture
def start_named(fleet, prod_fabric, rendered):
    def starter(name: str, prepare=None, **faults) -> Target:
        model = prod_fabric.switches[name]
        options = SimOptions(username="netops", password=PASSWORD, minute_seconds=2, **faults)
        ports = [p.name for p in model.ports]
        sim = fleet.start(model.platform, name, options=options, ports=ports, model=model.model)
        if prepare is not None:
            fleet.call(prepare, sim.state)
        switch = dataclasses.replace(model, mgmt_address="127.0.0.1", mgmt_port=sim.port, mgmt_user="netops")
        return Target(sim, switch, rendered[name])

    return starter


def push(target, intended: str, backups):
    return push_switch(
        target.switch, intended, connection(), check_mode=False, backup_root=backups, options=OPTIONS
    )


def factory_of(fleet, target) -> dict:
    return fleet.call(lambda: copy.deepcopy(target.sim.state.startup))


def history(fleet, target) -> list[dict]:
    return fleet.call(lambda: copy.deepcopy(target.sim.state.history))


def assert_factory_kept(
    config: dict, factory: dict, intended: dict, contradicted: set[tuple[str, str]]
) -> None:
    split = {cage for cage, fields in intended.get("BREAKOUT_CFG", {}).items()
             if factory["BREAKOUT_CFG"][cage] != fields}  # fmt: skip
    for table, entries in factory.items():
        for key, fields in entries.items():
            if (table, key) in contradicted:
                assert key not in config.get(table, {}), f"{table}|{key} contradicts the intent and stayed"
                continue
            wanted = intended.get(table, {}).get(key, {})
            if table == "PORT" and key in split:
                wanted = {**dict.fromkeys(BREAKOUT_FIELDS), **wanted}
            assert table in config and key in config[table], f"factory {table}|{key} deleted"
            # a split cage's new child ports have CABLE_LENGTH fields of their own
            kept = {f: v for f, v in config[table][key].items()
                    if f not in wanted and (table != "CABLE_LENGTH" or f in factory["PORT"])}  # fmt: skip
            assert kept == {f: v for f, v in fields.items() if f not in wanted}, (
                f"factory {table}|{key} changed"
            )


def assert_intent_holds(config: dict, intended: dict) -> None:
    for table, entries in intended.items():
        for key, fields in entries.items():
            assert config[table][key] == {**config[table][key], **fields}, f"{table}|{key}"


@pytest.mark.parametrize("name", list(SONIC_SWITCHES))
def test_sonic_push_onto_factory_state_keeps_every_vendor_default(fleet, start_named, backups, name):
    model, contradicting = SONIC_SWITCHES[name]
    target = start_named(name)
    factory = factory_of(fleet, target)
    assert factory["DEVICE_METADATA"]["localhost"]["hwsku"] == SONIC_SKUS[model]
    assert "PFC_WD" not in factory  # default_pfcwd_status disable: the table is absent
    intended = json.loads(target.intended)
    ports = sorted(intended["PORT_QOS_MAP"])
    contradicted = {
        (table, form.format(port=port)) for table, form in contradicting.items() for port in ports
    }

    result = push(target, target.intended, backups)
    assert (result.changed, result.message) == (True, "committed, confirmed and saved")
    config = running(fleet, target)
    assert_intent_holds(config, intended)
    assert_factory_kept(config, factory, intended, contradicted)
    for table, forms in KEPT_ON_EVERY_PORT.items():
        for port in ports:
            for form in forms:
                key = form.format(port=port)
                assert config[table][key] == factory[table][key], f"{table}|{key}"
    events = [entry["event"] for entry in history(fleet, target)]
    assert events.count("apply-patch") == 1 and "pfcwd" in events
    assert events.count("breakout") == len(intended["BREAKOUT_CFG"])  # every cage: 1x800G -> 2x400G
    assert fleet.call(lambda: target.sim.state.startup) == config  # saved

    again = push(target, target.intended, backups)
    assert (again.changed, again.diff) == (False, "")
    assert len(history(fleet, target)) == len(events)  # no breakout, no patch, nothing sent


@pytest.mark.parametrize("name", list(SONIC_SWITCHES))
def test_sonic_push_with_an_existing_watchdog_table(fleet, start_named, backups, name):
    """An operator already ran the watchdog on a port gpunet does not list, and the GLOBAL interval
    is 400 ms: gpunet changes the interval and its own ports, and leaves that port's watchdog."""

    def watchdog(state) -> None:
        state.config["PFC_WD"] = {
            "GLOBAL": {"POLL_INTERVAL": "400"},
            "Ethernet504": {"action": "alert", "detection_time": "400", "restoration_time": "800",
                            "pfc_stat_history": "enable"},
        }  # fmt: skip
        state.config["PORT_QOS_MAP"]["Ethernet504"]["pfc_enable"] = "3,4"

    target = start_named(name, prepare=watchdog)
    result = push(target, target.intended, backups)
    assert result.changed
    config = running(fleet, target)
    intended = json.loads(target.intended)
    assert config["PFC_WD"]["GLOBAL"] == intended["PFC_WD"]["GLOBAL"]
    assert config["PFC_WD"]["Ethernet504"]["action"] == "alert"
    for port, fields in intended["PFC_WD"].items():
        assert config["PFC_WD"][port] == {**config["PFC_WD"][port], **fields}
    assert push(target, target.intended, backups).changed is False


def test_sonic_failed_push_after_the_watchdog_restores_it_and_rolls_back(fleet, start_named, backups):
    """Z9864F (no PFC_WD change passes GCU there): a refusal after `pfcwd start` (the interval,
    set last) puts PFC_WD back by `pfcwd` first, so GCU accepts the rollback and the switch ends
    exactly as it was."""

    def watchdog(state) -> None:
        state.config["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": "400"}}

    target = start_named("leaf07", prepare=watchdog, reject=r"^pfcwd interval 200$")
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, target.intended, backups)
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before
    events = [entry["event"] for entry in history(fleet, target)]
    assert "rollback" in events and "pfcwd" in events


def test_sonic_refuses_a_switch_on_the_other_buffer_model(fleet, start_named, backups):
    def traditional(state) -> None:
        state.config["DEVICE_METADATA"]["localhost"]["buffer_model"] = "traditional"

    target = start_named("leaf06", prepare=traditional)
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, target.intended, backups)
    assert failure.value.config_state == "unchanged"
    assert "runs the traditional buffer model" in str(failure.value) and "dynamic" in str(failure.value)
    assert running(fleet, target) == before
    assert [e["event"] for e in history(fleet, target)] == []


def test_a_push_rule_that_sends_pfc_wd_through_gcu_is_caught_by_the_simulator(
    fleet, start_named, backups, monkeypatch
):
    """The simulator judges by sonic-utilities' rules, not by the push's: a push that put PFC_WD
    into the JSON Patch (the old rule) is refused by GCU and nothing changes."""
    original = remediation_module._document

    def pfc_wd_in_the_patch(rules, running_doc, intended):
        result = original(rules, running_doc, intended)
        table = {"op": "add", "path": "/PFC_WD", "value": intended["PFC_WD"]}
        return dataclasses.replace(result, patch=[*result.patch, table], pfcwd=PfcwdPlan())

    monkeypatch.setattr(remediation_module, "_document", pfc_wd_in_the_patch)
    target = start_named("leaf06")
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, target.intended, backups)
    assert "Modification of PFC_WD table is illegal" in str(failure.value)
    assert running(fleet, target) == before


@pytest.mark.parametrize("name", list(SONIC_SWITCHES))
def test_sonic_port_fields_of_the_intent_hold_on_the_split_cages(fleet, start_named, backups, name):
    """intended/ changes PORT speed and mtu on every gpunet port (800G cage -> 2x400G, 9100 ->
    9216): each gpunet port is the cage's first child port with the fields BreakoutCfg gives it,
    the factory's other PORT fields (admin_status, dhcp_rate_limit) carried over from the cage's
    old port, and intended/'s; the second child likewise with the factory mtu; no lane in two
    ports (GCU's validate_lanes)."""
    target = start_named(name)
    factory = factory_of(fleet, target)
    intended = json.loads(target.intended)
    assert push(target, target.intended, backups).changed
    config = running(fleet, target)
    for port, fields in intended["PORT"].items():
        cage = factory["PORT"][port]
        assert cage["speed"] != fields["speed"]
        kept = {field: value for field, value in cage.items() if field not in BREAKOUT_FIELDS}
        assert config["PORT"][port] == {**kept, **config["PORT"][port], **fields}
        assert set(config["PORT"][port]) == set(kept) | BREAKOUT_FIELDS
        second = f"Ethernet{int(port.removeprefix('Ethernet')) + 4}"
        assert config["PORT"][second] == {**kept, **config["PORT"][second]}
        assert config["PORT"][second]["speed"] == fields["speed"]
    assert sonic_gcu.lanes_error(config) is None


@pytest.mark.parametrize("name", list(SONIC_SWITCHES))
def test_sonic_push_takes_each_gpunet_port_admin_down_meanwhile(fleet, start_named, backups, name):
    """GCU's patch sorter sets a port admin down before it changes the port's BUFFER_PG,
    BUFFER_QUEUE, QUEUE or PORT_QOS_MAP entries and restores it after (sonic-utilities
    patch_sorter.py RequiredValueMoveExtender): the first push from factory state bounces every
    port intended/ configures, and no other; a second push, with nothing to change, none."""
    target = start_named(name)
    factory = factory_of(fleet, target)
    push(target, target.intended, backups)
    config = running(fleet, target)
    assert sorted(sonic_gcu.ports_taken_down(factory, config)) == sorted(json.loads(target.intended)["PORT"])
    assert push(target, target.intended, backups).changed is False  # no second patch: no bounce


@pytest.mark.parametrize(("name", "speed"), [("leaf07", "800000"), ("leaf06", "1600000")])
def test_sonic_push_of_a_speed_the_port_does_not_support_is_refused_by_gcu(
    fleet, start_named, backups, name, speed
):
    """A speed the split port's four lanes cannot run (800G needs eight; none of the SN5600's
    reaches 1.6T) is refused by GCU's port validator after the breakout: the patch is atomic, the
    undo breaks every cage back into 1x800G and the rollback restores the rest, so the switch
    ends as it was."""
    target = start_named(name)
    before = running(fleet, target)
    intended = json.loads(target.intended)
    intended["PORT"]["Ethernet0"]["speed"] = speed
    with pytest.raises(PushError) as failure:
        push(target, json.dumps(intended, indent=4, sort_keys=True), backups)
    assert "port_config_update_validator returned False" in str(failure.value)
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before
    events = [entry["event"] for entry in history(fleet, target)]
    assert events.count("breakout") == 2 * len(intended["BREAKOUT_CFG"])  # out, and back


@pytest.mark.parametrize("name", list(SONIC_SWITCHES))
def test_sonic_push_splits_each_cage_as_its_breakout_says(fleet, start_named, backups, name):
    """intended/ says 2x400G per cage: the push runs dynamic port breakout, and cage Ethernet0's
    child ports are those portconfig's BreakoutCfg builds from the SKU's platform.json, each with
    the SKU's own per-port buffer and QoS entries again (`config qos reload --ports`: the lossy
    PG and queues gpunet does not write are the factory's)."""
    mode, children = SPLIT_CAGE[name]
    target = start_named(name)
    factory = factory_of(fleet, target)
    assert factory["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"] != mode
    assert json.loads(target.intended)["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"] == mode
    push(target, target.intended, backups)
    config = running(fleet, target)
    assert config["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": mode}
    for port, fields in children.items():
        assert {field: config["PORT"][port].get(field) for field in fields} == fields
        for table, forms in KEPT_ON_EVERY_PORT.items():
            for form in forms:
                assert config[table][form.format(port=port)] == factory[table][form.format(port="Ethernet0")]
    assert config["CABLE_LENGTH"]["AZURE"]["Ethernet4"] == factory["CABLE_LENGTH"]["AZURE"]["Ethernet0"]
    assert "Ethernet4" not in factory["PORT"]


@pytest.mark.parametrize(
    ("name", "mode", "refusal"),
    [
        # The Z9864F's platform.json names the mode 2x400G(8): the name must match verbatim.
        ("leaf07", "2x400G", "[ERROR] Target mode 2x400G is not available for the port Ethernet8"),
        ("leaf06", "8x100G", "[ERROR] Target mode 8x100G is not available for the port Ethernet8"),
    ],
)
def test_sonic_breakout_mode_the_platform_does_not_list_leaves_the_switch_as_it_was(
    fleet, start_named, backups, name, mode, refusal
):
    """A mode outside the cage's breakout_modes is refused by `config interface breakout` with
    sonic-utilities' message; the cages split before it are broken back and the push rolls back."""
    target = start_named(name)
    before = running(fleet, target)
    intended = json.loads(target.intended)
    intended["BREAKOUT_CFG"]["Ethernet8"]["brkout_mode"] = mode  # the second cage the push splits
    with pytest.raises(PushError) as failure:
        push(target, json.dumps(intended, indent=4, sort_keys=True), backups)
    assert refusal in str(failure.value)
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before


def test_sonic_breakout_that_would_delete_an_operators_config_is_refused_before_any_change(
    fleet, start_named, backups
):
    """An IP address on a cage's port: `config interface breakout -f` would delete it for good, so
    the push refuses before its checkpoint and names the entry."""

    def routed(state) -> None:
        state.config["INTERFACE"] = {"Ethernet8": {}, "Ethernet8|10.0.0.0/31": {}}

    target = start_named("leaf06", prepare=routed)
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, target.intended, backups)
    assert "would delete INTERFACE|Ethernet8, INTERFACE|Ethernet8|10.0.0.0/31" in str(failure.value)
    assert failure.value.config_state == "unchanged"
    assert running(fleet, target) == before
    assert [entry["event"] for entry in history(fleet, target)] == []


@pytest.mark.parametrize(
    ("name", "fault"),
    [
        # lost once every cage was split and given its QoS, before the patch
        ("leaf06", {"drop_at": r"config qos reload"}),
        # the patch lands and its reply is lost: the push recovers on a new session
        ("leaf07", {"drop_at": r"config apply-patch"}),
    ],
)
def test_sonic_fault_after_the_breakout_breaks_the_cages_back(fleet, start_named, backups, name, fault):
    target = start_named(name, **fault)
    before = running(fleet, target)
    # a lost reply is noticed when its read times out: short here, every simulated reply is quick
    quick = dataclasses.replace(OPTIONS, command_timeout_s=4)
    with pytest.raises(PushError) as failure:
        push_switch(target.switch, target.intended, connection(), check_mode=False, backup_root=backups,
                    options=quick)  # fmt: skip
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before
    events = [entry["event"] for entry in history(fleet, target)]
    assert events.count("breakout") == 2 * len(json.loads(target.intended)["BREAKOUT_CFG"])


# Per CLI OS, factory lines of cli.yml on a port gpunet configures, which the push must keep.
FACTORY_PORT_LINES = {
    "nxos": "interface Ethernet1/1",
    "eos": "interface Ethernet1/1",
    "junos": "set interfaces et-0/0/0 unit 0 family ethernet-switching storm-control default",
}


@pytest.mark.parametrize("platform", list(OTHER_SWITCHES))
def test_cli_push_onto_factory_state_keeps_its_lines(fleet, start_named, backups, platform):
    target = start_named(OTHER_SWITCHES[platform])
    factory = factory_of(fleet, target)
    assert factory == cli_factory(platform, OTHER_SWITCHES[platform], target.sim.state.ports)
    if platform in FACTORY_PORT_LINES:
        assert FACTORY_PORT_LINES[platform] in factory
    assert push(target, target.intended, backups).changed
    config = running(fleet, target)
    assert [line for line in factory if line not in config] == []
    assert push(target, target.intended, backups).changed is False


# A port rule that claims every statement on gpunet's ports (the mistake a declarative push makes
# when it owns whole interfaces): the factory lines on those ports must show it.
CLAIMS_WHOLE_PORTS = {
    "junos": r"set (class-of-service )?interfaces (?P<port>[a-z]{2}-\d+/\d+/\d+(:\d+)?)( .*)?",
}


@pytest.mark.parametrize("platform", list(CLAIMS_WHOLE_PORTS))
def test_a_port_rule_that_owns_whole_ports_is_caught_by_the_factory_state(
    fleet, start_named, backups, monkeypatch, platform
):
    monkeypatch.setitem(os_rules(platform).owned, "port", CLAIMS_WHOLE_PORTS[platform])
    target = start_named(OTHER_SWITCHES[platform])
    push(target, target.intended, backups)
    assert FACTORY_PORT_LINES[platform] not in running(fleet, target)


@pytest.mark.parametrize(
    ("name", "old_release", "refused"),
    [
        # NVUE's PFC watchdog paths arrive in Cumulus 5.6.0 (NVIDIA's command reference,
        # introduced-in): a 5.5 switch does not know them.
        ("leaf05", "5.5.0", "pfc-watchdog"),
        # Dynamic port breakout (BREAKOUT_CFG) is SONiC 202012's (sonic-breakout_cfg.yang): an
        # older `config interface` has no `breakout` command.
        ("leaf06", "201911", 'No such command "breakout"'),
    ],
)
def test_a_switch_on_an_older_release_refuses_what_it_lacks(
    fleet, start_named, backups, name, old_release, refused
):
    """The simulator boots with the release the inventory claims; one that really runs an older
    release refuses the newer statements, and the push rolls back."""

    def older(state) -> None:
        state.os_version = old_release

    target = start_named(name, prepare=older)
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, target.intended, backups)
    assert refused in str(failure.value)
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before


@pytest.mark.parametrize(
    "scenario", ["lossless-priority", "queue-share", "ecn-threshold", "remove-queue", "remove-port"]
)
def test_the_policy_changes_converge_from_the_sn5600_factory_state(
    fleet, start_named, prod_fabric, backups, scenario
):
    """test_remediation's five changes on the SN5600 (dynamic buffer model): each converges from
    the factory config_db, keeps what the factory has, and a second push changes nothing."""
    from tests.integration.push.test_remediation import SCENARIOS, assert_holds, render_for

    before_fabric, after_fabric = (make(prod_fabric, "leaf06") for make in SCENARIOS[scenario])
    before, after = render_for(before_fabric, "leaf06"), render_for(after_fabric, "leaf06")
    target = start_named("leaf06")
    factory = factory_of(fleet, target)
    assert push(target, before, backups).changed
    assert push(target, after, backups).message == "committed, confirmed and saved"
    assert_holds(running(fleet, target), after, before, "sonic", factory)
    config = running(fleet, target)
    for port in json.loads(after)["PORT_QOS_MAP"]:
        assert config["BUFFER_PG"][f"{port}|0"] == factory["BUFFER_PG"][f"{port}|0"]
        assert config["BUFFER_QUEUE"][f"{port}|0-2"] == factory["BUFFER_QUEUE"][f"{port}|0-2"]
    assert push(target, after, backups).changed is False


def _pause_on_gpunet_ports(state) -> None:
    """An operator ran Ethernet PAUSE on the QFX's ports before gpunet (old storage traffic)."""
    for port in state.ports:
        state.config.append(f"set interfaces {port} ether-options flow-control")


def test_junos_pause_on_a_port_gives_way_to_pfc(fleet, start_named, backups):
    """Junos YANG makes flow-control/no-flow-control one choice: gpunet's `no-flow-control` takes
    PAUSE off, so the commit's PAUSE-and-PFC constraint holds and the push converges."""
    target = start_named("leaf08", prepare=_pause_on_gpunet_ports)
    result = push(target, target.intended, backups)
    assert result.changed and result.message.startswith("committed")
    config = running(fleet, target)
    assert not [line for line in config if line.endswith("ether-options flow-control")]
    assert "set interfaces et-0/0/0 ether-options no-flow-control" in config
    assert push(target, target.intended, backups).changed is False


def test_junos_refuses_pfc_on_a_port_that_still_runs_pause(fleet, start_named, backups):
    """An intent that left PAUSE on (no `no-flow-control`) is refused by the commit, as Juniper
    documents, and the push leaves the switch as it was."""
    target = start_named("leaf08", prepare=_pause_on_gpunet_ports)
    before = running(fleet, target)
    without = "\n".join(line for line in target.intended.splitlines() if "no-flow-control" not in line)
    with pytest.raises(PushError) as failure:
        push(target, without, backups)
    assert "Ethernet PAUSE and PFC" in str(failure.value)
    assert failure.value.config_state in ("rolled back", "unchanged")
    assert running(fleet, target) == before


def test_a_breakout_slower_than_any_other_command_is_waited_for(fleet, start_named, backups):
    """A breakout may wait up to a minute for its old ports to leave ASIC_DB (config_mgmt.py
    MAX_WAIT): its reply, slower than command_timeout_s here, is still waited for, not taken as a
    lost session."""
    target = start_named("leaf06", slow_at=r"config interface breakout", slow_s=4.0)
    quick = dataclasses.replace(OPTIONS, command_timeout_s=2)
    result = push_switch(target.switch, target.intended, connection(), check_mode=False, backup_root=backups,
                         options=quick)  # fmt: skip
    assert result.changed
    events = [entry["event"] for entry in history(fleet, target)]
    assert "slow" in events
    assert events.count("breakout") == len(json.loads(target.intended)["BREAKOUT_CFG"])
    assert "Ethernet4" in running(fleet, target)["PORT"]
