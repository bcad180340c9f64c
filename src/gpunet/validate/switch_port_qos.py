"""The running QoS of each switch port as the switch_pfc check's captures show it, per OS.

The link_qos check compares it with the host NIC at the other end of the cable. Only what the
collected show commands print per port is here: the PFC-enabled priorities on every OS, and the
trust mode where the OS prints it (Cumulus `nv show qos roce`, switch-wide). No collected command
prints a port's DSCP map, ETS or MTU; those are compared with the switch's rendered intent only.
The parsing is the parsers'; the port-name helpers are switch_pfc's (checks/switch.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpunet.validate.checks.switch import AFTER, eos_by_long_name, parse_priorities

# The captures read per OS, all of the `after` phase as switch_pfc reads them.
PFC_TOOLS: dict[str, tuple[str, ...]] = {
    "sonic": ("sonic-show-pfc-priority",),
    "nxos": ("nxos-show-interface-pfc",),
    "eos": ("eos-show-pfc",),
    "cumulus": ("cumulus-nv-show-qos-roce",),
    "junos": ("junos-show-cos-interface", "junos-show-cos-congestion-notification"),
}
PHASE = AFTER


@dataclass(frozen=True)
class PortQos:
    """One port's running QoS: `pfc` the PFC-enabled priorities (None: the capture does not say,
    `note` why), `trust` the trust mode where the OS prints it (None elsewhere)."""

    pfc: tuple[int, ...] | None
    note: str = ""
    trust: str | None = None


Reader = Callable[[str], dict[str, Any]]  # tool -> parsed capture (raises InputError)


def running_ports(platform: str, read: Reader) -> Callable[[str], PortQos]:
    """port name (as the inventory names it) -> its running QoS, from one switch's captures."""
    if platform == "sonic":
        table = read("sonic-show-pfc-priority")["interfaces"]
        return lambda port: _listed(table.get(port))
    if platform == "nxos":
        rows = read("nxos-show-interface-pfc")["interfaces"]
        return lambda port: _nxos(rows.get(port))
    if platform == "eos":
        status = read("eos-show-pfc")
        rows = eos_by_long_name(status)
        return lambda port: _eos(rows.get(port), status["global_enabled"])
    if platform == "cumulus":
        settings = read("cumulus-nv-show-qos-roce")["settings"]
        # Cumulus prints PFC and trust switch-wide: every port has them.
        found = PortQos(
            tuple(parse_priorities(settings.get("pfc.pfc-priority"))), trust=settings.get("trust.trust-mode")
        )
        return lambda port: found
    if platform == "junos":
        cos = read("junos-show-cos-interface")["interfaces"]
        profiles = read("junos-show-cos-congestion-notification")["profiles"]
        return lambda port: _junos(cos.get(port), profiles)
    return lambda port: PortQos(None, f"no PFC capture is collected from {platform} switches")


def _listed(priorities: list[int] | None) -> PortQos:
    return PortQos(None, "port not listed") if priorities is None else PortQos(tuple(priorities))


def _nxos(row: dict[str, Any] | None) -> PortQos:
    if row is None:
        return PortQos(None, "port not listed")
    # Oper Off: the port does not pause on any priority, whatever the bitmap says.
    return PortQos(tuple(row["priorities"]) if row["oper"] == "On" else ())


def _eos(row: dict[str, Any] | None, global_enabled: bool | None) -> PortQos:
    if global_enabled is False:
        return PortQos((), "Global PFC : Disabled")
    if row is None:
        return PortQos(None, "port not listed")
    return PortQos(tuple(row["priorities"]) if row["enabled"] else ())


def _junos(cos: dict[str, Any] | None, profiles: dict[str, Any]) -> PortQos:
    if cos is None:
        return PortQos(None, "port not in show class-of-service interface")
    if not cos["congestion_notification"]:
        return PortQos((), "no congestion-notification profile")
    name = cos["profile"]
    profile = profiles.get(name or "", {}).get("input")
    if name is not None and profile is None:
        return PortQos(None, f"input profile {name} not in show class-of-service congestion-notification")
    if profile is None or not profile["priorities"]:
        # A DSCP-based profile (or an unnamed one) prints no IEEE 802.1p table to read.
        return PortQos(None, f"profile {name or '(unnamed)'} prints no IEEE 802.1p PFC table")
    return PortQos(tuple(sorted(prio for prio, on in profile["priorities"].items() if on)))
