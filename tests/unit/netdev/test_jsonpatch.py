"""JSON Patch for SONiC config_db: what the push sends and how the simulator applies it."""

from __future__ import annotations

import copy

import pytest

from gpunet.netdev.jsonpatch import PatchError, apply_patch, make_patch

RUNNING = {"PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}}, "DEVICE_METADATA": {"localhost": {}}}


@pytest.mark.parametrize(
    ("intended", "expected"),
    [
        ({}, []),
        ({"PORT": {"Ethernet0": {"mtu": "9100"}}}, []),
        (
            {"PORT": {"Ethernet0": {"mtu": "9216"}}},
            [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"}],
        ),
        (
            {"PORT": {"Ethernet0": {"speed": "400000"}}},
            [{"op": "add", "path": "/PORT/Ethernet0/speed", "value": "400000"}],
        ),
        (
            {"PORT": {"Ethernet4": {"mtu": "9216"}}},
            [{"op": "add", "path": "/PORT/Ethernet4", "value": {"mtu": "9216"}}],
        ),
        (
            {"QUEUE": {"Ethernet0|3": {"scheduler": "gpunet.3"}}},
            [{"op": "add", "path": "/QUEUE", "value": {"Ethernet0|3": {"scheduler": "gpunet.3"}}}],
        ),
        (
            {"BUFFER_PG": {"a/b~c": {"profile": "p"}}},
            [{"op": "add", "path": "/BUFFER_PG", "value": {"a/b~c": {"profile": "p"}}}],
        ),
    ],
)
def test_make_patch_adds_or_replaces_only_what_differs(intended, expected):
    assert make_patch(RUNNING, intended) == expected


def test_patch_then_apply_reaches_the_intended_fields_and_keeps_the_rest():
    intended = {
        "PORT": {"Ethernet0": {"mtu": "9216"}, "Ethernet4": {"mtu": "9216"}},
        "WRED_PROFILE": {"X": {}},
    }
    result = apply_patch(RUNNING, make_patch(RUNNING, intended))
    assert result["PORT"]["Ethernet0"] == {"mtu": "9216", "admin_status": "up"}
    assert result["PORT"]["Ethernet4"] == {"mtu": "9216"}
    assert make_patch(result, intended) == []


def test_escaped_keys_round_trip():
    intended = {"PORT": {"a/b~c": {"mtu": "1"}}}
    assert apply_patch(RUNNING, make_patch(RUNNING, intended))["PORT"]["a/b~c"] == {"mtu": "1"}


@pytest.mark.parametrize(
    "ops",
    [
        [{"op": "replace", "path": "/PORT/Ethernet9/mtu", "value": "1"}],
        [{"op": "remove", "path": "/NOPE"}],
        [{"op": "move", "path": "/PORT", "from": "/X"}],
        [{"op": "add", "path": "PORT", "value": {}}],
        [{"op": "add", "path": "/PORT/Ethernet0/mtu/x", "value": "1"}],
    ],
)
def test_bad_operations_raise_and_leave_the_document_alone(ops):
    document = copy.deepcopy(RUNNING)
    first_good = [{"op": "add", "path": "/NEW", "value": {}}]
    with pytest.raises(PatchError):
        apply_patch(document, first_good + ops)
    assert document == RUNNING
