"""SONiC's PFC watchdog goes through the `pfcwd` CLI, never through `config apply-patch`.

Why: GCU runs field-operation validators over the diff of every patch and every rollback
(sonic-utilities generic_config_updater, gu_common.py validate_field_operation). For PFC_WD they
refuse any change on a HWSKU missing from the ASIC lists of gcu_field_operation_validators.conf.json
(Dell-Z9864f-O64 is not listed), refuse adding the whole table on every platform (a factory switch
has no PFC_WD: init_cfg.json.j2 default_pfcwd_status "disable"), and forbid removing
`/PFC_WD/GLOBAL`. One refused operation aborts the whole patch. `pfcwd start|stop|interval`
(sonic-utilities pfcwd/main.py) writes CONFIG_DB directly, on every platform.

So the push applies the JSON patch without PFC_WD, then starts/stops the watchdog per port; its
undo puts those ports back as the checkpoint holds them before `config rollback`, so the
rollback's diff never touches PFC_WD. The GLOBAL POLL_INTERVAL is set last, just before
`config save`, when nothing is left to undo: once created, GCU can never remove it (nor, on an
unlisted HWSKU, change it back), so no rollback may follow it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The fields gpunet renders per port (pfc_stat_history is the switch's: `pfcwd start` keeps it).
PORT_FIELDS = ("action", "detection_time", "restoration_time")


@dataclass
class PfcwdPlan:
    apply: list[str] = field(default_factory=list)  # after the patch
    undo: list[str] = field(default_factory=list)  # before the rollback: `apply` undone
    before_save: list[str] = field(default_factory=list)  # the interval, never undone

    @property
    def commands(self) -> list[str]:
        return [*self.apply, *self.before_save]


def _start(fields: dict[str, Any], ports: list[str]) -> str:
    options = ""
    if "action" in fields:
        options += f" --action {fields['action']}"
    if "restoration_time" in fields:
        options += f" --restoration-time {fields['restoration_time']}"
    return f"sudo pfcwd start{options} {' '.join(ports)} {fields['detection_time']}"


def _grouped(entries: dict[str, dict[str, Any]]) -> list[str]:
    """One `pfcwd start` per distinct setting, its ports in the order given."""
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = {}
    for port, fields in entries.items():
        groups.setdefault(tuple((f, fields[f]) for f in PORT_FIELDS if f in fields), []).append(port)
    return [_start(dict(setting), ports) for setting, ports in groups.items()]


def start_commands(entries: dict[str, dict[str, Any]]) -> list[str]:
    """`pfcwd start` that (re)creates these PFC_WD port entries."""
    return _grouped({port: fields for port, fields in entries.items() if port != "GLOBAL"})


def plan(running: dict[str, Any], owned: dict[str, Any], intended: dict[str, Any]) -> PfcwdPlan:
    """`running`/`intended`: the PFC_WD tables; `owned`: the entries of `running` gpunet owns."""
    result = PfcwdPlan()
    wanted_ports = {k: v for k, v in intended.items() if k != "GLOBAL"}
    starts = {
        port: fields
        for port, fields in wanted_ports.items()
        if {f: running.get(port, {}).get(f) for f in fields} != fields
    }
    stops = sorted(port for port in owned if port != "GLOBAL" and port not in wanted_ports)
    if stops:
        result.apply.append(f"sudo pfcwd stop {' '.join(stops)}")
    result.apply += _grouped(starts)
    interval = intended.get("GLOBAL", {}).get("POLL_INTERVAL")
    current = running.get("GLOBAL", {}).get("POLL_INTERVAL")
    if interval is not None and interval != current:
        result.before_save.append(f"sudo pfcwd interval {interval}")
    changed = [*stops, *starts]
    fresh = sorted(port for port in changed if port not in running)
    result.undo = [f"sudo pfcwd stop {' '.join(fresh)}"] if fresh else []
    result.undo += _grouped({port: running[port] for port in changed if port in running})
    return result
