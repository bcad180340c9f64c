"""Every rendered Junos `set` line resolves to a path of Juniper's own configuration YANG for the
release the switch runs (24.4R1-EVO or 24.4R1 junos-qfx, by hardware model), with valid values:
the YANG type checked by libyang and Juniper's junos:posix-pattern by Python `re`.
Data: ../shared/vendor-schemas/junos-yang. Junos YANG has no leafrefs and few ranges: passing it is
the syntax floor."""

from __future__ import annotations

from typing import Any

import pytest

from tests.vendor_schemas.corpus import RenderedConfig, configs_of
from tests.vendor_schemas.junos_release import release_for_model
from tests.vendor_schemas.schemas import JUNOS_YANG_DIR, require

JUNOS_CONFIGS = configs_of("junos")
RELEASES = ("24.4R1-EVO", "24.4R1-qfx")


@pytest.fixture(scope="module")
def junos() -> dict[str, Any]:
    require(JUNOS_YANG_DIR)
    from tests.vendor_schemas.junos_yang import JunosSchema

    return {release: JunosSchema.load(JUNOS_YANG_DIR / release) for release in RELEASES}


def _problems(schema: Any, text: str) -> list[str]:
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            reason = schema.judge(line)
            if reason:
                problems.append(f"line {number}: `{line}`: {reason}")
    return problems


def test_there_are_junos_configs_to_judge() -> None:
    assert {c.label for c in JUNOS_CONFIGS} >= {"intended/prod/leaf08"}


@pytest.mark.parametrize("config", JUNOS_CONFIGS, ids=[c.label for c in JUNOS_CONFIGS])
def test_rendered_set_lines_resolve_in_junos_yang(config: RenderedConfig, junos: dict[str, Any]) -> None:
    release = release_for_model(config.switch.model)
    problems = _problems(junos[release], config.text)
    assert problems == [], f"{config.label}.cfg breaks Junos {release} YANG:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("model", "release"),
    [("QFX5240-64OD", "24.4R1-EVO"), ("QFX5120-32C", "24.4R1-qfx")],
)
def test_the_release_follows_from_the_hardware_model(model: str, release: str) -> None:
    assert release_for_model(model) == release


def test_a_model_without_a_known_release_is_an_error() -> None:
    with pytest.raises(ValueError, match="no Junos YANG release known for hardware model 'SN5600'"):
        release_for_model("SN5600")


COS = "set class-of-service "

GOOD_LINES = [
    COS + "classifiers dscp GPUNET-DSCP forwarding-class roce loss-priority low code-points 011010",
    COS + "forwarding-classes class roce queue-num 3 no-loss pfc-priority 3",
    COS + "schedulers sch-roce transmit-rate percent 60",
    COS + "drop-profiles dp-roce interpolate fill-level [ 1 9 ] drop-probability [ 0 100 ]",
    COS + "congestion-notification-profile cnp-3m input dscp code-point 011010 pfc",
    "set interfaces et-0/0/0 mtu 9216",
    "set interfaces et-0/0/0 ether-options no-flow-control",
    COS + "interfaces et-0/0/0 scheduler-map GPUNET-MAP",
]

# A deliberately wrong line per rule, and the words of the validator's message.
WRONG_LINES = [
    (
        COS + "forwarding-classes class roce queue-num 3 lossless",
        "no statement 'lossless' under",
    ),
    (
        COS + "no-such-thing x",
        "no statement 'no-such-thing' under /configuration/class-of-service",
    ),
    ("set bogus x", "no statement 'bogus' under /configuration"),
    (
        COS + "classifiers dscp GPUNET-DSCP forwarding-class roce loss-priority medium code-points 1",
        'Invalid enumeration value "medium"',
    ),
    (
        COS + "forwarding-classes class roce queue-num 3 no-loss pfc-priority 9",
        "not a valid pfc-priority",
    ),
    (COS + "schedulers sch-roce transmit-rate percent 160", "not a valid percent"),
    (
        COS + "drop-profiles dp-roce interpolate fill-level [ 1 900 ] drop-probability [ 0 100 ]",
        "not a valid fill-level",
    ),
    (
        COS + "congestion-notification-profile cnp-3m input dscp code-point 01101 pfc",
        "'01101' breaks name's junos:posix-pattern '^([01]{6})$'",
    ),
    (
        COS + "congestion-notification-profile cnp-3m output ieee-802.1 code-point 011 flow-control-queue 9",
        "not a valid flow-control-queue",
    ),
    ("set interfaces et-0/0/0 mtu big", "not a valid mtu"),
    ("set interfaces et-0/0/0 speed 7g", 'Invalid enumeration value "7g"'),
    (COS + "interfaces et-0/0/0 scheduler-map", "scheduler-map needs a value"),
    (
        COS + "routing-instances __internal__ classifiers exp default",
        "'__internal__' breaks name's junos:posix-pattern '!^(([*]{1,})|(__.*__)|(.{129,}))$'",
    ),
    ("delete interfaces et-0/0/0", "not a `set` line"),
]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("line", GOOD_LINES)
def test_a_documented_line_resolves(line: str, release: str, junos: dict[str, Any]) -> None:
    assert junos[release].judge(line) is None


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize(("line", "message"), WRONG_LINES, ids=[line for line, _ in WRONG_LINES])
def test_a_wrong_line_is_refused_with_the_rule_it_breaks(
    line: str, message: str, release: str, junos: dict[str, Any]
) -> None:
    reason = junos[release].judge(line)
    assert reason is not None
    assert message in reason


def test_a_statement_of_a_module_not_bundled_is_not_called_wrong(junos: dict[str, Any]) -> None:
    """`system` is in the release (release-conf-modules.txt) but its module is not bundled here."""
    assert junos["24.4R1-EVO"].judge("set system host-name leaf08") is None
