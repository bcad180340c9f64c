"""The platform grammars accept what the vendor documentation allows and reject the rest."""

from __future__ import annotations

import json

import pytest

from gpunet.grammar import END, GrammarError, grammar_for, known_grammars
from gpunet.platforms import UnknownPlatformError, known_platforms

ACCEPTED = [
    # platform, mode stack before, line, mode stack after
    ("nxos", (), "interface Ethernet1/1", ("interface",)),
    ("nxos", ("interface",), "mtu 9216", ("interface",)),
    ("nxos", ("interface",), "   priority-flow-control mode on", ("interface",)),
    ("nxos", ("interface",), "no priority-flow-control mode on", ("interface",)),
    ("nxos", ("interface",), "policy-map type qos GPUNET-QOS-IN", ("policy-map-qos",)),
    ("nxos", ("policy-map-qos",), "class GPUNET-ROCE", ("policy-map-qos", "policy-class-qos")),
    (
        "nxos",
        ("policy-map-qos", "policy-class-qos"),
        "set qos-group 3",
        ("policy-map-qos", "policy-class-qos"),
    ),
    (
        "nxos",
        ("policy-map-qos", "policy-class-qos"),
        "class GPUNET-CNP",
        ("policy-map-qos", "policy-class-qos"),
    ),
    ("nxos", ("policy-map-qos", "policy-class-qos"), "exit", ("policy-map-qos",)),
    ("nxos", ("policy-map-qos", "policy-class-qos"), "system qos", ("system-qos",)),
    ("nxos", ("interface",), "end", END),
    ("nxos", (), "exit", END),
    (
        "nxos",
        ("policy-map-queuing", "class-queuing"),
        "pause buffer-size 369504 pause-threshold 27648 resume-threshold 18432",
        ("policy-map-queuing", "class-queuing"),
    ),
    ("eos", (), "qos map dscp 24 25 27 to traffic-class 0", ()),
    ("eos", (), "qos profile GPUNET-ROCE", ("qos-profile",)),
    ("eos", ("qos-profile",), "tx-queue 3", ("qos-profile", "tx-queue")),
    ("eos", ("qos-profile", "tx-queue"), "no priority", ("qos-profile", "tx-queue")),
    ("eos", ("qos-profile", "tx-queue"), "tx-queue 6", ("qos-profile", "tx-queue")),
    ("eos", ("qos-profile", "tx-queue"), "interface Ethernet1/1", ("interface",)),
    ("eos", ("interface",), "speed 400g-8", ("interface",)),
    ("cumulus", (), "nv set qos pfc pfc-400g-3m-9216 xoff-threshold 165951", ()),
    ("cumulus", (), "nv set interface swp1s2 qos pfc profile pfc-400g-3m-9216", ()),
    ("cumulus", (), "nv unset qos pfc pfc-400g-3m-9216", ()),
    ("junos", (), "set interfaces et-0/0/0 mtu 9216", ()),
    ("junos", (), "set class-of-service congestion-notification-profile cnp-3m input cable-length 3", ()),
    ("junos", (), "delete class-of-service congestion-notification-profile cnp-3m", ()),
]

REJECTED = [
    # platform, mode stack, line, a word the error must contain
    ("nxos", (), "mtu 9216", "mtu 9216"),
    ("nxos", ("interface",), "pause pfc-cos 3", "interface"),
    ("nxos", ("policy-map-network-qos", "class-network-qos"), "pause pfc-cos 9", "class-network-qos"),
    ("nxos", ("interface",), "speed 123", "speed 123"),
    ("nxos", END, "interface Ethernet1/1", "not in configuration mode"),
    ("eos", ("qos-profile", "tx-queue"), "random-detect ecn minimum-threshold 1 furlongs", "tx-queue"),
    ("eos", ("interface",), "speed 400g", "speed 400g"),
    ("cumulus", (), "nv set qos pfc p1 tx on", "tx on"),
    ("cumulus", (), "sudo reboot", "sudo reboot"),
    ("cumulus", (), "exit", "exit"),
    ("junos", (), "set interfaces et-0/0/0 mtu big", "mtu big"),
    ("junos", (), "delete system", "delete system"),
    (
        "junos",
        (),
        "set class-of-service classifiers dscp X forwarding-class roce loss-priority low code-points 26",
        "26",
    ),
]


@pytest.mark.parametrize(("platform", "before", "line", "after"), ACCEPTED)
def test_accepted_lines_move_the_mode_stack(
    platform: str, before: tuple[str, ...], line: str, after: tuple[str, ...]
) -> None:
    assert grammar_for(platform).accept(before, line) == after


@pytest.mark.parametrize(("platform", "stack", "line", "word"), REJECTED)
def test_rejected_lines_raise_with_the_reason(
    platform: str, stack: tuple[str, ...], line: str, word: str
) -> None:
    with pytest.raises(GrammarError) as raised:
        grammar_for(platform).accept(stack, line)
    assert word in str(raised.value)


def test_check_lines_names_the_failing_line_number() -> None:
    text = "interface Ethernet1/1\n  mtu 9216\n  bogus command\n"
    with pytest.raises(GrammarError, match="line 3"):
        grammar_for("nxos").check_lines(text)


VALID_DOCUMENT = {
    "DSCP_TO_TC_MAP": {"GPUNET": {"26": "3", "48": "6", "0": "0"}},
    "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "GPUNET", "pfc_enable": "3"}},
    "BUFFER_PG": {"Ethernet0|3": {"profile": "pg_lossless_400000_5m_profile"}},
    "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}},
    "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
}

BROKEN_DOCUMENTS = [
    # change applied to the valid document, words the error must contain
    ({"VLAN": {"Vlan10": {}}}, "unknown table 'VLAN'"),
    ({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enabled": "3"}}}, "unknown field 'pfc_enabled'"),
    ({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": 3}}}, "values are strings"),
    ({"BUFFER_PG": {"Ethernet0|9": {"profile": "p"}}}, "key does not match"),
    ({"DSCP_TO_TC_MAP": {"GPUNET": {"26": "8"}}}, "'8' does not match"),
    ({"DSCP_TO_TC_MAP": {"GPUNET": {"dscp26": "3"}}}, "unknown field 'dscp26'"),
    ({"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5"}}}, "'5' does not match"),
]


def test_a_valid_config_db_document_passes() -> None:
    grammar_for("sonic").check_document(json.dumps(VALID_DOCUMENT))


@pytest.mark.parametrize(("change", "words"), BROKEN_DOCUMENTS)
def test_broken_config_db_documents_are_rejected(change: dict[str, object], words: str) -> None:
    document = {**VALID_DOCUMENT, **change}
    with pytest.raises(GrammarError) as raised:
        grammar_for("sonic").check_document(json.dumps(document))
    assert words in str(raised.value)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_a_document_that_is_not_a_json_object_is_rejected(text: str) -> None:
    with pytest.raises(GrammarError):
        grammar_for("sonic").check_document(text)


def test_each_platform_kind_refuses_the_other_kind_of_input() -> None:
    with pytest.raises(GrammarError, match="document"):
        grammar_for("sonic").accept((), "config save -y")
    with pytest.raises(GrammarError, match="lines"):
        grammar_for("nxos").check_document("{}")


def test_every_registered_platform_has_a_grammar_and_unknown_ones_are_listed() -> None:
    assert known_grammars() == known_platforms()
    with pytest.raises(UnknownPlatformError, match="cumulus, eos, junos, nxos, sonic"):
        grammar_for("ios")
