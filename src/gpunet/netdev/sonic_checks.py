"""What the push checks on a SONiC switch before it changes anything.

The buffer model: intended/ is rendered for the buffer model the SKU's image ships
(hardware/models.yml `sonic_buffer_model`: dynamic lossless PGs carry profile NULL and buffermgrd
computes their headroom; traditional ones name static profiles). A switch running the other
model would take the PGs in a form its buffer manager does not read, so the push refuses.
The switch says which model it runs in DEVICE_METADATA|localhost `buffer_model`; an image that
writes none runs traditional (sonic-buildimage files/build_templates/init_cfg.json.j2).
"""

from __future__ import annotations

from typing import Any

from gpunet.design.platforms.sonic import buffer_model
from gpunet.hardware.catalog import get_model
from gpunet.model.fabric import Switch
from gpunet.netdev.errors import DeviceRejectedError

SWITCHING = (
    "`sudo config qos reload` (dynamic, Mellanox) or `sudo config qos reload --no-dynamic-buffer` "
    "(traditional), then restart swss, as sonic-utilities config/main.py `qos reload` says"
)


def check_buffer_model(switch: Switch, running: dict[str, Any]) -> None:
    try:
        expected = buffer_model(get_model(switch.model))
    except ValueError as error:
        raise DeviceRejectedError(
            switch.name, f"gpunet_switch_model: {error}; no buffer model to hold the switch to"
        ) from None
    metadata = running.get("DEVICE_METADATA", {}).get("localhost", {})
    actual = metadata.get("buffer_model", "traditional")
    if actual != expected:
        raise DeviceRejectedError(
            switch.name,
            f"the switch runs the {actual} buffer model (DEVICE_METADATA|localhost buffer_model) but "
            f"intended/ is rendered for {expected} ({switch.model}'s sonic_buffer_model in "
            f"hardware/models.yml); nothing was changed. Put the switch on the {expected} model with "
            f"{SWITCHING}, or correct gpunet_switch_model",
        )
