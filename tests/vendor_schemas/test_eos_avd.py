"""The QoS part of every rendered EOS config says, statement for statement, what Arista's own AVD
(pyavd eos_cli_config_gen) renders for the same intent. No vendor-schemas data is needed: pyavd is
a test dependency."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpunet.design import design_switch
from tests.vendor_schemas.corpus import RenderedConfig, configs_of
from tests.vendor_schemas.eos_avd import (
    avd_structured_config,
    differences,
    queue_keyword_for_model,
    render_with_avd,
    statements,
)

EOS_CONFIGS = configs_of("eos")


def _avd_text(config: RenderedConfig) -> str:
    keyword = queue_keyword_for_model(config.switch.model)
    return render_with_avd(avd_structured_config(design_switch(config.fabric, config.switch), keyword))


def test_there_are_eos_configs_to_judge() -> None:
    assert {c.label for c in EOS_CONFIGS} >= {"intended/prod/leaf03", "intended/prod/spine01"}


@pytest.mark.parametrize("config", EOS_CONFIGS, ids=[c.label for c in EOS_CONFIGS])
def test_rendered_eos_qos_matches_what_avd_renders(config: RenderedConfig) -> None:
    found = differences(config.text, _avd_text(config))
    assert found == [], f"{config.label}.cfg differs from AVD's rendering of the same intent:\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    ("model", "keyword"),
    [
        ("7060X6-64PE", "uc-tx-queue"),
        ("7800R3", "tx-queue"),
    ],
)
def test_the_queue_keyword_follows_the_asic_family(model: str, keyword: str) -> None:
    assert queue_keyword_for_model(model) == keyword


def test_a_model_without_a_known_family_is_an_error() -> None:
    with pytest.raises(ValueError, match="no EOS queue keyword known for hardware model 'SN5600'"):
        queue_keyword_for_model("SN5600")


def test_avd_counts_ecn_marks_and_names_strata_queues_uc_tx_queue() -> None:
    (leaf03,) = [c for c in EOS_CONFIGS if c.label == "intended/prod/leaf03"]
    avd = statements(_avd_text(leaf03))
    assert ("qos profile GPUNET-ROCE", "uc-tx-queue 3", "random-detect ecn count") in avd
    assert not any(s[1].startswith("tx-queue") for s in avd if len(s) > 1 and s[0].startswith("qos profile"))


def test_order_indentation_and_dscp_grouping_are_not_differences() -> None:
    ours = (
        "qos map dscp 0 1 to traffic-class 0\n"
        + "qos profile P\n    qos trust dscp\n  tx-queue 3\n     no priority\n"
    )
    theirs = (
        "!\nqos profile P\n   tx-queue 3\n      no priority\n   qos trust dscp\n!\n"
        "qos map dscp 1 to traffic-class 0\nqos map dscp 0 to traffic-class 0\n"
    )
    assert differences(ours, theirs) == []


REFERENCE = """qos map dscp 0 1 to traffic-class 0
qos map dscp 26 to traffic-class 3
qos profile GPUNET-ROCE
   qos trust dscp
   uc-tx-queue 3
      no priority
      bandwidth percent 60
      random-detect ecn count
interface Ethernet1/1
   mtu 9214
   service-profile GPUNET-ROCE
"""


def _replace(old: str, new: str) -> Callable[[str], str]:
    return lambda text: text.replace(old, new)


# A deliberately wrong statement per kind of mistake, and the difference that must be reported.
WRONG = [
    pytest.param(
        _replace("bandwidth percent 60", "bandwidth percent 70"),
        [
            "only in gpunet: qos profile GPUNET-ROCE > uc-tx-queue 3 > bandwidth percent 70",
            "only in AVD: qos profile GPUNET-ROCE > uc-tx-queue 3 > bandwidth percent 60",
        ],
        id="wrong-value",
    ),
    pytest.param(
        _replace("      random-detect ecn count\n", ""),
        ["only in AVD: qos profile GPUNET-ROCE > uc-tx-queue 3 > random-detect ecn count"],
        id="missing-statement",
    ),
    pytest.param(
        _replace("uc-tx-queue 3", "tx-queue 3"),
        [
            "only in gpunet: qos profile GPUNET-ROCE > tx-queue 3",
            "only in AVD: qos profile GPUNET-ROCE > uc-tx-queue 3",
        ],
        id="queue-keyword",
    ),
    pytest.param(
        _replace("qos map dscp 26 to traffic-class 3", "qos map dscp 26 27 to traffic-class 3"),
        ["only in gpunet: qos map dscp 27 to traffic-class 3"],
        id="extra-code-point",
    ),
    pytest.param(
        _replace("   service-profile GPUNET-ROCE\n", "   mtu 9214\n"),
        ["only in AVD: interface Ethernet1/1 > service-profile GPUNET-ROCE"],
        id="profile-not-applied",
    ),
    pytest.param(
        _replace("   qos trust dscp\n", "qos trust dscp\n"),
        ["only in gpunet: qos trust dscp", "only in AVD: qos profile GPUNET-ROCE > qos trust dscp"],
        id="statement-outside-its-block",
    ),
]


@pytest.mark.parametrize(("damage", "expected"), WRONG)
def test_a_wrong_statement_is_reported(damage: Callable[[str], str], expected: list[str]) -> None:
    assert differences(REFERENCE, REFERENCE) == []
    found = differences(damage(REFERENCE), REFERENCE)
    missing = [difference for difference in expected if difference not in found]
    assert not missing, f"not reported: {missing}; reported: {found}"
