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
