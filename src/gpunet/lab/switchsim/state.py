"""What one simulated switch holds: running/startup config, checkpoints, counters, history.

LAB EQUIPMENT: part of gpunet's switch simulator. Saved as JSON (`--state FILE`) after every
change so tests can assert what is configured.
"""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpunet.lab.switchsim.factory import factory_config

DEFAULT_PORTS = {
    "nxos": ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"],
    "eos": ["Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1"],
    "cumulus": ["swp1", "swp2", "swp3", "swp4"],
    "sonic": ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"],  # 800G cages of both SKUs
    "junos": ["et-0/0/0", "et-0/0/1", "et-0/0/2", "et-0/0/3"],
}


@dataclass
class SwitchState:
    platform: str
    hostname: str
    model: str | None = None  # gpunet_switch_model; the factory config is that model's
    os_version: str | None = None  # the release it runs: statements newer than it are refused
    config: Any = None  # running config: list of lines, or the config_db dict on SONiC
    startup: Any = None
    checkpoints: dict[str, Any] = field(default_factory=dict)
    ports: list[str] = field(default_factory=list)
    # Per port: pause frames received/sent per priority, and queue packet counters (tests drive them).
    counters: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    # Per port: the far end of its cable, [device, port] (the lab inventory's `peer`, a host NIC by
    # its netdev), which the LLDP commands show (personalities/lldp.py); empty: no cable.
    neighbours: dict[str, list[str]] = field(default_factory=dict)
    pending_confirm: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.ports:
            self.ports = list(DEFAULT_PORTS[self.platform])
        if self.config is None:
            self.config = factory_config(self.platform, self.hostname, self.model, self.ports)
        if self.startup is None:
            self.startup = copy.deepcopy(self.config)
        for port in self.ports:
            self.counters.setdefault(port, {"rx_pfc": [0] * 8, "tx_pfc": [0] * 8, "tx_queue": [0] * 8})

    def record(self, event: str, **details: Any) -> None:
        self.history.append({"event": event, "at": round(time.time(), 3), **details})

    def snapshot(self) -> Any:
        return copy.deepcopy(self.config)

    @classmethod
    def load(cls, path: Path) -> SwitchState:
        return cls(**json.loads(path.read_text()))

    def save(self, path: Path) -> None:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(json.dumps(asdict(self), indent=1) + "\n")
        os.replace(temporary, path)
