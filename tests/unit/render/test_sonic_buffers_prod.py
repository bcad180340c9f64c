"""Issue 26, SONiC render side, on what `gpunet render -i inventories/prod` produces for the SONiC
leaves: CABLE_LENGTH values the SKU's pg_profile_lookup.ini has, BUFFER_PG on the key buffermgrd
derives from pfc_enable, pfc_to_pg_map kept on Mellanox SKUs. Each fails on the intended/prod of
7f59434 (raw 3m/30m lengths, |3-4 keys with PFC on 3 alone, no pfc_to_pg_map on the SN5600)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpunet.design.platforms.sonic import pg_key
from gpunet.hardware import get_model
from gpunet.model.check import load_fabric
from gpunet.render import render_fabric
from tests.conftest import REPO_ROOT

SONIC_LEAVES = {"leaf06": "SN5600", "leaf07": "Z9864F"}


@cache
def _document(switch: str) -> dict[str, Any]:
    rendered = render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))
    return json.loads(rendered[switch].config)


def test_cable_lengths_are_rows_of_the_sku_table_in_the_traditional_model() -> None:
    # leaf07 (Z9864F, traditional): buffermgrd looks the profile up by the CABLE_LENGTH string.
    tabulated = {f"{row.cable_m}m" for row in get_model("Z9864F").sonic_pg_lookup}
    lengths = _document("leaf07")["CABLE_LENGTH"]["AZURE"]
    assert lengths and set(lengths.values()) <= tabulated


def test_cable_lengths_are_the_real_ones_in_the_dynamic_model() -> None:
    # leaf06 (SN5600, dynamic): buffermgrd computes headroom from the length, so rounding would inflate it.
    lengths = _document("leaf06")["CABLE_LENGTH"]["AZURE"]
    assert set(lengths.values()) == {"3m", "30m"}


@pytest.mark.parametrize("switch", SONIC_LEAVES)
def test_buffer_pg_key_is_the_one_buffermgrd_derives_from_pfc_enable(switch: str) -> None:
    document = _document(switch)
    expected = {
        f"{port}|{pg_key([int(p) for p in fields['pfc_enable'].split(',')])}"
        for port, fields in document["PORT_QOS_MAP"].items()
        if fields.get("pfc_enable")
    }
    assert expected and set(document["BUFFER_PG"]) == expected


@pytest.mark.parametrize(("switch", "kept"), [("leaf06", True), ("leaf07", False)])
def test_pfc_to_pg_map_only_on_mellanox_and_pointing_at_the_lossless_pg(switch: str, kept: bool) -> None:
    document = _document(switch)
    bound = {fields.get("pfc_to_pg_map") for fields in document["PORT_QOS_MAP"].values()}
    if not kept:
        assert bound == {None} and "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" not in document
        return
    (name,) = bound
    pfc_map = document["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"][name]
    for key, fields in document["PORT_QOS_MAP"].items():
        for priority in filter(None, fields.get("pfc_enable", "").split(",")):
            assert f"{key}|{pfc_map[priority]}" in document["BUFFER_PG"]


@pytest.mark.parametrize(
    ("priorities", "key"), [([3], "3"), ([3, 4], "3-4"), ([4, 3], "3-4"), ([0, 1, 2], "0-2")]
)
def test_pg_key_names_runs_as_buffermgrd_does(priorities: list[int], key: str) -> None:
    assert pg_key(priorities) == key


def test_two_runs_are_not_one_buffer_pg_entry() -> None:
    with pytest.raises(ValueError, match="not one run"):
        pg_key([2, 4])
