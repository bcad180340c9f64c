"""What the push checks on an NX-OS switch before it changes anything: no system QoS object.

NX-OS holds its own class maps (c-out-8q-q*, c-8q-nq*, c-dflt-*) and policies (default-8q-out-
policy, default-8q-nq-policy) from boot; they are not in `show running-config`, so a removal
never names them, and they cannot be modified or deleted (osdata/nxos.yml `system_defined`, with
Cisco's guide). An intended/ that defines one (an edit on the switch) or a `no` of one is a
config the OS refuses line by line: the push refuses it whole, before its checkpoint.
"""

from __future__ import annotations

import re

from gpunet.netdev.errors import DeviceRejectedError
from gpunet.netdev.osdata import os_rules


def check_system_defined(switch_name: str, commands: list[str]) -> None:
    pattern = re.compile(os_rules("nxos").data["system_defined"])
    named = sorted({m["name"] for line in commands if (m := pattern.fullmatch(line.strip()))})
    if named:
        raise DeviceRejectedError(
            switch_name,
            f"intended/ edits or removes NX-OS system-defined QoS objects ({', '.join(named)}), which the "
            "OS does not allow; nothing was changed. Define a GPUNET- policy that references the system "
            "classes and attach it under `system qos` instead",
        )
