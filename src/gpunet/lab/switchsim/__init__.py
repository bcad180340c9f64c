"""gpunet's SSH switch simulator. LAB AND TEST EQUIPMENT: no real switch OS runs on gpunet's machines.

Each personality (nxos, eos, cumulus, sonic, junos) imitates what gpunet touches on that OS:
banner, prompts, exec/config modes, paging, `show running-config` or its equivalent, the OS's
commit model (with timer-driven rollback of an unconfirmed commit), checkpoints, the OS's error
text, and PFC/queue show commands. Configuration lines are accepted or rejected by gpunet's
grammar data (gpunet.grammar), never by the templates.

    with SimulatorFleet() as fleet:
        switch = fleet.start("eos", "spine01", options=SimOptions(password="pw"))
        ...  # connect with netmiko to 127.0.0.1:switch.port; read switch.state
"""

from __future__ import annotations

import importlib
from typing import Any

# Imported on first use (PEP 562): the server needs asyncssh, which only the `lab` extra installs,
# and `gpunet` imports this package's cli module on every run.
_EXPORTS = {
    "SimulatorFleet": "gpunet.lab.switchsim.server",
    "SwitchState": "gpunet.lab.switchsim.state",
    "SimOptions": "gpunet.lab.switchsim.switch",
    "SimulatedSwitch": "gpunet.lab.switchsim.switch",
}

__all__ = ["SimOptions", "SimulatedSwitch", "SimulatorFleet", "SwitchState"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
