"""The simulated SONiC refuses what sonic-utilities' GCU refuses (behaviour/sonic_gcu.yml), on the
factory config_db of each SKU: table-driven over the validators' cases."""

from __future__ import annotations

import copy

import pytest

from gpunet.lab.switchsim import sonic_gcu
from gpunet.lab.switchsim.factory import sonic_factory

WATCHDOG = {"action": "drop", "detection_time": "200", "restoration_time": "400"}


def with_pfc_wd(config: dict) -> dict:
    config = copy.deepcopy(config)
    config["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": "200"}}
    return config


def op(kind: str, path: str, value=None) -> list[dict]:
    return [{"op": kind, "path": path, **({} if value is None else {"value": value})}]


ILLEGAL = "table is illegal"
CASES = [
    # (model, start from a PFC_WD table?, patch, refusal text or None when GCU accepts it)
    # A whole-table add: the dict's keys (port names) are taken as fields, and match none.
    ("SN5600", False, op("add", "/PFC_WD", {"Ethernet0": WATCHDOG}), f"PFC_WD {ILLEGAL}"),
    ("SN5600", True, op("add", "/PFC_WD/Ethernet0", WATCHDOG), None),
    ("SN5600", True, op("replace", "/PFC_WD/GLOBAL/POLL_INTERVAL", "300"), None),
    # Dell-Z9864f-O64 is in no ASIC list: "unknown", which every rdma validator refuses.
    ("Z9864F", True, op("add", "/PFC_WD/Ethernet0", WATCHDOG), f"PFC_WD {ILLEGAL}"),
    ("Z9864F", True, op("replace", "/PFC_WD/GLOBAL/POLL_INTERVAL", "300"), f"PFC_WD {ILLEGAL}"),
    ("SN5600", True, op("remove", "/PFC_WD/GLOBAL"), "remove is illegal on field: /PFC_WD/GLOBAL"),
    ("SN5600", False, op("add", "/BUFFER_POOL/ingress_lossless_pool/xoff", "1"), f"BUFFER_POOL {ILLEGAL}"),
    ("SN5600", False, op("replace", "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th", "1"), None),
    ("Z9864F", False, op("replace", "/BUFFER_PROFILE/egress_lossy_profile/dynamic_th", "1"),
     f"BUFFER_PROFILE {ILLEGAL}"),
    ("SN5600", False, op("replace", "/BUFFER_PROFILE/ingress_lossy_profile/size", "1"),
     f"BUFFER_PROFILE {ILLEGAL}"),
    ("Z9864F", False, op("add", "/BUFFER_PROFILE/gpunet_x", {"size": "0", "pool": "p"}), None),
    ("SN5600", False, op("remove", "/SCHEDULER/scheduler.0") + op("remove", "/SCHEDULER/scheduler.1"),
     "empty tables"),
    ("SN5600", False, op("add", "/QUEUE/Ethernet0|3/wred_profile", "X"), None),
]  # fmt: skip

PORT_ILLEGAL = (
    f"PORT {ILLEGAL}- validating function generic_config_updater.field_operation_validators."
    "port_config_update_validator returned False"
)
INVALID = "Given patch will produce invalid config. Error: "  # StrictPatchSorter.sort
SN5600_2X400G = "2x400G[200G,100G,50G,40G,25G,10G]"
# A new port on lanes 4-7 of SN5600 cage Ethernet0 (what a 2x breakout adds)
ETHERNET4 = {"admin_status": "up", "alias": "etp1b", "index": "1", "lanes": "4,5,6,7", "mtu": "9100",
             "speed": "400000", "subport": "2"}  # fmt: skip
