# ruff: noqa: E501  (table rows hold recorded-layout lines whole)
"""The per-priority PFC view of EOS and Junos: parsers over recorded layouts and damaged copies,
and switch_pfc verdicts on edited copies of the healthy fixture."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from gpunet.validate.judge import judge
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.results import Status
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
SWITCHES = HEALTHY / "switches"

# Our own values in the layout of a public QFX capture (Junos 22.4, et-0/0/24; see
# docs/switch-show-commands.md): the PFC block sits among the other extensive blocks and has no
# Receive/Transmit header of its own.
JUNOS_QFX_LAYOUT = """\
Physical interface: et-0/0/7, Enabled, Physical link is Up
  Interface index: 661, SNMP ifIndex: 530, Generation: 152
  Link-level type: Ethernet, MTU: 9216, LAN-PHY mode, Speed: 400Gbps, Flow control: Disabled
  Egress queues: 8 supported, 4 in use
  Queue counters:       Queued packets  Transmitted packets      Dropped packets
    0                          4410021              4410021                    0
    3                        812004399            812004399                    0
  MAC statistics:                      Receive         Transmit
    Total octets                  831492104811     831933071052
    MAC control frames                    2284               97
    MAC pause frames                         0                0
    Code violations                          0
  MAC Priority Flow Control Statistics:
    Priority :  0                             0                0
    Priority :  1                             0                0
    Priority :  2                             0                0
    Priority :  3                          2284               97
    Priority :  4                             0                0
    Priority :  5                             0                0
    Priority :  6                             0                0
    Priority :  7                             0                0
  PRBS Mode : Disabled
  CoS information:
    Direction : Output
    CoS transmit queue               Bandwidth               Buffer Priority   Limit
    3 roce                   60   240000000000    60              0      low    none
"""


# Juniper's reference sample layout (an IEEE 802.1p profile), our own profile names.
JUNOS_CN_8021P = """\
Type: Input, Name: roce-cnp, Index: 60305
Priority     PFC
  000          Disabled
  001          Disabled
  010          Disabled
  011          Enabled
  100          Disabled
  101          Disabled
  110          Disabled
  111          Disabled
"""
# A whole `show class-of-service interface` block, in the layout of public real captures.
JUNOS_COS_INTERFACE = """\
Physical interface: et-0/0/7, Index: 1024
Maximum usable queues: 8, Queues in use: 4
Exclude aggregate overhead bytes: disabled
Logical interface aggregate statistics: disabled
  Scheduler map: GPUNET-MAP, Index: 27018
  Congestion-notification: Enabled, Name: roce-cnp, Index: 60305

  Logical interface: et-0/0/7.0, Index: 1003
Object                  Name                   Type                    Index
Classifier              GPUNET-DSCP            dscp                    10243

Physical interface: et-0/0/8, Index: 1025
Maximum usable queues: 8, Queues in use: 4
  Scheduler map: <default>, Index: 2
  Congestion-notification: Disabled
  Drop-Congestion-notification: Disabled
