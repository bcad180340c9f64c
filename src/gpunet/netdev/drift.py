"""Drift: per switch, what the push would add and remove to reach intended/. Reads only."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from gpunet.model.fabric import Switch
from gpunet.netdev.errors import PushError
from gpunet.netdev.push import Connection, connector, plan_remediation
from gpunet.netdev.remediation import Remediation
from gpunet.netdev.strategies import STRATEGIES, PushOptions, SessionLost
from gpunet.platforms import get_platform

IN_SYNC, DRIFT, UNREADABLE = "in sync", "drift", "unreadable"


@dataclass
class SwitchDrift:
    switch: str
    platform: str
    status: str
    remediation: Remediation | None = None
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"platform": self.platform, "status": self.status}
        if self.remediation is not None:
            found.update(self.remediation.as_dict())
        if self.error:
            found["error"] = self.error
        return found


@dataclass
class DriftReport:
    switches: list[SwitchDrift] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """3 when a switch could not be read (the answer is incomplete), else 4 on drift, else 0."""
        statuses = {s.status for s in self.switches}
        return 3 if UNREADABLE in statuses else 4 if DRIFT in statuses else 0

    def as_dict(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "switches": {s.switch: s.as_dict() for s in self.switches}}


def switch_drift(switch: Switch, intended: str, connection: Connection, options: PushOptions) -> SwitchDrift:
    strategy_class = STRATEGIES[get_platform(switch.platform).commit_strategy]
    try:
        strategy = strategy_class(switch.name, connector(switch, connection), options)
        try:
            running = strategy.read_running()
        finally:
            strategy.close()
        remediation = plan_remediation(switch, running, intended)
    except PushError as error:
        return SwitchDrift(switch.name, switch.platform, UNREADABLE, error=error.reason)
    except SessionLost as lost:
        return SwitchDrift(switch.name, switch.platform, UNREADABLE, error=str(lost))
    status = IN_SYNC if remediation.in_sync else DRIFT
    return SwitchDrift(switch.name, switch.platform, status, remediation)


def fabric_drift(
    targets: list[tuple[Switch, str, Connection]],
    options: PushOptions,
    *,
    workers: int = 8,
    on_done: Callable[[SwitchDrift], None] | None = None,
) -> DriftReport:
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda t: switch_drift(t[0], t[1], t[2], options), targets))
    if on_done:
        for result in results:
            on_done(result)
    return DriftReport(results)
