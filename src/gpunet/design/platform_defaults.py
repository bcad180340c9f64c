"""Per-platform numbers the inventory cannot give, and the limits each OS puts on rendered values.

The buffer numbers are conservative assumptions an operator overrides per switch with
`gpunet_switch_buffer` (docs/switch-rendering.md); they are not measurements of a given model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpunet.model.fabric import SwitchBuffer


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


# 256-byte cells are typical of Broadcom and Cisco ASICs, 144 bytes of NVIDIA Spectrum-2/3.
_BROADCOM_LIKE = BufferParameters(
    cell_bytes=256, mac_phy_delay_bytes=1024, small_packet_percent=100, queue_buffer_bytes=16 * 1024 * 1024
)

BUFFER_DEFAULTS: dict[str, BufferParameters] = {
    "nxos": _BROADCOM_LIKE,
    "eos": _BROADCOM_LIKE,
    "cumulus": replace(_BROADCOM_LIKE, cell_bytes=144),
    "sonic": _BROADCOM_LIKE,
    "junos": _BROADCOM_LIKE,
}

PLATFORM_LIMITS: dict[str, PlatformLimits] = {
    "nxos": PlatformLimits(max_mtu=9216, watchdog_interval_ms=100),
    # EOS interfaces stop at 9214; watchdog polling 0.005..30 s, at most half of timeout/recovery.
    "eos": PlatformLimits(
        max_mtu=9214,
        watchdog_interval_ms=100,
        watchdog_interval_at_most_half=True,
        watchdog_interval_min_ms=5,
    ),
    "cumulus": PlatformLimits(max_mtu=9216, watchdog_interval_ms=100),
    "sonic": PlatformLimits(max_mtu=9216, watchdog_interval_ms=200),  # SONiC PFC_WD POLL_INTERVAL default
    "junos": PlatformLimits(max_mtu=9216, watchdog_interval_ms=100),  # Junos pfc-watchdog poll-interval
}


def buffer_parameters(platform: str, overrides: SwitchBuffer) -> BufferParameters:
    """The platform defaults with the switch's own overrides applied."""
    chosen = {key: value for key, value in overrides.__dict__.items() if value is not None}
    return replace(BUFFER_DEFAULTS[platform], **chosen)
