"""Structured switch output (issue 29): collected where the OS has it, the text command as the
fallback, the form recorded beside each capture; parsed with the vendor's field names; the
simulator serves both forms from the same counters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect import switch_show as switch_collect
from gpunet.collect.switch_commands import SWITCH_COMMANDS
from gpunet.lab.switchsim.personalities.showpfc import sonic_pfc_counters, sonic_queue_counters
from gpunet.lab.switchsim.personalities.sonic import SonicPersonality
from gpunet.lab.switchsim.state import SwitchState
from gpunet.model.fabric import Switch
from gpunet.netdev.push import Connection
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.parsers.sonic import redis_py_dict
from tests.unit.validate.test_parsers import dig

TOOL = "sonic-show-queue-counters"


def _state(drops: dict[str, list[int]]) -> SwitchState:
    state = SwitchState(platform="sonic", hostname="leaf07", ports=["Ethernet0", "Ethernet4", "Ethernet8"])
    for index, port in enumerate(state.ports):
        state.counters[port]["tx_queue"] = [12 * (index + 1) + queue for queue in range(8)]
        if port in drops:
            state.counters[port]["tx_drop"] = drops[port]
    return state


@pytest.mark.parametrize(
    "drops",
    [
        {},
        {"Ethernet4": [0, 0, 0, 311, 0, 0, 0, 0]},
        {"Ethernet0": [1] * 8, "Ethernet8": [0, 0, 0, 9, 0, 0, 5, 0]},
    ],
)
@pytest.mark.parametrize("subset", [None, "UC3", "UC6"])
def test_the_simulator_serves_both_forms_from_the_same_counters(drops: dict, subset: str | None) -> None:
    state = _state(drops)
    text, document = sonic_queue_counters(state), sonic_queue_counters(state, as_json=True)
    assert json.loads(document)  # a JSON document, keys sorted as queuestat's json_dump prints
    assert parse(TOOL, document, subset) == parse(TOOL, text, subset)
    expected = drops.get("Ethernet4", [0] * 8)[3]
    assert dig(parse(TOOL, document, "UC3"), "queues.1.drop_pkts") == expected


def test_the_simulator_refuses_an_option_it_does_not_have() -> None:
    personality = SonicPersonality.__new__(SonicPersonality)
    personality.state = _state({})
    assert "Error: No such option: --voq" in personality._show_queue_counters(["--voq"])
    assert json.loads(personality._show_queue_counters(["-j"]))["Ethernet0"]["UC3"]["totalpacket"] == "15"


# queuestat -j as sonic-utilities tests/queue_counter_test.py and queuestat_input show it (our values).
_JSON_STD = {
    "Ethernet0": {
        "UC3": {"dropbytes": "1536", "droppacket": "12", "totalbytes": "901200", "totalpacket": "7100"},
        "ALL20": {"dropbytes": "N/A", "droppacket": "N/A", "totalbytes": "N/A", "totalpacket": "N/A"},
        "time": "2026-12-02T21:14:05.123456",
    },
    "Ethernet4": {
        "cached_time": "2026-12-02T20:00:00",
        "UC3": {"dropbytes": "0", "droppacket": "0", "totalbytes": "5120", "totalpacket": "5"},
    },
}
_TRIM = {"trimpacket": "40", "trimsentpacket": "38", "trimdroppacket": "2"}
_JSON_ALL = {"Ethernet0": {"UC3": {**_JSON_STD["Ethernet0"]["UC3"], **_TRIM}}}
_JSON_VOQ = {"testsw|Ethernet0": {"VOQ3": {**_JSON_STD["Ethernet0"]["UC3"], "creditWDPkts": "3"}}}
JSON_READS: list[tuple[dict, str | None, str, Any]] = [
    (_JSON_STD, None, "layout", "standard"),
    (_JSON_STD, None, "queues.0", {"port": "Ethernet0", "queue": "UC3", "counter_pkts": 7100,
                                   "counter_bytes": 901200, "drop_pkts": 12, "drop_bytes": 1536}),
    (_JSON_STD, None, "queues.1.drop_pkts", None),
    (_JSON_STD, "UC3", "queues.1.port", "Ethernet4"),
    (_JSON_ALL, None, "queues.0.trim_drop_pkts", 2),
    (_JSON_ALL, "UC3", "layout", "all"),
    (_JSON_VOQ, None, "queues.0.credit_wd_deleted_pkts", 3),
]  # fmt: skip


@pytest.mark.parametrize(("document", "subset", "path", "expected"), JSON_READS)
def test_queue_counters_json_is_read_by_queuestat_field_names(
    document: dict, subset: str | None, path: str, expected: Any
) -> None:
    assert dig(parse(TOOL, json.dumps(document, indent=2), subset), path) == expected


JSON_REFUSALS = [
    (json.dumps(_JSON_STD, indent=2)[:-40], None, r"--json: not JSON \(a cut capture\?\)"),
    (json.dumps({"Ethernet0": {"UC3": {"totalpacket": "1"}}}), None, r"Ethernet0 UC3 has fields totalpacket"),
    (json.dumps({"Ethernet0": {"UC3": {**_JSON_STD["Ethernet0"]["UC3"], "droppacket": "7.5"}}}), None,
     r"Ethernet0 UC3 droppacket: '7.5' is not a count"),
    (json.dumps(_JSON_VOQ), "UC3", r"--voq --json.*no egress drop counts"),
    (json.dumps({"Ethernet0": {"time": "x"}}), None, r"no port lists a queue"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "subset", "reason"), JSON_REFUSALS)
def test_damaged_queue_counters_json_is_refused(text: str, subset: str | None, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse(TOOL, text, subset)


class _Session:
    """A switch session that answers each command from a table (what a given release prints)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers, self.sent = answers, []

    def send_command(self, command: str, read_timeout: int) -> str:
        self.sent.append(command)
        return self.answers.get(command, "")

    def disconnect(self) -> None:
        pass


