"""The LLDP neighbour command of each switch OS, collected with the switch shows (switch_show.py)
so that the `cabling` check has its captures.

File stems are the `gpunet parse` tools the cabling check reads (validate/checks/cabling.py
LLDP_TOOLS; the layouts and their vendor sources are in validate/parsers/lldp_switch.py and
lldpctl.py). Collected in the `before` phase only: cabling does not move during the tests, and
the check reads that phase. SONiC: `show lldp table` (sonic-utilities scripts/lldpshow), which its
show shell runs without root; the lldpctl JSON inside the lldp container would need `docker exec`.
Cumulus Linux: lldpd's JSON; lldpctl reads lldpd's socket, which the default user reaches through
sudo (docs/cabling.md).
"""

from __future__ import annotations

from gpunet.validate.checks.cabling import PHASE

LLDP_COMMANDS: dict[str, dict[str, str]] = {
    "eos": {"eos-show-lldp-neighbors-detail-json": "show lldp neighbors detail | json"},
    "nxos": {"nxos-show-lldp-neighbors-detail-json": "show lldp neighbors detail | json"},
    "junos": {"junos-show-lldp-neighbors-json": "show lldp neighbors | display json"},
    "sonic": {"sonic-show-lldp-table": "show lldp table"},
    "cumulus": {"lldpctl-json": "sudo lldpctl -f json"},
}


def lldp_commands(platform: str, phase: str) -> dict[str, str]:
    """The LLDP command `platform` adds to the switch shows of `phase` (none outside PHASE)."""
    return LLDP_COMMANDS.get(platform, {}) if phase == PHASE else {}
