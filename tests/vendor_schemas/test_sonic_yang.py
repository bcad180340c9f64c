"""Every rendered SONiC config_db document, merged into a stock config_db the way gpunet's push
(`config apply-patch`) merges it, validates against SONiC's own YANG models (libyang).

Models and sample: ../shared/vendor-schemas/sonic-yang-models (sonic-net/sonic-buildimage
086b03bd, src/sonic-yang-models). Passing is the floor, not the proof: YANG does not know port
speeds, buffer sizes against the ASIC, or buffer_model rules (see that folder's README).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.vendor_schemas.corpus import RenderedConfig, configs_of
from tests.vendor_schemas.schemas import SONIC_YANG_DIR, require

SONIC_CONFIGS = configs_of("sonic")


@pytest.fixture(scope="module")
def sonic() -> Any:
    require(SONIC_YANG_DIR)
    from tests.vendor_schemas.sonic_yang import SonicYang

    return SonicYang.load(SONIC_YANG_DIR / "yang-models")


@pytest.fixture(scope="module")
def sample() -> dict[str, Any]:
    require(SONIC_YANG_DIR)
    document: dict[str, Any] = json.loads((SONIC_YANG_DIR / "sample_config_db.json").read_text())
    return document["SAMPLE_CONFIG_DB_JSON"]


def _judge(sonic: Any, sample: dict[str, Any], fragment: dict[str, Any]) -> list[str]:
    from tests.vendor_schemas.sonic_yang import merged_into, stock_config_for

    return list(sonic.errors(merged_into(stock_config_for(sample, fragment), fragment)))


def test_there_are_sonic_configs_to_judge() -> None:
    assert {c.label for c in SONIC_CONFIGS} >= {"intended/prod/leaf07"}


def test_the_stock_sample_alone_validates(sonic: Any, sample: dict[str, Any]) -> None:
    """SONiC's own test (test_validate_yang_models) expects no error here; if this fails, the
    translation is wrong, not the sample."""
    assert sonic.errors(sample) == []


@pytest.mark.parametrize("config", SONIC_CONFIGS, ids=[c.label for c in SONIC_CONFIGS])
def test_rendered_config_db_validates_against_sonic_yang(
    config: RenderedConfig, sonic: Any, sample: dict[str, Any]
) -> None:
    fragment = json.loads(config.text)
    errors = _judge(sonic, sample, fragment)
    assert errors == [], f"{config.label}.cfg breaks SONiC YANG:\n" + "\n".join(errors)


def _set(table: str, key: str, field: str, value: str) -> Callable[[dict[str, Any]], None]:
    def damage(fragment: dict[str, Any]) -> None:
        fragment.setdefault(table, {}).setdefault(key, {})[field] = value

    return damage


# A deliberately wrong value per kind of YANG rule, and the words libyang's message must carry.
DAMAGES = [
    pytest.param(
        _set("SCHEDULER", "gpunet.lossy", "type", "FAIR"),
        ["SCHEDULER_LIST[name='gpunet.lossy']/type", 'Invalid enumeration value "FAIR"'],
        id="bad-enum",
    ),
    pytest.param(
        _set("WRED_PROFILE", "GPUNET_TEST", "green_drop_probability", "101"),
        ["WRED_PROFILE_LIST[name='GPUNET_TEST']/green_drop_probability", "out of the allowed range"],
        id="out-of-range",
    ),
    pytest.param(
        _set("PORT_QOS_MAP", "Ethernet0", "dscp_to_tc_map", "NO_SUCH_MAP"),
        ["PORT_QOS_MAP_LIST[ifname='Ethernet0']/dscp_to_tc_map", 'Invalid leafref value "NO_SUCH_MAP"'],
        id="dangling-leafref",
    ),
    pytest.param(
        _set("BUFFER_PROFILE", "gpunet_test_profile", "pool", "no_such_pool"),
        ["BUFFER_PROFILE_LIST[name='gpunet_test_profile']/pool", 'Invalid leafref value "no_such_pool"'],
        id="profile-on-missing-pool",
    ),
    pytest.param(
        _set("PORT", "Ethernet0", "mtu", "70000"),
        ["PORT_LIST[name='Ethernet0']/mtu"],
        id="mtu-beyond-uint16",
    ),
    pytest.param(
        _set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,9"),
        ["PORT_QOS_MAP_LIST[ifname='Ethernet0']/pfc_enable", "pattern"],
        id="pfc-priority-pattern",
    ),
    pytest.param(
        _set("QUEUE", "Ethernet0|3", "no_such_field", "1"),
        ["QUEUE|Ethernet0|3: field 'no_such_field' is not in the YANG model"],
        id="unknown-field",
    ),
    pytest.param(
        _set("NO_SUCH_TABLE", "x", "y", "1"),
        ["NO_SUCH_TABLE: no SONiC YANG model has this table"],
        id="unknown-table",
    ),
]


@pytest.mark.parametrize(("damage", "expected"), DAMAGES)
def test_a_damaged_fragment_fails_with_its_data_path(
    damage: Callable[[dict[str, Any]], None], expected: list[str], sonic: Any, sample: dict[str, Any]
) -> None:
    fragment = {"PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}}}
    damaged = copy.deepcopy(fragment)
    damage(damaged)
    assert _judge(sonic, sample, fragment) == []
    message = "\n".join(_judge(sonic, sample, damaged))
    for words in expected:
        assert words in message
