"""Buffer numbers the headroom formula needs, from the switch's hardware model, and the limits each
OS puts on rendered values.

Cell and buffer size come from the model table (gpunet.hardware); MAC/PHY delay and the small-packet
share are the SONiC dynamic-headroom design's conservative inputs. An operator overrides any of them
per switch with `gpunet_switch_buffer` (docs/switch-rendering.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpunet.hardware import SwitchModel
from gpunet.model.fabric import SwitchBuffer

MAC_PHY_DELAY_BYTES = 1024
SMALL_PACKET_PERCENT = 100


@dataclass(frozen=True)
class BufferParameters:
    cell_bytes: int
    mac_phy_delay_bytes: int
    small_packet_percent: int
    queue_buffer_bytes: int


@dataclass(frozen=True)
class PlatformLimits:
    max_mtu: int
    # PFC watchdog polling interval the OS uses when the watchdog is expressed in intervals.
    watchdog_interval_ms: int
    # EOS rejects a polling interval above half the smaller of timeout and recovery time.
    watchdog_interval_at_most_half: bool = False
    watchdog_interval_min_ms: int = 1


def buffer_parameters(model: SwitchModel, overrides: SwitchBuffer) -> BufferParameters:
    """The model's numbers with the switch's own overrides applied."""
    defaults = BufferParameters(
        cell_bytes=model.cell_bytes,
        mac_phy_delay_bytes=MAC_PHY_DELAY_BYTES,
        small_packet_percent=SMALL_PACKET_PERCENT,
        queue_buffer_bytes=model.buffer_bytes,
    )
    chosen = {key: value for key, value in overrides.__dict__.items() if value is not None}
    return replace(defaults, **chosen)
