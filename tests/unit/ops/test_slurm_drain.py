"""Drain and resume decisions over scontrol's own one-line node output, and what node-check
--slurm asks scontrol to do (a recorder stands in for scontrol)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.nodecheck.slurm import Action, decide, parse_node_state
from tests.unit.ops.conftest import RECORDED, fake_tool

# Shapes of `scontrol show node --oneliner` (Slurm 22.05) for an idle, an admin-drained and a
# gpunet-drained node; fields trimmed to those gpunet reads plus neighbours.
IDLE = "NodeName=gpu03 Arch=x86_64 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 Partitions=gpu"
ADMIN = (
    "NodeName=gpu03 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Partitions=gpu "
    "Reason=replacing DIMM B2 [root@2026-12-01T10:02:11]"
)
GPUNET = (
    "NodeName=gpu03 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Partitions=gpu "
    "Reason=gpunet: ntp_offset gpu03 could not run: 506 Cannot talk to daemon [root@2026-12-01T10:05:00]"
)
DRAINING = (
    "NodeName=gpu03 State=MIXED+DRAIN Partitions=gpu "
    "Reason=gpunet: nic_qos gpu03:mlx5_0 trust pcp [slurm@2026-12-01T11:00:00]"
)
DOWN_NO_RESPONSE = "NodeName=gpu03 State=DOWN*+DRAIN Reason=Not responding [slurm@2026-12-01T11:00:00]"
FAILING = "gpunet: ntp_offset gpu03 could not run: 506 Cannot talk to daemon"

PARSE_CASES = [
    (IDLE, {"IDLE"}, ""),
    (ADMIN, {"IDLE", "DRAIN"}, "replacing DIMM B2"),
    (GPUNET, {"IDLE", "DRAIN"}, FAILING),
    (DOWN_NO_RESPONSE, {"DOWN", "DRAIN"}, "Not responding"),
]


@pytest.mark.parametrize(("text", "flags", "reason"), PARSE_CASES)
def test_state_and_reason_are_read_from_scontrol(text: str, flags: set[str], reason: str) -> None:
    state = parse_node_state(text)
    assert state.flags == flags
    assert state.reason == reason


DECISIONS = [
    # (scontrol line, node healthy?, action)
    (IDLE, False, Action.DRAIN),
    (IDLE, True, Action.NONE),
    (ADMIN, False, Action.NONE),  # the admin's reason stays
    (ADMIN, True, Action.NONE),  # and so does the drain
    (GPUNET, False, Action.NONE),  # same reason: nothing to rewrite
    (GPUNET, True, Action.RESUME),
    (DRAINING, False, Action.DRAIN),  # another gpunet reason: updated to the current one
    (DRAINING, True, Action.RESUME),
    (DOWN_NO_RESPONSE, True, Action.NONE),  # Slurm's own reason: not gpunet's to clear
]


@pytest.mark.parametrize(("text", "healthy", "action"), DECISIONS)
def test_only_gpunet_drains_are_resumed(text: str, healthy: bool, action: Action) -> None:
    assert decide(parse_node_state(text), healthy, FAILING) == action


def recorder(folder: Path, state_line: str) -> Path:
    log = folder / "scontrol.log"
    script = folder / "scontrol"
    script.write_text(f'#!/bin/sh\necho "$*" >> {log}\nif [ "$1" = show ]; then echo {state_line!r}; fi\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.parametrize(
    ("chrony_ok", "state_line", "update"),
    [
        (False, IDLE, "update NodeName=gpu01 State=DRAIN Reason=gpunet: ntp_offset gpu01 could not run: 506"),
        (True, GPUNET.replace("gpu03", "gpu01"), "update NodeName=gpu01 State=RESUME"),
        (False, ADMIN, None),
        (True, ADMIN, None),
    ],
)
def test_node_check_drives_scontrol(node: Path, chrony_ok: bool, state_line: str, update: str | None) -> None:
    chronyc = (
        f"cat {RECORDED / 'chronyc-tracking.txt'}"
        if chrony_ok
        else "echo '506 Cannot talk to daemon'; exit 1"
    )
    fake_tool(node / "bin", "chronyc", chronyc)
    scontrol = recorder(node, state_line)
    argv = ["node-check", "--expectations", str(node / "expect.json"), "--checks", "ntp_offset"]
    main([*argv, "--slurm", "--scontrol", str(scontrol)])
    calls = (node / "scontrol.log").read_text().splitlines()
    assert calls[0] == "show node --oneliner gpu01"
    updates = calls[1:]
    if update is None:
        assert updates == []
    else:
        assert len(updates) == 1 and updates[0].startswith(update), updates


def test_an_unreachable_controller_is_reported_not_hidden(node: Path, capsys) -> None:
    fake_tool(node / "bin", "chronyc", f"cat {RECORDED / 'chronyc-tracking.txt'}")
    argv = ["node-check", "--expectations", str(node / "expect.json"), "--checks", "ntp_offset", "--slurm"]
    broken = node / "bin" / "scontrol"
    fake_tool(
        node / "bin",
        "scontrol",
        "echo 'slurm_load_node error: Unable to contact slurm controller' >&2; exit 1",
    )
    assert os.access(broken, os.X_OK)
    assert main(argv) == 3
    assert "Unable to contact slurm controller" in capsys.readouterr().err
