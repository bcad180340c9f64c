"""Unit conversion. Templates never compute: every number they print comes from design/."""

from __future__ import annotations

import math

KB = 1024


def kb_to_bytes(kilobytes: int) -> int:
    return kilobytes * KB


def bytes_to_fill_percent(size_bytes: int, buffer_bytes: int) -> int:
    """A queue depth as a whole percent fill level of the buffer (Junos drop profiles), at least 1."""
    return max(1, min(100, round(size_bytes * 100 / buffer_bytes)))


def bytes_to_fill_decimal(size_bytes: int, buffer_bytes: int) -> str:
    """A queue depth as a decimal percent fill level (Junos OS Evolved: decimal64, 9 fraction digits),
    to six places: enough that 1 KB of a 165 MB buffer still shows; above 0, at most 100."""
    value = min(100.0, size_bytes * 100 / buffer_bytes)
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text if float(text) > 0 else "0.000001"


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