_TEXT = sonic_queue_counters(_state({}))
_JSON = sonic_queue_counters(_state({}), as_json=True)
_REFUSED = "Usage: show queue counters [OPTIONS] [INTERFACE_NAME]\n\nError: No such option: --json"
COLLECTIONS = [
    ("202106 and later", {"show queue counters --json": _JSON}, "json", _JSON, None),
    ("before 202106", {"show queue counters --json": _REFUSED, "show queue counters": _TEXT}, "text", _TEXT,
     "show queue counters --json: Usage: show queue counters [OPTIONS] [INTERFACE_NAME]"),
    ("a cut JSON answer", {"show queue counters --json": _JSON[:50], "show queue counters": _TEXT}, "text",
     _TEXT, "show queue counters --json: {"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "answers", "form", "saved", "refused"), COLLECTIONS, ids=[c[0] for c in COLLECTIONS]
)
def test_collection_prefers_the_structured_form_and_records_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: str,
    answers: dict,
    form: str,
    saved: str,
    refused: str | None,
) -> None:
    session = _Session(answers)
    monkeypatch.setattr(switch_collect, "connector", lambda *args, **kwargs: lambda: session)
    switch = Switch("leaf07", "sonic", "leaf", "127.0.0.1", 22, (), mgmt_user="admin")
    switch_collect.collect_switch_show(switch, Connection("pw", host_key_checking=False), "after", tmp_path)
    folder = tmp_path / "switches" / "leaf07" / "after"
    forms = json.loads((folder / switch_collect.FORMS_FILE).read_text())
    assert forms[TOOL]["form"] == form
    assert forms[TOOL].get("structured_refused") == refused
    assert (folder / f"{TOOL}.txt").read_text().rstrip("\n") == saved.rstrip("\n")
    # The other SONiC commands: text (pfc counters too: this session answers no sonic-db-cli).
    assert {tool: forms[tool]["form"] for tool in SWITCH_COMMANDS["sonic"] if tool != TOOL} == dict.fromkeys(
        set(SWITCH_COMMANDS["sonic"]) - {TOOL}, "text"
    )
    assert parse(TOOL, (folder / f"{TOOL}.txt").read_text()) == parse(TOOL, _TEXT)


# ---- Junos `show interfaces queue | display json` (a Junos 17.2R1 reply's shape: opendaylight/nic
# InterfaceInformationTest; element names: czerwonk/junos_exporter interfacequeue/rpc.go) ----
def _d(value: object) -> list[dict[str, str]]:
    return [{"data": str(value)}]


