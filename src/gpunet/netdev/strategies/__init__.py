"""Commit strategies by the names the platform registry (gpunet.platforms) gives them."""

from __future__ import annotations

from gpunet.netdev.strategies.base import CommitStrategy, PushOptions, SessionLost
from gpunet.netdev.strategies.cumulus import NvueApplyConfirm
from gpunet.netdev.strategies.eos import SessionCommitTimer
from gpunet.netdev.strategies.junos import CommitConfirmed
from gpunet.netdev.strategies.nxos import CheckpointRollback
from gpunet.netdev.strategies.sonic import ConfigCheckpointRollback

STRATEGIES: dict[str, type[CommitStrategy]] = {
    s.name: s
    for s in (
        CheckpointRollback,
        SessionCommitTimer,
        NvueApplyConfirm,
        ConfigCheckpointRollback,
        CommitConfirmed,
    )
}

__all__ = ["STRATEGIES", "CommitStrategy", "PushOptions", "SessionLost"]
