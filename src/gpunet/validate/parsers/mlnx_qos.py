"""`mlnx_qos -i <if>`: trust state, DSCP->priority map, PFC enable vector, TC->priority map.

A capture may hold several runs (e.g. a setup script's trace); the last one is the state the
NIC was left in, so it must be complete (a cut last run is an error, not an older run's state).

Per traffic class: the TSA, its ETS bandwidth share (`tsa: ets, bw: 50%`) and every priority
listed under it: newer mlnx_qos prints one `priority:` line per priority and only the classes
that hold one, older releases one line per class (both forms occur in public captures). Where
priorities are listed, every priority 0-7 belongs to exactly one class; fewer means the capture
was cut inside the list.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

_TRUST = re.compile(r"^Priority trust state:\s*(?P<trust>\S+)")
_DCBX = re.compile(r"^DCBX mode:\s*(?P<mode>.+)$")
_DSCP_MAP = re.compile(r"^prio:(?P<prio>\d+)\s+dscp:(?P<dscp>[\d,]+)")
_CABLE = re.compile(r"^Cable len:\s*(?P<length>\d+)")
_PFC_ENABLED = re.compile(r"^enabled:?\s+(?P<vector>[01](\s+[01]){7})\s*$")
_TC = re.compile(
    r"^tc:\s*(?P<tc>\d+)\s+ratelimit:\s*(?P<rate>[^,]+),\s*tsa:\s*(?P<tsa>[a-z]+)"
    r"(?:,\s*bw:\s*(?P<bw>\d+)%)?"
)
_TC_PRIORITIES = re.compile(r"^priority:\s*(?P<priorities>[\d\s]+)$")


def parse_mlnx_qos(text: str) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for number_, raw in enumerate(content_lines(text), 1):
        line = raw.strip()
        # Every pattern is anchored on a literal, so the prefix test first spares the
        # failing matches (seven per line, a third of the time over 32,768 captures).
        if line.startswith("DCBX mode:") and (match := _DCBX.match(line)):
            runs.append(_new_run(dcbx_mode=match["mode"].strip()))
        elif line.startswith("Priority trust state:") and (match := _TRUST.match(line)):
            if not runs or runs[-1]["trust"] is not None:
                runs.append(_new_run())
            runs[-1]["trust"] = match["trust"]
        elif not runs:
            continue
        elif line.startswith("prio:") and (match := _DSCP_MAP.match(line)):
            _read_dscp_line(runs[-1]["dscp_to_priority"], match, number_)
        elif line.startswith("Cable len:") and (match := _CABLE.match(line)):
            runs[-1]["cable_length_m"] = int(match["length"])
        elif line.startswith("enabled") and (match := _PFC_ENABLED.match(line)):
            runs[-1]["pfc_enabled"] = [int(bit) for bit in match["vector"].split()]
        elif line.startswith("tc:") and (match := _TC.match(line)):
            runs[-1]["tcs"].append(
                {
                    "tc": int(match["tc"]),
                    "ratelimit": match["rate"].strip(),
                    "tsa": match["tsa"],
                    "bw_percent": int(match["bw"]) if match["bw"] else None,
                    "priorities": [],
                }
            )
        elif line.startswith("priority:") and (match := _TC_PRIORITIES.match(line)) and runs[-1]["tcs"]:
            runs[-1]["tcs"][-1]["priorities"].extend(int(p) for p in match["priorities"].split())
    if not runs or all(run["trust"] is None or run["pfc_enabled"] is None for run in runs):
        raise ParseError("no 'Priority trust state' with a 'PFC configuration' table: not mlnx_qos output")
    run = runs[-1]
    if run["trust"] is None or run["pfc_enabled"] is None:
        raise ParseError("incomplete mlnx_qos capture: the last run has no trust state or PFC table")
    _refuse_cut_priority_list(run["tcs"])
    run["pfc_priorities"] = [prio for prio, bit in enumerate(run["pfc_enabled"]) if bit]
    # String keys, as the JSON that `gpunet parse` prints would have them anyway.
    run["dscp_to_priority"] = {str(dscp): prio for dscp, prio in sorted(run["dscp_to_priority"].items())}
    return run


def _refuse_cut_priority_list(tcs: list[dict[str, Any]]) -> None:
    listed = [prio for tc in tcs for prio in tc["priorities"]]
    if not listed:
        return  # a release (or an excerpt) that prints no priority lines: nothing to count
    if len(listed) != len(set(listed)):
        raise ParseError(f"a priority is listed under two traffic classes: {listed}")
    if sorted(listed) != list(range(8)):
        missing = sorted(set(range(8)) - set(listed))
        raise ParseError(f"incomplete mlnx_qos capture: priorities {missing} are under no traffic class")


# mlnx_qos prints each DSCP of a priority as two digits and a comma (`prio:3 dscp:31,30,...,24,`),
# at most eight a line, a priority's next eight on another `prio:N` line (as in public captures of
# MLNX_OFED and mlnx-tools mlnx_qos); each DSCP 0-63 maps to one priority (the DCB APP table
# holds one DSCP entry per code point).
_DSCP_LIST = re.compile(r"^(?:\d\d,)+$")


def _read_dscp_line(mapping: dict[int, int], match: re.Match[str], number_: int) -> None:
    """A `prio:N dscp:..` line into `mapping`; a list cut inside (`47,46,4`: DSCP 4 would be read
    as priority N), a DSCP above 63, or a DSCP given a second priority is an error naming the line."""
    if not _DSCP_LIST.match(match["dscp"]) or int(match["prio"]) > 7:
        raise ParseError(
            f"line {number_}: expected 'prio:<0-7> dscp:' and two-digit DSCPs each followed by a comma, "
            f"got 'prio:{match['prio']} dscp:{match['dscp']}' (a cut dscp2prio line)"
        )
    for dscp in (int(item) for item in match["dscp"].split(",") if item):
        if dscp > 63:
            raise ParseError(f"line {number_}: DSCP {dscp} is not a DSCP (0-63)")
        if dscp in mapping:
            raise ParseError(
                f"line {number_}: DSCP {dscp} mapped to priority {match['prio']} after priority "
                f"{mapping[dscp]} (a garbled or doubled dscp2prio table)"
            )
        mapping[dscp] = int(match["prio"])


def _new_run(dcbx_mode: str | None = None) -> dict[str, Any]:
    return {
        "dcbx_mode": dcbx_mode,
        "trust": None,
        "dscp_to_priority": {},
        "cable_length_m": None,
        "pfc_enabled": None,
        "tcs": [],
    }