_JUNOS_QUEUE = {
    "queue-number": _d(3),
    "forwarding-class-name": _d("no-loss"),
    "queue-counters-queued-packets": _d(7730103),
    "queue-counters-trans-packets": _d(7730062),
    "queue-counters-tail-drop-packets": _d(41),
    "queue-counters-red-packets": _d(0),
    "queue-counters-total-drop-packets": _d(41),
}
_JUNOS_NA = {
    "queue-number": _d(0),
    "forwarding-class-name": _d("best-effort"),
    "queue-counters-queued-packets": _d(10),
    "queue-counters-trans-packets": _d(10),
    "queue-counters-tail-drop-packets-na": _d("Not Available"),
}
JUNOS_JSON = {
    "interface-information": [
        {
            "attributes": {"xmlns": "http://xml.juniper.net/junos/17.2R1/junos-interface"},
            "physical-interface": [
                {},
                {"name": _d("et-6/0/1"), "queue-counters": [{"queue": [_JUNOS_NA, _JUNOS_QUEUE]}]},
                {},
            ],
        }
    ]
}
JUNOS_READS = [
    ("interfaces.et-6/0/1.queues.3.tail_dropped_packets", 41),
    ("interfaces.et-6/0/1.queues.3.transmitted_packets", 7730062),
    ("interfaces.et-6/0/1.queues.3.forwarding_class", "no-loss"),
    ("interfaces.et-6/0/1.queues.0.tail_dropped_packets", None),
]


