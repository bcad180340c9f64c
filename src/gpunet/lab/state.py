"""What `gpunet lab up` started, kept in .lab/state.json so `status` and `down` find it again."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gpunet.lab.switches import RunningSwitch


@dataclass
class LabState:
    fabric: str
    switch_username: str
    switch_password: str  # lab-only secret: the file is 0600 and gitignored
    nodes: dict[str, str] = field(default_factory=dict)  # host -> management address
    ntp_address: str = ""
    switches: dict[str, RunningSwitch] = field(default_factory=dict)
    host_keys: dict[str, str] = field(default_factory=dict)  # node or switch -> its known_hosts line(s)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(self)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data, indent=2) + "\n")
        os.chmod(temporary, 0o600)
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path) -> LabState | None:
        if not path.exists():
            return None
        data = json.loads(path.read_text())
        data["switches"] = {name: RunningSwitch(**value) for name, value in data.get("switches", {}).items()}
        return cls(**data)
