"""The `pfcwd` command of the simulated SONiC (LAB EQUIPMENT).

Behaviour from sonic-utilities pfcwd/main.py at 691b1bbc (2026-07-23): `pfcwd start` writes
CONFIG_DB PFC_WD directly (ConfigDBConnector set_entry, not through GCU), one whole entry per
port whose PORT_QOS_MAP has `pfc_enable` (other ports are skipped with a warning), keeping the
port's `pfc_stat_history` or writing "disable"; an unknown port fails the command with exit 1;
detection time 100-5000 ms, restoration time 100-60000 ms (default twice the detection time).
`pfcwd stop` deletes the ports' entries. `pfcwd interval` sets GLOBAL POLL_INTERVAL (100-1000 ms)
and refuses one above a configured detection or restoration time. All three need root.
"""

from __future__ import annotations

import re
from typing import Any

USAGE = 'Usage: pfcwd [OPTIONS] COMMAND [ARGS]...\nTry "pfcwd -h" for help.\n\nError: '
START = re.compile(r"start((?: --\S+ \S+)*) ((?:\S+ )*)(\S+)")


def _ports(config: dict[str, Any]) -> list[str]:
    return sorted(p for p in config.get("PORT", {}) if p.startswith("Ethernet"))


def _int_in(value: str, low: int, high: int, name: str) -> int | str:
    if not value.isdigit() or not low <= int(value) <= high:
        return f"Error: Invalid value for '{name}': {value!r} is not in the range {low}<=x<={high}."
    return int(value)


def run(config: dict[str, Any], arguments: str, root: bool) -> tuple[dict[str, Any] | None, str]:
    """(the new config, or None when nothing changed; the command's output)."""
    if not root:
        return None, "Root privileges are required for this operation"
    if match := START.fullmatch(arguments):
        return _start(config, match[1], match[2].split(), match[3])
    words = arguments.split()
    if words and words[0] == "stop":
        table = {k: dict(v) for k, v in config.get("PFC_WD", {}).items()}
        for port in words[1:] or _ports(config):
            table.pop(port, None)
        return {**config, "PFC_WD": table}, ""
    if len(words) == 2 and words[0] == "interval":
        interval = _int_in(words[1], 100, 1000, "POLL_INTERVAL")
        if isinstance(interval, str):
            return None, interval
        entries = config.get("PFC_WD", {})
        times = [
            (int(fields[name]), name.replace("_", " "))
            for key, fields in entries.items()
            if "Ethernet" in key
            for name in ("detection_time", "restoration_time")
            if name in fields
        ]
        smallest = min(times, default=(1000, ""))
        if smallest[0] < interval:
            return None, (
                f"unable to use polling interval = {interval}ms, value is bigger than one of the "
                f"configured {smallest[1]} values, please choose a smaller polling_interval"
            )
        table = {k: dict(v) for k, v in entries.items()}
        table.setdefault("GLOBAL", {})["POLL_INTERVAL"] = str(interval)
        return {**config, "PFC_WD": table}, ""
    return None, USAGE + f'No such command "{words[0] if words else ""}".'


def _start(config: dict[str, Any], options: str, ports: list[str], detection: str) -> tuple[Any, str]:
    values = dict(zip(options.split()[::2], options.split()[1::2], strict=True))
    detection_time = _int_in(detection, 100, 5000, "DETECTION_TIME")
    if isinstance(detection_time, str):
        return None, detection_time
    entry: dict[str, str] = {"detection_time": str(detection_time)}
    output: list[str] = []
    for option, value in values.items():
        if option == "--action" and value in ("drop", "forward", "alert"):
            entry["action"] = value
        elif option == "--restoration-time":
            restoration = _int_in(value, 100, 60000, "--restoration-time")
            if isinstance(restoration, str):
                return None, restoration
            entry["restoration_time"] = str(restoration)
        else:
            return None, f"Error: Invalid value for '{option}': {value!r}"
    if "restoration_time" not in entry:
        entry["restoration_time"] = str(2 * detection_time)
        output.append(
            f"restoration time not defined; default to 2 times detection time: {2 * detection_time} ms"
        )
    known = _ports(config)
    invalid = sorted(set(ports) - set(known) - {"all"})
    if invalid:
        return None, "\n".join(["Failed to run command, invalid options:", *invalid])
    table = {k: dict(v) for k, v in config.get("PFC_WD", {}).items()}
    targets = known if not ports or "all" in ports else ports
    for port in targets:
        if "pfc_enable" not in config.get("PORT_QOS_MAP", {}).get(port, {}):
            output.append(f"SKIPPED: PFC is not enabled on port: {port}")
            continue
        history = table.get(port, {}).get("pfc_stat_history", "disable")
        table[port] = {**entry, "pfc_stat_history": history}
    return {**config, "PFC_WD": table}, "\n".join(output)
