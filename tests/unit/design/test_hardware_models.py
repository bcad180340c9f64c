"""The hardware model table: sourced rows, the vendors' own lookup tables, and the errors for an
unknown model."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpunet.hardware import UnknownSwitchModelError, get_model, known_models
from gpunet.platforms import PLATFORMS
from gpunet.render import render_switch
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric


@pytest.mark.parametrize("name", known_models())
def test_every_model_row_cites_its_sources_and_is_complete(name: str) -> None:
    model = get_model(name)
    assert model.sources and all(len(source) > 20 for source in model.sources)
    assert set(model.platforms) <= set(PLATFORMS)
    assert model.ports > 0 and model.max_breakout > 0 and model.speeds_gbps
    assert model.buffer_bytes > 1_000_000 and 64 <= model.cell_bytes <= 512
    if "eos" in model.platforms:
        assert model.eos_queue_keyword in ("tx-queue", "uc-tx-queue")
    if "sonic" in model.platforms:
        assert model.sonic_buffer_semantics in ("mellanox", "broadcom") and model.sonic_pg_lookup_source
    if "junos" in model.platforms:
        assert model.junos_flavour in ("evo", "junos-os")


def test_the_table_covers_both_eos_families_and_sonic_on_both_asics() -> None:
    families = {(get_model(n).eos_queue_keyword, get_model(n).sonic_buffer_semantics) for n in known_models()}
    assert {("tx-queue", None), ("uc-tx-queue", None), (None, "mellanox"), (None, "broadcom")} <= families
    assert {get_model(n).junos_flavour for n in known_models()} >= {"evo", "junos-os"}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_each_platform_example_model_runs_that_platform(platform: str) -> None:
    assert platform in get_model(PLATFORMS[platform].example_model).platforms


def test_unknown_model_lists_the_known_ones_and_how_to_add_one() -> None:
    with pytest.raises(UnknownSwitchModelError) as error:
        get_model("SN9999")
    message = str(error.value)
    assert "'SN9999'" in message and all(name in message for name in known_models())
    assert "models.yml" in message and "gpunet_switch_buffer" in message


# Rows of the vendors' pg_profile_lookup.ini (speed Mb/s, cable, size, xon, xoff, xon_offset):
# sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini at 021f8a7a,
# device/dell/x86_64-dell_z9864f-r0/Dell-Z9864f-O64/pg_profile_lookup.ini at abf2aa2d.
VENDOR_ROWS = [
    ("SN5600", 400, 5, 250880, 19456, 231424, None),
    ("SN5600", 100, 40, 146432, 19456, 126976, None),
    ("SN5600", 800, 300, 1198080, 38912, 1150976, None),
    ("Z9864F", 400, 5, 18796, 0, 393192, 3556),
    ("Z9864F", 200, 40, 18796, 0, 255778, 3556),
    ("Z9864F", 800, 300, 18796, 0, 1621536, 3556),
]


# 100G on ACS-SN5600 is the whole unsplit cage: its platform.json has no 8x100G mode.
LANES = {("SN5600", 100): {"lanes": 8}}


@pytest.mark.parametrize(("model", "speed", "cable", "size", "xon", "xoff", "xon_offset"), VENDOR_ROWS)
def test_rendered_sonic_profile_is_the_vendor_row(
    model: str,
    speed: int,
    cable: int,
    size: int,
    xon: int,
    xoff: int,
    xon_offset: int | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SN5600 ships the dynamic model; its table (Mellanox semantics) applies in the traditional one.
    traditional = replace(get_model(model), sonic_buffer_model="traditional")
    monkeypatch.setattr("gpunet.design.switch.get_model", lambda name: traditional)
    fabric = one_leaf_fabric(
        "sonic",
        [
            {
                "name": "Ethernet0",
                "speed_gbps": speed,
                "cable_length_m": cable,
                **LANES.get((model, speed), {}),
            }
        ],
        model=model,
    )
    document = json.loads(render_switch(fabric, fabric.switches[LEAF]).config)
    (profile,) = document["BUFFER_PROFILE"].values()
    assert (profile["size"], profile["xon"], profile["xoff"]) == (str(size), str(xon), str(xoff))
    assert profile.get("xon_offset") == (None if xon_offset is None else str(xon_offset))


def test_sn5600_renders_the_dynamic_model_without_static_profiles() -> None:
    fabric = one_leaf_fabric(
        "sonic", [{"name": "Ethernet0", "speed_gbps": 400, "cable_length_m": 3}], model="SN5600"
    )
    document = json.loads(render_switch(fabric, fabric.switches[LEAF]).config)
    assert "BUFFER_PROFILE" not in document
    assert document["BUFFER_PG"] == {"Ethernet0|3": {"profile": "NULL"}}


@pytest.mark.parametrize(("cable", "row_cable"), [(1, 5), (5, 5), (6, 40), (40, 40), (41, 300), (300, 300)])
def test_cable_rounds_up_to_the_next_tabulated_length(cable: int, row_cable: int) -> None:
    row = get_model("SN5600").pg_lookup(400, cable)
    assert row is not None and row.cable_m == row_cable


def test_beyond_the_table_the_profile_is_computed_and_the_summary_says_so() -> None:
    fabric = one_leaf_fabric("sonic", [{"name": "Ethernet0", "speed_gbps": 400, "cable_length_m": 500}])
    rendered = render_switch(fabric, fabric.switches[LEAF])
    assert "No vendor table row for gpunet_lossless_400000_500m" in rendered.summary