"""


def _dig(value: Any, path: str) -> Any:
    for key in path.split("."):
        value = (
            value[int(key)] if isinstance(value, dict) and key.isdigit() and int(key) in value else value[key]
        )
    return value


def _fixture(relative: str) -> str:
    return (SWITCHES / relative).read_text()


# (tool, text, parsed path, expected)
PARSED = [
    ("junos-show-interfaces-extensive", JUNOS_QFX_LAYOUT, "interfaces.et-0/0/7.priorities.3.rx_pause", 2284),
    ("junos-show-interfaces-extensive", JUNOS_QFX_LAYOUT, "interfaces.et-0/0/7.priorities.3.tx_pause", 97),
    ("junos-show-interfaces-extensive", JUNOS_QFX_LAYOUT, "interfaces.et-0/0/7.pfc_block", True),
    ("junos-show-interfaces-extensive", "Physical interface: lo0, Enabled, Physical link is Up\n",
     "interfaces.lo0.pfc_block", False),
    ("eos-show-pfc", _fixture("leaf03/after/eos-show-pfc.txt"), "global_enabled", True),
    ("eos-show-pfc", _fixture("leaf03/after/eos-show-pfc.txt"), "interfaces.Et16/1.priorities", [3]),
    ("eos-show-pfc", "Port Enabled Priorities Active Note\nEthernet1 Yes 3 4 Yes DCBX disabled\n", "interfaces.Ethernet1.priorities", [3, 4]),
    ("eos-show-pfc", "Port Enabled Priorities Active Note\nEt2/1 No No DCBX disabled\n", "interfaces.Et2/1",
     {"enabled": False, "active": False, "watchdog": None, "priorities": []}),
    # The letters layout (E enabled, A active, W watchdog), apart or run together.
    ("eos-show-pfc", "Port Status Priorities\nEt1/1 EAW 3,4 DCBX disabled\n", "interfaces.Et1/1.watchdog", True),
    ("eos-show-pfc", "Port Status Priorities\nEt1/1 D - DCBX disabled\n", "interfaces.Et1/1.enabled", False),
    ("eos-show-pfc", "Port Enabled Priorities Active Note\nEt1/1 No No DCBX disabled\n", "global_enabled", None),
    ("eos-show-pfc-watchdog-json", '{"interfaces": {}}', "interfaces", {}),
    ("eos-show-pfc-watchdog-json",
     '{"interfaces": {"Ethernet4/1": {"txQueues": {"3": {"stuckCount": 5, "recoveryCount": 4}}}}}',
     "interfaces.Ethernet4/1.3.stuck", 5),
    # Pause frames per priority, in the fields DNE-TaaC reads (rxFrames/txFrames).
    ("eos-show-pfc-counters-detail-json", _fixture("leaf03/after/eos-show-pfc-counters-detail-json.txt"),
     "interfaces.Ethernet1/1.3", {"rx_pause": 1520, "tx_pause": 37}),
    ("eos-show-pfc-counters-detail-json", _fixture("leaf03/after/eos-show-pfc-counters-detail-json.txt"),
     "interfaces.Ethernet1/1.5", {"rx_pause": 0, "tx_pause": 0}),
    ("eos-show-pfc-counters-detail-json",
     '{"interfaces": {"Ethernet7/1": {"priorities": {"3": {"rxFrames": 8, "txFrames": 0, "rxDuration": 1}}}}}',
     "interfaces.Ethernet7/1", {3: {"rx_pause": 8, "tx_pause": 0}}),
    ("eos-show-pfc-counters-detail-json", '{"interfaces": {}}', "interfaces", {}),
    ("junos-show-cos-interface", JUNOS_COS_INTERFACE, "interfaces",
     {"et-0/0/7": {"congestion_notification": True, "profile": "roce-cnp"},
      "et-0/0/8": {"congestion_notification": False, "profile": None}}),
    ("junos-show-cos-interface", "Physical interface: et-0/0/9, Index: 1026\n", "interfaces.et-0/0/9",
     {"congestion_notification": None, "profile": None}),
    ("junos-show-cos-interface", "Physical interface: et-0/0/9, Index: 1026\n  Congestion-notification: Enabled\n",
     "interfaces.et-0/0/9", {"congestion_notification": True, "profile": None}),
    ("junos-show-cos-interface", _fixture("leaf08/after/junos-show-cos-interface.txt"),
     "interfaces.et-0/0/15.profile", "cnp-30m"),
    ("junos-show-cos-congestion-notification", JUNOS_CN_8021P, "profiles.roce-cnp.input.priorities",
     {0: False, 1: False, 2: False, 3: True, 4: False, 5: False, 6: False, 7: False}),
    # A DSCP-based profile: Juniper documents no table for it; the block is kept without one.
    ("junos-show-cos-congestion-notification", _fixture("leaf08/after/junos-show-cos-congestion-notification.txt"),
     "profiles.cnp-3m.input.priorities", {}),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "text", "path", "expected"), PARSED)
def test_parsed(tool: str, text: str, path: str, expected: Any) -> None:
    assert _dig(parse(tool, text), path) == expected


def _cut(text: str, marker: str) -> str:
    return text[: text.index(marker)]


# Damaged captures: each must be refused, never read as healthy.
DAMAGED = [
    ("junos-show-interfaces-extensive", _cut(JUNOS_QFX_LAYOUT, "    Priority :  5"), "incomplete capture"),
    ("junos-show-interfaces-extensive", JUNOS_QFX_LAYOUT + "\n" + JUNOS_QFX_LAYOUT.replace("et-0/0/7", "et-0/0/8")
     + JUNOS_QFX_LAYOUT, "listed twice"),
    ("junos-show-interfaces-extensive", "error: device et-0/0/99 not found\n", "Physical interface"),
    ("eos-show-pfc", "% Invalid input\n", "header"),
    ("eos-show-pfc", _fixture("leaf03/after/eos-show-pfc.txt") + "Et1/1       Yes      3           Yes\n", "listed twice"),
    ("eos-show-pfc", "Port Enabled Priorities Active Note\nEt1/1 Yes 3\n", "Active column"),  # a cut row
    ("eos-show-pfc", "Port Enabled Priorities Active Note\nEt1/1 3 Yes DCBX disabled\n", "Enabled column"),
    ("eos-show-pfc", "Port Status Priorities\nEt1/1 3 DCBX disabled\n", "status letters"),
    ("eos-show-pfc-watchdog-json", '{"interfaces": {"Ethernet4/1": {"txQueues": {"3": {"stuck', "not JSON"),
    ("eos-show-pfc-watchdog-json", '{"interfaces": {"Ethernet4/1": {"txQueues": {"3": {"stuckCount": "x", '
     '"recoveryCount": 0}}}}}', "not integers"),
    ("eos-show-pfc-watchdog-json", "% Invalid input\n", "not JSON"),
    ("eos-show-pfc-counters-detail-json", _fixture("leaf03/after/eos-show-pfc-counters-detail-json.txt")[:900],
     "not JSON"),
    ("eos-show-pfc-counters-detail-json", _fixture("leaf03/after/eos-show-pfc-counters-detail-json.txt") * 2,
     "twice"),  # two documents back to back
    ("eos-show-pfc-counters-detail-json",
     '{"interfaces": {"Ethernet1/1": {"priorities": {}}, "Ethernet1/1": {"priorities": {}}}}', "listed twice"),
    ("eos-show-pfc-counters-detail-json",
     '{"interfaces": {"Ethernet1/1": {"priorities": {"3": {"rxFrames": 1, "txFrames": 0}, '
     '"3": {"rxFrames": 1, "txFrames": 0}}}}}', "listed twice"),
    ("eos-show-pfc-counters-detail-json",
     '{"interfaces": {"Ethernet1/1": {"priorities": {"9": {"rxFrames": 1, "txFrames": 0}}}}}', "not 0-7"),
    ("eos-show-pfc-counters-detail-json",
     '{"interfaces": {"Ethernet1/1": {"priorities": {"3": {"rxFrames": "1", "txFrames": 0}}}}}', "not integers"),
    ("eos-show-pfc-counters-detail-json", '{"interfaces": {"Ethernet1/1": {}}}', "no 'priorities'"),
    ("eos-show-pfc-counters-detail-json", '{"errors": ["CLI command 1 of 1 failed"]}', "no 'interfaces'"),
    ("junos-show-cos-interface", "error: syntax error, expecting <command>: clas\n", "Physical interface"),
    ("junos-show-cos-interface", JUNOS_COS_INTERFACE + JUNOS_COS_INTERFACE[JUNOS_COS_INTERFACE.index("Physical interface: et-0/0/8"):],
     "listed twice"),
    ("junos-show-cos-interface", JUNOS_COS_INTERFACE.replace("Enabled, Name: roce-cnp, Index: 60305", "Enab"),
     "unreadable"),  # a line cut short
    ("junos-show-cos-interface", JUNOS_COS_INTERFACE.replace("  Drop-Congestion-notification: Disabled",
     "  Congestion-notification: Disabled"), "two congestion-notification lines"),
    ("junos-show-cos-congestion-notification", _cut(JUNOS_CN_8021P, "  101"), "5 of 8 code points"),
    ("junos-show-cos-congestion-notification", JUNOS_CN_8021P + JUNOS_CN_8021P.replace("roce-cnp", "other")
     + JUNOS_CN_8021P, "listed twice"),
    ("junos-show-cos-congestion-notification", JUNOS_CN_8021P.replace("  111", "  011"), "listed twice"),
    ("junos-show-cos-congestion-notification", "error: command is not valid on the ex2300-c\n", "Type: Input"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "text", "reason"), DAMAGED)
def test_damaged_capture_is_refused(tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse(tool, text)


_JUNOS_P4 = "    Priority :  4                            0                0"
_EOS_ET2 = "Et2/1       Yes      3           Yes     DCBX disabled"
_EOS_P5 = '"5": {\n                    "rxFrames": 0,'
_EOS_P3_AFTER = '"3": {\n                    "rxFrames": 1520,'
_CNP_30M = "Type: Input, Name: cnp-30m, Index: 60000\n"
_STUCK = '{"interfaces": {"Ethernet3/1": {"txQueues": {"3": {"stuckCount": 1, "recoveryCount": 1}}}}}'

# (file under switches/, text to replace, replacement or None for the whole file's new text,
#  the non-passing (check, target, status) results expected; link_qos names a host link whose leaf
#  port's PFC is seen wrong)
CHECK_CASES = [
    ("leaf03/after/eos-show-pfc.txt", _EOS_ET2, "Et2/1       No                   No      DCBX disabled",
     {("switch_pfc", "leaf03:Ethernet2/1", Status.FAIL), ("link_qos", "gpu02:mlx5_2<->leaf03:Ethernet2/1", Status.FAIL)}),
    ("leaf03/after/eos-show-pfc.txt", _EOS_ET2, "Et2/1       Yes      4           Yes     DCBX disabled",
     {("switch_pfc", "leaf03:Ethernet2/1", Status.FAIL), ("link_qos", "gpu02:mlx5_2<->leaf03:Ethernet2/1", Status.FAIL)}),
    ("leaf03/after/eos-show-pfc.txt", _EOS_ET2, "Et2/1       Yes      3           No      DCBX disabled",
     {("switch_pfc", "leaf03:Ethernet2/1", Status.FAIL)}),
    ("leaf04/after/eos-show-pfc.txt", _EOS_ET2 + "\n", "", {("switch_pfc", "leaf04:Ethernet2/1", Status.FAIL)}),
    ("leaf03/after/eos-show-pfc-watchdog-json.txt", None, _STUCK,
     {("switch_pfc", "leaf03:Ethernet3/1", Status.FAIL)}),
    # Pause frames on a lossy priority during the tests (first port in the file: Ethernet1/1).
    ("leaf03/after/eos-show-pfc-counters-detail-json.txt", _EOS_P5, _EOS_P5.replace(": 0,", ": 4410,"),
     {("switch_pfc", "leaf03:Ethernet1/1", Status.FAIL)}),
    # A priority outside 0-7 makes the capture unreadable.
    ("leaf03/before/eos-show-pfc-counters-detail-json.txt", '"3": {', '"9": {',
     {("switch_pfc", "leaf03", Status.ERROR)}),
    ("leaf03/after/eos-show-pfc-counters-detail-json.txt", None,
     '{"interfaces": {"Ethernet1/1": {"priorities": {"0": {"rxFrames": 0, "txFrames": 0}}}}}',
     {("switch_pfc", f"leaf03:Ethernet{n}/1", Status.FAIL) for n in range(1, 17)}),
    # Junos: the port's PFC profile missing, another profile, or a profile not enabling priority 3.
    ("leaf08/after/junos-show-cos-interface.txt", "Enabled, Name: cnp-3m, Index: 60001", "Disabled",
     {("switch_pfc", "leaf08:et-0/0/0", Status.FAIL), ("link_qos", "gpu01:mlx5_7<->leaf08:et-0/0/0", Status.FAIL)}),
    ("leaf08/after/junos-show-cos-interface.txt", "Enabled, Name: cnp-3m, Index: 60001",
     "Enabled, Name: cnp-gone, Index: 60009", {("switch_pfc", "leaf08:et-0/0/0", Status.FAIL)}),
    ("leaf08/after/junos-show-cos-interface.txt", "Enabled, Name: cnp-3m, Index: 60001", "Enabled",
     set()),  # enabled without a profile name (the enabled form is unconfirmed): not failed
    # The downlinks' profile cnp-3m printed with an IEEE 802.1p table (the uplinks keep cnp-30m).
    ("leaf08/after/junos-show-cos-congestion-notification.txt", None,
     _CNP_30M + JUNOS_CN_8021P.replace("roce-cnp", "cnp-3m").replace("011          Enabled", "011          Disabled")
     .replace("100          Disabled", "100          Enabled"),
     {("switch_pfc", f"leaf08:et-0/0/{n}", Status.FAIL) for n in range(8)}
     | {("link_qos", f"gpu0{n + 1}:mlx5_7<->leaf08:et-0/0/{n}", Status.FAIL) for n in range(4)}),
    ("leaf08/after/junos-show-cos-congestion-notification.txt", None,
     _CNP_30M + JUNOS_CN_8021P.replace("roce-cnp", "cnp-3m"), set()),  # priority 3 enabled: passes
    ("leaf08/after/junos-show-cos-interface.txt", "Physical interface: et-0/0/3, Index: 1003",
     "Physical interface: et-0/0/3, Index: 1003\n  Congestion-notification: Disabled",
     {("switch_pfc", "leaf08", Status.ERROR)}),  # two lines under one interface: damaged
    ("spine01/after/eos-show-pfc.txt", "Port        Enabled", "Garbled     Heading",
     {("switch_pfc", "spine01", Status.ERROR)}),
    ("leaf08/after/junos-show-interfaces-extensive.txt", _JUNOS_P4,
     "    Priority :  4                          311                0",
     {("switch_pfc", "leaf08:et-0/0/0", Status.FAIL)}),
    ("leaf08/after/junos-show-interfaces-extensive.txt", _JUNOS_P4 + "\n", "",
     {("switch_pfc", "leaf08", Status.ERROR)}),  # a cut PFC block is an unreadable capture
    ("leaf08/before/junos-show-interfaces-extensive.txt", "  MAC Priority Flow Control Statistics:\n", "",
     {("switch_pfc", "leaf08:et-0/0/0", Status.FAIL)}),  # rows without their block header are not read
]  # fmt: skip


@pytest.mark.parametrize(("relative", "old", "new", "expected"), CHECK_CASES)
def test_switch_pfc_verdicts(
    tmp_path: Path, relative: str, old: str | None, new: str, expected: set[tuple[str, str, Status]]
) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    path = folder / "switches" / relative
    text = path.read_text()
    if old is None:
        path.write_text(new)
    else:
        assert old in text, "the fixture no longer holds the line this case edits"
        path.write_text(text.replace(old, new, 1))
    problems = {(r.check, r.target, r.status) for r in judge(folder).results if r.status != Status.PASS}
    assert problems == expected


def test_healthy_eos_and_junos_ports_pass_with_what_they_saw() -> None:
    results = [r for r in judge(HEALTHY).results if r.check == "switch_pfc"]
    by_target = {r.target: r for r in results}
    assert {r.status for r in results} == {Status.PASS}
    assert by_target["leaf03:Ethernet1/1"].actual == (
        "PFC on [3], 1557 pause frames on priority 3, 0 watchdog-stuck events on queue 3"
    )
    assert by_target["leaf08:et-0/0/15"].actual == (
        "profile cnp-30m attached (no IEEE 802.1p PFC table printed); 1557 pause frames on priority 3"
    )
    assert len([t for t in by_target if t.startswith("spine01:")]) == 32


def test_a_missing_eos_watchdog_capture_is_an_error_not_a_pass(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    (folder / "switches" / "leaf04" / "before" / "eos-show-pfc-watchdog-json.txt").unlink()
    problems = {(r.check, r.target, r.status) for r in judge(folder).results if r.status != Status.PASS}
    assert problems == {("switch_pfc", "leaf04", Status.ERROR)}
