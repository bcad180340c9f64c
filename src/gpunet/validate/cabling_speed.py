"""`wrong_speed`: a planned host link up, but at another rate than the plan's.

Both ends of a cable run at the one negotiated rate, so the host NIC's rate (ibstat `Rate:`,
already collected for nic_port_state) is the link's. The plan's rate is the lower of the NIC's
`speed_gbps` and its leaf port's. The switch side's own speed is not collected (no captured show
command prints a port's operational speed, and lldpd names MAU types only up to 100G:
`operational_mau_type_values` in src/lib/atoms/port.c at lldpd/lldpd da2ab0b, printed only with
`show neighbors details`), so switch-to-switch links are not judged for speed.

Pure: the manifest and each host's parsed ibstat in, findings out (checks/cabling.py reads them).
A port that is not Active/LinkUp is the LLDP judgement's (a missing link), not a speed finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpunet.validate.manifest import Manifest

WRONG_SPEED = "wrong_speed"


@dataclass(frozen=True)
class SpeedFinding:
    host: str
    nic: str
    netdev: str
    switch: str
    port: str
    planned_gbps: int
    rate_gbps: float

    @property
    def target(self) -> str:
        return f"{self.host}:{self.nic}<->{self.switch}:{self.port}"

    def message(self) -> str:
        return (
            f"{WRONG_SPEED}: {self.host} {self.nic} ({self.netdev}) <-> {self.switch} {self.port} is up at "
            f"{self.rate_gbps:g} Gb/s (ibstat on {self.host}), the plan {self.planned_gbps} Gb/s"
        )

    def fix(self) -> str:
        return (
            f"fix: check that the cable or optic between {self.host} {self.nic} and {self.switch} "
            f"{self.port} is rated for {self.planned_gbps} Gb/s and that {self.switch} {self.port} is set "
            f"to {self.planned_gbps} Gb/s (speed, FEC, breakout); the switch side's speed is not collected"
        )


def speed_findings(manifest: Manifest, ibstat: dict[str, dict[str, Any] | None]) -> list[SpeedFinding]:
    """Each host NIC of the plan that is up at another rate than its link's plan. `ibstat`: host
    -> its parsed ibstat, or None where it was not collected (its links' speed is not judged)."""
    found = []
    for host in manifest.hosts.values():
        parsed = ibstat.get(host.name)
        if parsed is None:
            continue
        for nic in host.nics:
            port = _port(parsed, nic.name)
            if port is None or port.get("state") != "Active" or port.get("physical_state") != "LinkUp":
                continue
            rate = port.get("rate_gbps")
            switch = manifest.switches.get(nic.switch)
            leaf_port = switch.port(nic.switch_port) if switch is not None else None
            planned = min(nic.speed_gbps, leaf_port.speed_gbps) if leaf_port is not None else nic.speed_gbps
            if isinstance(rate, int | float) and rate != planned:
                found.append(
                    SpeedFinding(host.name, nic.name, nic.netdev, nic.switch, nic.switch_port, planned, rate)
                )
    return found


def _port(parsed: dict[str, Any], nic: str) -> dict[str, Any] | None:
    device = next((d for d in parsed.get("devices", []) if d.get("name") == nic), None)
    return device["ports"][0] if device and device.get("ports") else None