# A port on lanes no cage uses, with a speed that is no integer
ODD = {**ETHERNET4, "lanes": "600,601,602,603", "speed": "fast"}
SPLIT = op("replace", "/PORT/Ethernet0/lanes", "0,1,2,3") + op("add", "/PORT/Ethernet4", ETHERNET4)
PORT_CASES = [
    # (model, patch, refusal or None): port_config_update_validator checks speed and fec only,
    # against STATE_DB supported_speeds (here: the cage's platform.json speeds for the port's
    # lane count) and supported_fecs (absent: rs, fc, none, auto); a remove always passes.
    ("SN5600", op("replace", "/PORT/Ethernet0/speed", "400000"), None),
    ("Z9864F", op("replace", "/PORT/Ethernet0/speed", "400000"), None),
    # 8 lanes on the Z9864F: 1x800G or 1x400G(8) only
    ("Z9864F", op("replace", "/PORT/Ethernet0/speed", "200000"), PORT_ILLEGAL),
    ("SN5600", op("replace", "/PORT/Ethernet0/speed", "200000"), None),
    # the SFP28 cage: 1x25G[10G]
    ("SN5600", op("replace", "/PORT/Ethernet512/speed", "100000"), PORT_ILLEGAL),
    ("SN5600", op("replace", "/PORT/Ethernet512/speed", "10000"), None),
    ("SN5600", op("replace", "/PORT/Ethernet0/speed", "fast"), PORT_ILLEGAL),
    ("SN5600", op("replace", "/PORT/Ethernet0/fec", "none"), None),
    ("SN5600", op("replace", "/PORT/Ethernet0/fec", "rs544"), PORT_ILLEGAL),
    ("Z9864F", op("remove", "/PORT/Ethernet0/fec"), None),
    ("Z9864F", op("remove", "/PORT/Ethernet0/speed"), None),
    # no validator for mtu, admin_status, lanes (create-only is the sorter's, not a refusal)
    ("SN5600", op("replace", "/PORT/Ethernet0/mtu", "9216"), None),
    ("Z9864F", op("replace", "/PORT/Ethernet0/admin_status", "down"), None),
    # a port STATE_DB does not know yet has no supported_speeds: any integer passes
    ("SN5600", SPLIT, None),
    # ... nor a non-integer one: the validator only parses a speed when it has a list to compare
    # with (the YANG's uint32 range refuses it afterwards)
    ("SN5600", op("add", "/PORT/Ethernet4", ODD), None),
    # validate_lanes on the target config, after the field validators
    ("SN5600", op("add", "/PORT/Ethernet4", ETHERNET4), f"{INVALID}'[4-7]' lane is used multiple times in"),
    ("Z9864F", op("replace", "/PORT/Ethernet0/lanes", "1,,3"), f"{INVALID}PORT 'Ethernet0' has an empty"),
    ("Z9864F", op("replace", "/PORT/Ethernet0/lanes", "1,x"), f"{INVALID}PORT 'Ethernet0' has an invalid"),
    # BREAKOUT_CFG: no validator and a plain string in YANG; GCU writes the record, no port changes
    ("SN5600", op("replace", "/BREAKOUT_CFG/Ethernet0/brkout_mode", SN5600_2X400G), None),
]  # fmt: skip


@pytest.mark.parametrize(("model", "patch", "refusal"), PORT_CASES)
def test_gcu_port_validators_as_sonic_utilities_has_them(model, patch, refusal):
    config = sonic_factory(model, "leaf")
    if refusal is None:
        patched = sonic_gcu.apply(config, patch)
        assert patched != config
        if patched["BREAKOUT_CFG"] != config["BREAKOUT_CFG"]:  # a breakout record, not a breakout
            assert patched["PORT"] == config["PORT"]
    else:
        with pytest.raises(sonic_gcu.GcuRefusal, match=refusal.replace("(", r"\(").replace(")", r"\)")):
            sonic_gcu.apply(config, patch)


def test_a_rollback_to_shared_lanes_is_refused_too():
    """config rollback replaces the config through the same applier: validate_lanes holds."""
    config = sonic_factory("SN5600", "leaf")
    target = copy.deepcopy(config)
    target["PORT"]["Ethernet4"] = dict(ETHERNET4)
    with pytest.raises(sonic_gcu.GcuRefusal, match="lane is used multiple times in PORT"):
        sonic_gcu.check_transition(config, target)


