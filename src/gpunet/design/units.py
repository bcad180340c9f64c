"""Unit conversion per platform. Templates never compute: every number they print comes from here."""

from __future__ import annotations

import math

KB = 1024


def kb_to_bytes(kilobytes: int) -> int:
    return kilobytes * KB


def bytes_to_fill_percent(size_bytes: int, buffer_bytes: int) -> int:
    """A queue depth as a whole percent fill level of the buffer (Junos drop profiles), at least 1."""
    return max(1, min(100, round(size_bytes * 100 / buffer_bytes)))


def ms_to_seconds_text(milliseconds: int) -> str:
    """EOS takes watchdog times in seconds with decimals: 200 -> '0.2'."""
    text = f"{milliseconds / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def ms_to_intervals(milliseconds: int, interval_ms: int) -> int:
    """A duration as a whole number of polling intervals, rounded up, at least 1."""
    return max(1, math.ceil(milliseconds / interval_ms))


def dscp_bits(dscp: int) -> str:
    """Junos writes DSCP code points as six bits: 26 -> '011010'."""
    return format(dscp, "06b")


def priority_bits(priority: int) -> str:
    """Junos writes 802.1p code points as three bits: 3 -> '011'."""
    return format(priority, "03b")


# Port speed as each OS's interface `speed` command spells it.
_EOS_LANES = {50: "50g-2", 100: "100g-4", 200: "200g-4", 400: "400g-8", 800: "800g-8"}


def device_speed(platform: str, speed_gbps: int) -> str:
    if platform in ("nxos", "sonic"):
        return str(speed_gbps * 1000)  # Mb/s
    if platform == "eos":
        return _EOS_LANES.get(speed_gbps, f"{speed_gbps}g")
    if platform == "cumulus":
        return f"{speed_gbps}G"
    if platform == "junos":
        return f"{speed_gbps}g"
    raise ValueError(f"no speed spelling for platform {platform!r}")