@pytest.mark.parametrize(("path", "expected"), JUNOS_READS)
def test_junos_display_json_is_read_by_its_element_names(path: str, expected: Any) -> None:
    assert dig(parse("junos-show-interfaces-queue", json.dumps(JUNOS_JSON)), path) == expected


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"interface-information": []}, r"no interface-information"),
        ({"interface-information": [{"physical-interface": [{}]}]}, r"no physical-interface with queues"),
        (
            {"interface-information": [{"physical-interface": [{"name": _d("et-0/0/0"), "queue-counters": [
                {"queue": [{k: v for k, v in _JUNOS_QUEUE.items() if "trans" not in k}]}]}]}]},
            r"et-0/0/0 queue 3 has no queue-counters-trans-packets",
        ),
        (
            {"interface-information": [{"physical-interface": [{"name": _d("et-0/0/0"), "queue-counters": [
                {"queue": [{**_JUNOS_QUEUE, "queue-counters-tail-drop-packets": _d("4x")}]}]}]}]},
            r"queue-counters-tail-drop-packets: '4x' is not a count",
        ),
    ],
)  # fmt: skip
def test_damaged_junos_display_json_is_refused(document: dict, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("junos-show-interfaces-queue", json.dumps(document))


def test_the_simulator_serves_junos_queues_in_both_forms_from_the_same_counters() -> None:
    from gpunet.lab.switchsim.personalities.queue_counters import (
        junos_interfaces_queue,
        junos_interfaces_queue_json,
    )
    from gpunet.validate.checks.switch import per_queue

    rows = [
        (p, q, 100 * q + 1, 7 if (p, q) == ("et-0/0/1", 3) else 0, 5)
        for p in ("et-0/0/0", "et-0/0/1")
        for q in range(8)
    ]
    text = parse("junos-show-interfaces-queue", junos_interfaces_queue(rows, 3))
    document = parse("junos-show-interfaces-queue", junos_interfaces_queue_json(rows, 3))
    assert per_queue(document, "drops") == per_queue(text, "drops")
    assert per_queue(document, "drops")[("et-0/0/1", 3)] == 7


# ---- Cumulus `nv show qos roce -o json` (NVUE OpenAPI 5.3.0 `cue-show-schema-roce-roce`) ----
_NV_CONFIG = [
    "nv set qos pfc default-global switch-priority 3",
    "nv set qos pfc default-global rx enable",
    "nv set qos pfc default-global tx enable",
    "nv set qos congestion-control default-global traffic-class 3 ecn enable",
    "nv set qos congestion-control default-global traffic-class 3 min-threshold 153600",
    "nv set qos congestion-control default-global traffic-class 3 max-threshold 1536000",
    "nv set qos mapping default-global trust l3",
    "nv set qos mapping default-global dscp 26 switch-priority 3",
]
# What the switch checks read from `settings`, in both forms.
_NV_KEYS = ("pfc.pfc-priority", "pfc.rx-enabled", "congestion-control.congestion-mode",
            "congestion-control.enabled-tc", "trust.trust-mode", "mode")  # fmt: skip


@pytest.mark.parametrize(
    "config", [_NV_CONFIG, _NV_CONFIG[:3], []], ids=["pfc-and-ecn", "pfc-only", "factory"]
)
def test_the_simulator_serves_nv_show_qos_roce_in_both_forms(config: list[str]) -> None:
    from gpunet.lab.switchsim.personalities.showpfc import cumulus_qos_roce, cumulus_qos_roce_json

    state = SwitchState(platform="cumulus", hostname="leaf05", ports=["swp1"])
    state.config = list(config)
    text = parse("cumulus-nv-show-qos-roce", cumulus_qos_roce(state))
    document = parse("cumulus-nv-show-qos-roce", cumulus_qos_roce_json(state))
    assert document["form"] == "json"
    assert {k: document["settings"].get(k) for k in _NV_KEYS} == {
        k: text["settings"].get(k) for k in _NV_KEYS
    }
    assert document["dscp_to_switch_priority"] == text["dscp_to_switch_priority"]
    assert document["switch_priority_to_tc"] == text["switch_priority_to_tc"]


NV_JSON = {
    "enable": "on",
    "mode": "lossless",
    "pfc": {"pfc-priority": "3", "rx-enabled": "enabled", "tx-enabled": "enabled"},
    "congestion-control": {"congestion-mode": "ECN", "enabled-tc": "0,3", "min-threshold": 153600,
                           "max-threshold": 1536000},
    "trust": {"trust-mode": "pcp,dscp"},
    "prio-map": {"3": {"pcp": 3, "dscp": "24,25,26,27", "switch-prio": 3}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("settings.pfc.pfc-priority", "3"),
        ("settings.congestion-control.min-threshold", "153600"),
        ("settings.mode", "lossless"),
        ("dscp_to_switch_priority.0", {"pcp": "3", "dscp": "24,25,26,27", "switch_prio": "3"}),
    ],
)
def test_nv_show_qos_roce_json_is_read_by_the_openapi_names(path: str, expected: Any) -> None:
    assert dig(parse("cumulus-nv-show-qos-roce", json.dumps(NV_JSON, indent=2)), path) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (json.dumps(NV_JSON)[:-30], r"-o json: not JSON \(a cut capture\?\)"),
        (json.dumps({"interface": {}}), r"no mode or pfc"),
        (json.dumps({**NV_JSON, "prio-map": {"3": "x"}}), r"prio-map is not a collection of objects"),
        (json.dumps({**NV_JSON, "pfc": {"pfc-priority": ["3"]}}), r"pfc.pfc-priority is not a value"),
    ],
)
def test_damaged_nv_show_qos_roce_json_is_refused(text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse("cumulus-nv-show-qos-roce", text)


# ---- SONiC `show pfc counters` from COUNTERS_DB (the keys and fields sonic-utilities scripts/pfcstat
# reads at 691b1bb; the layout of its tests/mock_tables/counters_db.json, our values), read with
# `sonic-db-cli -j COUNTERS_DB HGETALL <key>` (sonic-swss-common PR #1205, 85a39d8) ----
PFC_TOOL = "sonic-show-pfc-counters"


def _pfc_fields(direction: str, counts: list[int]) -> dict[str, str]:
    return {f"SAI_PORT_STAT_PFC_{prio}_{direction}_PKTS": str(n) for prio, n in enumerate(counts)}


_DB_MAP = {"Ethernet0": "oid:0x1000000000012", "Ethernet4": "oid:0x1000000000013"}
_DB = {
    "COUNTERS_PORT_NAME_MAP": _DB_MAP,
    "COUNTERS:oid:0x1000000000012": {
        "SAI_PORT_STAT_IF_IN_OCTETS": "88120", "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "940",
        **_pfc_fields("RX", [0, 0, 0, 4410, 0, 0, 7, 0]), **_pfc_fields("TX", [0, 0, 0, 12, 0, 0, 0, 0]),
        "SAI_PORT_STAT_PFC_3_ON2OFF_RX_PKTS": "99", "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "5000",
    },
    # A port whose PFC counters are not polled (no fields: pfcstat prints N/A for each).
    "COUNTERS:oid:0x1000000000013": {"SAI_PORT_STAT_IF_IN_OCTETS": "0"},
}  # fmt: skip
PFC_DB_READS: list[tuple[dict, str, Any]] = [
    (_DB, "rx.Ethernet0", [0, 0, 0, 4410, 0, 0, 7, 0]),
    (_DB, "tx.Ethernet0", [0, 0, 0, 12, 0, 0, 0, 0]),  # ON2OFF and pause-duration fields not added
    (_DB, "rx.Ethernet4", [None] * 8),
    (_DB, "tx.Ethernet4", [None] * 8),
    ({**_DB, "COUNTERS:oid:0x1000000000013": {}}, "tx.Ethernet4", [None] * 8),  # an empty hash
    ({"COUNTERS_PORT_NAME_MAP": {"Ethernet-BP0": "oid:0x10000000000a1"},
      "COUNTERS:oid:0x10000000000a1": _pfc_fields("RX", [5] * 8) | _pfc_fields("TX", [6] * 8)},
     "tx.Ethernet-BP0", [6] * 8),
]  # fmt: skip


@pytest.mark.parametrize(("document", "path", "expected"), PFC_DB_READS)
def test_pfc_counters_from_counters_db_are_read_by_the_sai_field_names(
    document: dict, path: str, expected: Any
) -> None:
    parsed = parse(PFC_TOOL, json.dumps(document, indent=2))
    assert set(parsed) == {"rx", "tx"}  # the text form's result
    assert dig(parsed, path) == expected


_DB_TEXT = json.dumps(_DB, indent=2)
_DUPLICATE = _DB_TEXT.replace('"SAI_PORT_STAT_IF_IN_UCAST_PKTS": "940"', '"SAI_PORT_STAT_PFC_3_RX_PKTS": "1"')
PFC_DB_REFUSALS = [
    (_DB_TEXT[:-60], r"COUNTERS_DB capture: not JSON \(a cut capture\?\)"),
    (json.dumps({k: v for k, v in _DB.items() if k != "COUNTERS_PORT_NAME_MAP"}),
     r"no COUNTERS_PORT_NAME_MAP object of ports"),
    (json.dumps({"COUNTERS_PORT_NAME_MAP": {}}), r"no COUNTERS_PORT_NAME_MAP object of ports"),
    (json.dumps({**_DB, "COUNTERS_PORT_NAME_MAP": {**_DB_MAP, "Ethernet8": "0x1000000000014"}}),
     r"maps Ethernet8 to '0x1000000000014', not an oid:0x\.\.\. id"),
    (json.dumps({k: v for k, v in _DB.items() if k != "COUNTERS:oid:0x1000000000013"}),
     r"no COUNTERS:oid:0x1000000000013 hash for Ethernet4 \(a cut capture\)"),
    (json.dumps({**_DB, "COUNTERS:oid:0x1000000000013": ["0"]}),
     r"COUNTERS:oid:0x1000000000013 \(Ethernet4\) is not a hash"),
    (json.dumps({**_DB, "COUNTERS:oid:0x1000000000013": _pfc_fields("RX", [1] * 7 + [-1])}),
     r"Ethernet4 SAI_PORT_STAT_PFC_7_RX_PKTS: '-1' is not a count"),
    (json.dumps({**_DB, "COUNTERS:oid:0x1000000000013": {"SAI_PORT_STAT_PFC_0_TX_PKTS": 12}}),
     r"Ethernet4 SAI_PORT_STAT_PFC_0_TX_PKTS: 12 is not a count"),
    (json.dumps({**_DB, "COUNTERS:oid:0x1000000000099": {}}),
     r"COUNTERS:oid:0x1000000000099 is no port's counters in COUNTERS_PORT_NAME_MAP"),
    (_DUPLICATE, r"SAI_PORT_STAT_PFC_3_RX_PKTS is given twice \(a duplicated capture\)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "reason"), PFC_DB_REFUSALS)
def test_a_damaged_counters_db_capture_is_refused(text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse(PFC_TOOL, text)


REDIS_PY_DICTS = [
    ("{}", {}),
    ("{'Ethernet0': 'oid:0x1000000000012', 'Ethernet4': 'oid:0x1000000000013'}", _DB_MAP),
    ("{'SAI_PORT_STAT_PFC_3_RX_PKTS': '4410'}\n", {"SAI_PORT_STAT_PFC_3_RX_PKTS": "4410"}),
    ("{'alias': \"it's\"}", {"alias": "it's"}),  # formatStringWithQuot: double quotes around a '
    ("{'Ethernet0': 'oid:0x1000000000012', 'Ethernet4': 'oid:0x10", None),  # cut
    ("{'Ethernet0': 'oid:0x12', 'Ethernet0': 'oid:0x13'}", None),  # a field twice
    ("{'Ethernet0':'oid:0x12'}", None),  # not formatDictReply's separators
    ('{"Ethernet0":"oid:0x12"}', None),  # JSON is no redis-py dict
    ("Command Line Error: Unknown argument:COUNTERS_DB", None),
]


@pytest.mark.parametrize(("answer", "expected"), REDIS_PY_DICTS)
def test_sonic_db_cli_dict_answers_are_read_exactly_or_not_at_all(answer: str, expected: dict | None) -> None:
    assert redis_py_dict(answer) == expected


class _SimulatedSonic:
    """A session on the simulator's SONiC personality (its shell, as the collection reaches it)."""

    def __init__(self, state: SwitchState) -> None:
        self.personality = SonicPersonality.__new__(SonicPersonality)
        self.personality.state, self.personality.heredoc, self.personality.asking = state, None, None
        self.sent: list[str] = []

    def send_command(self, command: str, read_timeout: int) -> str:
        self.sent.append(command)
        return self.personality.handle(command)

    def disconnect(self) -> None:
        pass


def _collect(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, session: Any) -> tuple[dict, str]:
    monkeypatch.setattr(switch_collect, "connector", lambda *args, **kwargs: lambda: session)
    switch = Switch("leaf07", "sonic", "leaf", "127.0.0.1", 22, (), mgmt_user="admin")
    switch_collect.collect_switch_show(switch, Connection("pw", host_key_checking=False), "after", tmp_path)
    folder = tmp_path / "switches" / "leaf07" / "after"
    return json.loads((folder / switch_collect.FORMS_FILE).read_text())[PFC_TOOL], (
        folder / f"{PFC_TOOL}.txt"
    ).read_text()


@pytest.mark.parametrize(
    "pauses",
    [{}, {"Ethernet4": ([0, 0, 0, 1520, 0, 0, 0, 0], [0, 0, 0, 37, 0, 0, 0, 0])},
     {"Ethernet0": ([1] * 8, [2] * 8), "Ethernet8": ([0, 0, 0, 9, 0, 0, 5, 0], [0] * 8)}],
)  # fmt: skip
def test_the_simulator_serves_pfc_counters_from_counters_db_and_as_text_from_the_same_counters(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pauses: dict
) -> None:
    state = _state({})
    for port, (rx, tx) in pauses.items():
        state.counters[port]["rx_pfc"], state.counters[port]["tx_pfc"] = rx, tx
    session = _SimulatedSonic(state)
    form, capture = _collect(monkeypatch, tmp_path, session)
    assert form == {
        "form": "json",
        "command": "sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP, then HGETALL "
        "COUNTERS:<oid> per port",
    }
    # The name map, then one HGETALL per port; `show pfc counters` is not asked.
    pfc_commands = [c for c in session.sent if c.startswith("sonic-db-cli") or c == "show pfc counters"]
    assert pfc_commands[0] == "sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP"
    assert len(pfc_commands) == 1 + len(state.ports)
    assert parse(PFC_TOOL, capture) == parse(PFC_TOOL, session.personality.handle("show pfc counters"))
    assert parse(PFC_TOOL, capture)["rx"]["Ethernet4"][3] == pauses.get("Ethernet4", ([0] * 8,))[0][3]


_MAP_ANSWER = json.dumps(_DB_MAP, separators=(",", ":"))
_PFC_TEXT = sonic_pfc_counters(_state({}))
# An image built before PR #1205: getopt_long refuses `-j` (opterr 0, the '?' case), and optind has
# already moved on, so the error names the next argument (sonic-db-cli.cpp at 85a39d8~1).
_NO_J = (
    "Command Line Error: Unknown argument:COUNTERS_DB\n"
    "usage: sonic-db-cli [-h] [-s] [-n NAMESPACE] db_or_op [cmd [cmd ...]]"
)
_MAP_CMD = "sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP"
_MAP_CMD_PY = "sonic-db-cli COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP"
_HASH_CMD = "sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS:oid:0x1000000000013"
PFC_COLLECTIONS = [
    ("an image without -j, its dict answer cut", {_MAP_CMD: _NO_J, _MAP_CMD_PY: "{'Ethernet0': 'oid:0x10"},
     f"{_MAP_CMD}: Command Line Error: Unknown argument:COUNTERS_DB; "
     f"{_MAP_CMD_PY}: {{'Ethernet0': 'oid:0x10"),
    ("an image without -j, a port's dict hash cut",
     {_MAP_CMD: _NO_J, _MAP_CMD_PY: "{'Ethernet0': 'oid:0x1000000000012'}",
      "sonic-db-cli COUNTERS_DB HGETALL COUNTERS:oid:0x1000000000012":
          "{'SAI_PORT_STAT_PFC_0_RX_PKTS': '1', 'SAI"},
     f"{_MAP_CMD}: Command Line Error: Unknown argument:COUNTERS_DB; sonic-db-cli COUNTERS_DB HGETALL "
     "COUNTERS:oid:0x1000000000012: {'SAI_PORT_STAT_PFC_0_RX_PKTS': '1', 'SAI"),
    ("a multi-ASIC host namespace (an empty map)", {_MAP_CMD: "{}"},
     f"{_MAP_CMD}: an empty map (a multi-ASIC host namespace: its ports are in each asicN namespace)"),
    ("a port's hash cut", {_MAP_CMD: _MAP_ANSWER,
                           "sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS:oid:0x1000000000012": "{}",
                           _HASH_CMD: '{"SAI_PORT_STAT_PFC_0_RX_PKTS":"1'},
     f'{_HASH_CMD}: {{"SAI_PORT_STAT_PFC_0_RX_PKTS":"1'),
    ("a map value that is no object id", {_MAP_CMD: '{"Ethernet0":"oid:0x12; reboot"}'},
     f"{_MAP_CMD}: Ethernet0 maps to 'oid:0x12; reboot', not an object id"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "answers", "refused"), PFC_COLLECTIONS, ids=[c[0] for c in PFC_COLLECTIONS])
def test_pfc_counters_fall_back_to_the_text_command_and_say_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str, answers: dict, refused: str
) -> None:
    session = _Session({**answers, "show pfc counters": _PFC_TEXT})
    form, capture = _collect(monkeypatch, tmp_path, session)
    assert form == {"form": "text", "command": "show pfc counters", "structured_refused": refused}
    assert capture.rstrip("\n") == _PFC_TEXT
    assert not any("reboot" in command and "HGETALL COUNTERS:" in command for command in session.sent)
    assert session.sent.count("show pfc counters") == 1


@pytest.mark.parametrize(
    ("release", "as_json"), [(None, True), ("202611", True), ("202605", False), ("202305", False)]
)
def test_the_simulator_refuses_j_where_the_release_lacks_it_and_the_dict_answers_are_read_instead(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, release: str | None, as_json: bool
) -> None:
    state = _state({})
    state.os_version = release
    state.counters["Ethernet4"]["rx_pfc"][3], state.counters["Ethernet8"]["tx_pfc"][6] = 1520, 41
    session = _SimulatedSonic(state)
    form, capture = _collect(monkeypatch, tmp_path, session)
    plain = "" if as_json else " (redis-py dict answers, saved as JSON)"
    assert form["form"] == "json"
    assert form["command"] == (
        f"sonic-db-cli {'-j ' if as_json else ''}COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP, then HGETALL "
        f"COUNTERS:<oid> per port{plain}"
    )
    assert form.get("structured_refused") == (
        None if as_json else f"{_MAP_CMD}: Command Line Error: Unknown argument:COUNTERS_DB"
    )
    db_commands = [c for c in session.sent if c.startswith("sonic-db-cli")]
    assert len(db_commands) == (1 if as_json else 2) + len(state.ports)
    assert "show pfc counters" not in session.sent
    parsed = parse(PFC_TOOL, capture)
    assert parsed == parse(PFC_TOOL, session.personality.handle("show pfc counters"))
    assert (parsed["rx"]["Ethernet4"][3], parsed["tx"]["Ethernet8"][6]) == (1520, 41)
