"""The simulator stores config as each OS does: a statement with one value set again replaces
it, a list statement adds up, `no`/`delete`/`nv unset` remove (rules: the simulator's own,
gpunet.lab.switchsim.storage)."""

from __future__ import annotations

import pytest

from gpunet.lab.switchsim.commit_checks import commit_refusals, junos_commit_error
from gpunet.lab.switchsim.configtree import ConfigEditor, ConfigTree
from gpunet.lab.switchsim.flatstore import set_line, unset_path
from gpunet.lab.switchsim.grammar_link import load_grammar
from gpunet.lab.switchsim.storage import storage_rules

TREE_CASES = [
    # (platform, indent, lines typed, running config afterwards)
    ("nxos", 2, ["interface Ethernet1/1", "mtu 9000", "mtu 9216"], ["interface Ethernet1/1", "  mtu 9216"]),
    (
        "nxos",
        2,
        ["interface Ethernet1/1", "mtu 9216", "no mtu 9216"],
        ["interface Ethernet1/1"],
    ),
    (
        "nxos",
        2,
        ["class-map type qos match-any GPUNET-ROCE", "match dscp 26", "match dscp 27"],
        ["class-map type qos match-any GPUNET-ROCE", "  match dscp 26", "  match dscp 27"],  # a list
    ),
    (
        "eos",
        3,
        ["qos profile GPUNET-ROCE", "tx-queue 3", "priority strict", "no priority"],
        ["qos profile GPUNET-ROCE", "   tx-queue 3", "      no priority"],  # EOS prints `no priority`
    ),
    (
        "eos",
        3,
        [
            "qos profile GPUNET-ROCE",
            "priority-flow-control priority 3 no-drop",
            "priority-flow-control priority 3 drop",
        ],
        ["qos profile GPUNET-ROCE", "   priority-flow-control priority 3 drop"],
    ),
]


@pytest.mark.parametrize("platform, indent, typed, expected", TREE_CASES)
def test_tree_store(platform, indent, typed, expected):
    tree = ConfigTree(indent, storage_rules(platform))
    editor = ConfigEditor(load_grammar(platform), tree)
    for line in typed:
        editor.feed(line)
    assert tree.to_lines() == expected


CODE_POINT = "set class-of-service classifiers dscp G forwarding-class roce loss-priority low code-points"
JUNOS_MTU = "set interfaces et-0/0/0 mtu"
JUNOS_ETHER = "set interfaces et-0/0/0 ether-options"
NVUE_MTU = "nv set interface swp1 link mtu"
FLAT_CASES = [
    ("junos", [f"{JUNOS_MTU} 9000", f"{JUNOS_MTU} 9216"], [f"{JUNOS_MTU} 9216"]),
    (
        "junos",
        [f"{CODE_POINT} 011010", f"{CODE_POINT} 011011"],
        [f"{CODE_POINT} 011010", f"{CODE_POINT} 011011"],
    ),
    # Junos YANG `choice flow-control-choice`: one leaf replaces the other, on its own port only.
    (
        "junos",
        [
            f"{JUNOS_ETHER} flow-control",
            "set interfaces et-0/0/1 ether-options flow-control",
            f"{JUNOS_ETHER} no-flow-control",
        ],
        ["set interfaces et-0/0/1 ether-options flow-control", f"{JUNOS_ETHER} no-flow-control"],
    ),
    (
        "junos",
        [
            f"{JUNOS_ETHER} no-auto-negotiation",
            f"{JUNOS_ETHER} no-flow-control",
            f"{JUNOS_ETHER} auto-negotiation",
        ],
        [f"{JUNOS_ETHER} no-flow-control", f"{JUNOS_ETHER} auto-negotiation"],
    ),
    ("cumulus", [f"{NVUE_MTU} 9000", f"{NVUE_MTU} 9216"], [f"{NVUE_MTU} 9216"]),
    (
        "cumulus",
        ["nv set qos pfc p switch-priority 3", "nv set qos pfc p switch-priority 4"],
        ["nv set qos pfc p switch-priority 3", "nv set qos pfc p switch-priority 4"],  # a set
    ),
]


@pytest.mark.parametrize("platform, typed, expected", FLAT_CASES)
def test_flat_store(platform, typed, expected):
    lines: list[str] = []
    for line in typed:
        lines = set_line(lines, line, storage_rules(platform))
    assert lines == expected


def test_unset_removes_the_path_and_below_only():
    lines = ["set class-of-service schedulers sch-roce transmit-rate percent 60",
             "set class-of-service schedulers sch-roce2 transmit-rate percent 5",
             "set class-of-service schedulers sch-roce explicit-congestion-notification"]  # fmt: skip
    assert unset_path(lines, "set class-of-service schedulers sch-roce") == [lines[1]]


PFC_ON_0 = "set class-of-service interfaces et-0/0/0 congestion-notification-profile cnp-3m"
ASYMMETRIC_0 = "set interfaces et-0/0/0 ether-options configured-flow-control rx-buffers on"
COMMIT_CASES = [
    # (candidate, the statements refused as (path, statement)) per behaviour/junos.yml's sources
    ([PFC_ON_0, f"{JUNOS_ETHER} no-flow-control"], []),
    ([PFC_ON_0, "set interfaces et-0/0/1 ether-options flow-control"], []),  # another port
    ([PFC_ON_0, f"{JUNOS_ETHER} flow-control"],
     [("class-of-service interfaces et-0/0/0", "congestion-notification-profile")]),
    ([PFC_ON_0, ASYMMETRIC_0], [("class-of-service interfaces et-0/0/0", "congestion-notification-profile")]),
    ([f"{JUNOS_ETHER} no-flow-control", ASYMMETRIC_0],
     [("interfaces et-0/0/0 ether-options", "configured-flow-control")]),
    ([ASYMMETRIC_0], []),
]  # fmt: skip


@pytest.mark.parametrize("candidate, refused", COMMIT_CASES)
def test_junos_commit_refuses_statements_not_allowed_together(candidate, refused):
    refusals = commit_refusals("junos", candidate)
    assert [(r.path, r.statement) for r in refusals] == refused
    if refused:
        report = junos_commit_error(refusals).splitlines()
        assert report[0] == f"[edit {refused[0][0]}]"
        assert report[-1] == "error: commit failed: (statements constraint check failed)"
