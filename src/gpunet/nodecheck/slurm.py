"""Slurm side of the node check: drain this node when a check fails, resume it when they pass
again, and never touch a node someone else drained.

Slurm runs `HealthCheckProgram` as root on every slurmd host and leaves the draining to the
program (https://slurm.schedmd.com/slurm.conf.html#OPT_HealthCheckProgram), as NHC does; gpunet
marks its own drains with the reason prefix `gpunet:` and only ever resumes those.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from enum import StrEnum

from gpunet.nodecheck.judge import REASON_PREFIX

SCONTROL_TIMEOUT_S = 5.0
# `scontrol show node -o` prints `State=IDLE+DRAIN ... Reason=<text> [user@time]` (the bracket is
# Slurm's own record of who set it and when).
_STATE = re.compile(r"(?:^|\s)State=(?P<state>\S+)")
_REASON = re.compile(r"(?:^|\s)Reason=(?P<reason>.*?)(?:\s+\[[^\]]*\])?\s*$")


class Action(StrEnum):
    NONE = "none"
    DRAIN = "drain"
    RESUME = "resume"


@dataclass(frozen=True)
class NodeState:
    flags: frozenset[str]  # IDLE, ALLOCATED, DRAIN, DOWN, ...
    reason: str

    @property
    def drained(self) -> bool:
        return bool({"DRAIN", "DRAINED", "DRAINING"} & self.flags)

    @property
    def drained_by_gpunet(self) -> bool:
        return self.drained and self.reason.startswith(REASON_PREFIX)


class SlurmError(RuntimeError):
    """scontrol failed or printed what we cannot read."""


def parse_node_state(text: str) -> NodeState:
    state = _STATE.search(text)
    if state is None:
        raise SlurmError(f"no State= in scontrol output: {text.strip()[:120]!r}")
    reason = _REASON.search(text)
    flags = frozenset(flag.rstrip("*~#!%$@^-") for flag in re.split(r"[+]", state["state"]))
    return NodeState(flags, reason["reason"].strip() if reason else "")


def decide(state: NodeState, healthy: bool, reason: str) -> Action:
    """Drain on failure unless drained already (by anyone: an admin's reason is kept, gpunet's same
    reason is not rewritten); resume on health only what gpunet drained."""
    if not healthy:
        if not state.drained or (state.drained_by_gpunet and state.reason != reason):
            return Action.DRAIN
        return Action.NONE
    return Action.RESUME if state.drained_by_gpunet else Action.NONE


def node_state(node: str, scontrol: str = "scontrol") -> NodeState:
    return parse_node_state(_scontrol(scontrol, "show", "node", "--oneliner", node))


def apply(node: str, action: Action, reason: str, scontrol: str = "scontrol") -> None:
    if action == Action.DRAIN:
        _scontrol(scontrol, "update", f"NodeName={node}", "State=DRAIN", f"Reason={reason}")
    elif action == Action.RESUME:
        _scontrol(scontrol, "update", f"NodeName={node}", "State=RESUME")


def _scontrol(scontrol: str, *args: str) -> str:
    try:
        done = subprocess.run(
            [scontrol, *args], capture_output=True, text=True, timeout=SCONTROL_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise SlurmError(f"scontrol {args[0]} timed out after {SCONTROL_TIMEOUT_S:g} s") from None
    except OSError as error:
        raise SlurmError(f"cannot run {scontrol}: {error.strerror}") from None
    if done.returncode != 0:
        raise SlurmError(
            f"scontrol {' '.join(args[:2])} exited {done.returncode}: {done.stderr.strip()[:200]}"
        )
    return done.stdout