@pytest.mark.parametrize(("model", "watchdog", "patch", "refusal"), CASES)
def test_gcu_refuses_as_sonic_utilities_does(model, watchdog, patch, refusal):
    config = sonic_factory(model, "leaf")
    if watchdog:
        config = with_pfc_wd(config)
    if refusal is None:
        assert sonic_gcu.apply(config, patch) != config
    else:
        with pytest.raises(sonic_gcu.GcuRefusal, match=refusal):
            sonic_gcu.apply(config, patch)


@pytest.mark.parametrize(("model", "asic"), [("SN5600", "spc4"), ("Z9864F", "unknown")])
def test_asic_family_from_the_hwsku(model, asic):
    assert sonic_gcu.asic_name(sonic_factory(model, "leaf")) == asic


def test_a_patch_on_a_missing_path_is_refused_and_changes_nothing():
    config = sonic_factory("SN5600", "leaf")
    kept = copy.deepcopy(config)
    with pytest.raises(sonic_gcu.GcuRefusal):
        sonic_gcu.apply(config, [{"op": "replace", "path": "/NO_TABLE/x/y", "value": "1"}])
    assert config == kept


def test_the_grammar_sees_only_what_the_operations_wrote():
    """The simulated SONiC checks the tables, entries and fields a patch wrote (not what it
    removed) against the grammar."""
    from gpunet.lab.switchsim.personalities.sonic import written_part

    config = sonic_factory("SN5600", "leaf")
    ops = [
        {"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"},
        {"op": "add", "path": "/QUEUE/Ethernet0|3/wred_profile", "value": "X"},
        {"op": "remove", "path": "/QUEUE/Ethernet0|5"},
    ]
    patched = sonic_gcu.apply(config, ops)
    assert written_part(patched, ops) == {
        "PORT": {"Ethernet0": {"mtu": "9216"}},
        "QUEUE": {"Ethernet0|3": {"wred_profile": "X"}},
    }


def _admin(config: dict, port: str, status: str | None) -> dict:
    config = copy.deepcopy(config)
    if status is None:
        config["PORT"][port].pop("admin_status")
    else:
        config["PORT"][port]["admin_status"] = status
    return config


TAKEN_DOWN_CASES = [
    # (the port's admin_status before, patch, ports GCU's sorter sets admin down meanwhile)
    ("up", op("add", "/QUEUE/Ethernet0|3/wred_profile", "X"), ["Ethernet0"]),
    ("up", op("remove", "/BUFFER_PG/Ethernet0|0"), ["Ethernet0"]),
    ("up", op("replace", "/PORT_QOS_MAP/Ethernet0/tc_to_queue_map", "X"), ["Ethernet0"]),
    ("up", op("add", "/BUFFER_QUEUE/Ethernet0|7", {"profile": "egress_lossy_profile"}), ["Ethernet0"]),
    # PORT fields and tables outside RequiredValueIdentifier's list need no admin down
    ("up", op("replace", "/PORT/Ethernet0/mtu", "9216"), []),
    ("up", op("replace", "/CABLE_LENGTH/AZURE/Ethernet0", "5m"), []),
    ("down", op("add", "/QUEUE/Ethernet0|3/wred_profile", "X"), []),
    # no admin_status: the setting's default_value "down"
    (None, op("add", "/QUEUE/Ethernet0|3/wred_profile", "X"), []),
]  # fmt: skip


@pytest.mark.parametrize(("status", "patch", "taken"), TAKEN_DOWN_CASES)
def test_ports_the_patch_sorter_takes_admin_down(status, patch, taken):
    config = _admin(sonic_factory("SN5600", "leaf"), "Ethernet0", status)
    config["CABLE_LENGTH"]["AZURE"]["Ethernet0"] = "40m"
    assert sonic_gcu.ports_taken_down(config, sonic_gcu.apply(config, patch)) == taken
