"""Run the PFC/ECN/queue show commands on one switch and save their raw output as artifacts (the
collection layer: `validate/` only reads what is saved here).

Where the OS prints a command's counters as structured data, that form is asked for first
(STRUCTURED_COMMANDS) and the text command of SWITCH_COMMANDS is the fallback for releases
without it. The parsers read either form (they tell JSON by its first character), and
`capture-forms.json` beside the captures records which form each one is and why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpunet.collect.lldp import lldp_commands
from gpunet.collect.switch_commands import SWITCH_COMMANDS
from gpunet.model.fabric import Switch
from gpunet.netdev.errors import PushError
from gpunet.netdev.push import Connection, connector
from gpunet.validate import incast
from gpunet.validate.parsers.sonic import NAMESPACE_LINE, NAMESPACED_TOOLS, redis_py_dict


def collect_switch_show(switch: Switch, login: Connection, phase: str, artifacts: Path) -> list[str]:
    """Writes `switches/<switch>/<phase>/<tool>.txt` per command; returns the files written. Logs
    in as the push does (`login`: password, keys, agent, jump host, ssh_config, host keys).

    A switch that cannot be reached gets no files, so its checks report "error" with the reason
    that is raised here (LoginError/UnreachableError name the switch, never the password)."""
    commands = {
        **SWITCH_COMMANDS.get(switch.platform, {}),
        **phase_commands(switch.platform, phase),
        **lldp_commands(switch.platform, phase),
    }
    structured = STRUCTURED_COMMANDS.get(switch.platform, {})
    folder = artifacts / "switches" / switch.name / phase
    folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    if not commands:
        return written
    session = connector(switch, login)()
    forms: dict[str, dict[str, Any]] = {}
    namespaces = sonic_namespaces(switch)
    try:
        for tool, command in commands.items():
            if namespaces and tool in NAMESPACED_TOOLS:
                output, forms[tool] = _collect_namespaces(
                    session, tool, command, structured.get(tool), namespaces
                )
            else:
                output, forms[tool] = _collect_one(session, tool, command, structured.get(tool))
            path = folder / f"{tool}.txt"
            path.write_text(output if output.endswith("\n") else output + "\n")
            written.append(str(path))
        per_port = port_commands(switch.platform, phase)
        ports, why = path_ports(artifacts, switch.name) if per_port else ([], "")
        for tool, template in per_port.items():
            if not ports:
                forms[tool] = {"form": "not collected", "command": template, "why": why}
                continue
            output, forms[tool] = _collect_ports(session, template, ports)
            path = folder / f"{tool}.txt"
            path.write_text(output + "\n")
            written.append(str(path))
    finally:
        session.disconnect()
    (folder / FORMS_FILE).write_text(json.dumps(forms, indent=2) + "\n")
    return written


# The incast stage's phases (gpunet.validate.incast BEFORE/AFTER) and what they read besides
# SWITCH_COMMANDS: SONiC's per-queue ECN-marked counts and PFC watchdog storms, which only the
# incast checks judge (sonic-utilities at 691b1bb: scripts/wredstat behind `show queue
# wredcounters`, pfcwd/main.py `show pfcwd stats`). Sent without -n also to a multi-ASIC switch:
# there wredstat prints each namespace's per-port tables in turn (run_on_multi_asic, DISPLAY_ALL)
# and pfcwd one table of every front namespace's rows, each port once, so the parsers read them
# as on one ASIC (tests/unit/validate/test_incast_checks.py, the multi-ASIC cases).
INCAST_PHASES = (incast.BEFORE, incast.AFTER)
INCAST_COMMANDS: dict[str, dict[str, str]] = {
    "sonic": {
        "sonic-show-queue-wredcounters": "show queue wredcounters",
        "sonic-show-pfcwd-stats": "show pfcwd stats",
    },
}


def phase_commands(platform: str, phase: str) -> dict[str, str]:
    """The commands a phase adds to SWITCH_COMMANDS for `platform`."""
    return INCAST_COMMANDS.get(platform, {}) if phase in INCAST_PHASES else {}


# Commands that take one interface, sent for each port of the switch on the incast plan's paths
# (every path role: the checks read the receiver's leaf port for marks and every path port for
# pauses and drops); each tool's answers are saved as one JSON capture (_collect_ports). NVUE
# (NVIDIA's NVUE OpenAPI spec for Cumulus Linux 5.3.0, ../shared/vendor-schemas/nvue): the GET
# paths /interface/{interface-id}/qos/counters/pfc-stats (pause frames per switch priority),
# .../qos/counters/egress-queue-stats (drops per traffic class) and .../qos/roce/counters
# (tx-ecn-stats ecn-marked-packets of the port's RoCE traffic), each the words of its `nv show`
# command; `-o json` prints the path's JSON document (cumulus-linux-55 NVUE-CLI.md, "Output
# Options"). NVUE 5.3 has no PFC watchdog path (no `pfc-watchdog` in the spec): none is collected.
PORT_COMMANDS: dict[str, dict[str, str]] = {
    "cumulus": {
        "cumulus-nv-show-interface-pfc-stats": "nv show interface {port} qos counters pfc-stats -o json",
        "cumulus-nv-show-interface-egress-queue-stats": (
            "nv show interface {port} qos counters egress-queue-stats -o json"
        ),
        "cumulus-nv-show-interface-roce-counters": "nv show interface {port} qos roce counters -o json",
    },
}
# A port name as the plan holds it (from the inventory's cabling); anything else never reaches a
# command line.
_PORT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:/-]{0,63}$")


def port_commands(platform: str, phase: str) -> dict[str, str]:
    """The per-port command templates ({port}) a phase sends to a `platform` switch."""
    return PORT_COMMANDS.get(platform, {}) if phase in INCAST_PHASES else {}


def path_ports(artifacts: Path, switch: str) -> tuple[list[str], str]:
    """The ports of `switch` on the incast plan's paths (artifacts' incast/plan.json, which
    gpunet-validate writes before the stage), each once in plan order; ([], why) where there is
    no plan, it is unreadable, the switch is on no path, or a port name is not one."""
    path = artifacts / incast.PLAN_FILE
    try:
        plan = incast.plan_from_document(json.loads(path.read_text()))
    except FileNotFoundError:
        return [], f"no {incast.PLAN_FILE}: the ports on the incast's path are not known"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, incast.PlanError) as error:
        return [], f"{incast.PLAN_FILE} unreadable: {error}"
    ports = list(dict.fromkeys(p.port for rail in plan for p in rail.path if p.switch == switch))
    if not ports:
        return [], f"{switch} has no port on the incast plan's paths"
    if bad := [p for p in ports if not _PORT_NAME.match(p)]:
        return [], f"{incast.PLAN_FILE}: {bad[0][:60]!r} is not a port name: not sent"
    return ports, ""


def _collect_ports(session: Any, template: str, ports: list[str]) -> tuple[str, dict[str, Any]]:
    """One capture of a per-port command's answers ({"command", "ports": {port: document},
    "refused": {port: first line}}: a port whose answer is no JSON object is refused, never
    dropped) and its form record."""
    answers: dict[str, Any] = {}
    refused: dict[str, str] = {}
    for port in ports:
        output = session.send_command(template.format(port=port), read_timeout=30)
        document = _json_object(output)
        if document is None:
            refused[port] = _first_line(output)
        else:
            answers[port] = document
    record = {"form": "json", "command": template, "ports": ports} | ({"refused": refused} if refused else {})
    return port_capture(template, answers, refused), record


def port_capture(template: str, answers: dict[str, Any], refused: dict[str, str] | None = None) -> str:
    """The capture of a per-port command (gpunet.validate.parsers.cumulus_incast reads it)."""
    capture = {"command": template.replace("{port}", "<port>"), "ports": answers, "refused": refused or {}}
    return json.dumps(capture, indent=2)


@dataclass(frozen=True)
class RedisHashes:
    """A structured form read from a SONiC Redis database in several commands: HGETALL of a name
    map (`sonic-db-cli -j COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP`), then HGETALL of
    `<prefix><id>` for each id it maps to. The capture is one JSON object of each key read and
    the hash the switch answered for it, in the order read. An image whose sonic-db-cli refuses
    `-j` is asked without it, and its redis-py dict answers are saved as that same object."""

    database: str
    name_map: str
    prefix: str

    def command(self, key: str, as_json: bool = True, namespace: str | None = None) -> str:
        where = f"-n {namespace} " if namespace else ""
        return f"sonic-db-cli {where}{'-j ' if as_json else ''}{self.database} HGETALL {key}"

    def describe(self, as_json: bool = True, namespace: str | None = None) -> str:
        printed = "" if as_json else " (redis-py dict answers, saved as JSON)"
        first = self.command(self.name_map, as_json, namespace)
        return f"{first}, then HGETALL {self.prefix}<oid> per port{printed}"


# Structured forms, per platform and tool, with where and from which release the OS has them.
STRUCTURED_COMMANDS: dict[str, dict[str, str | RedisHashes]] = {
    # sonic-utilities show/main.py `show queue counters -j/--json` (queuestat -j), added by PR
    # #1505 (commit d5f5382, 2021-04): releases from 202106. `show pfc counters`, `show pfc
    # priority` and `show ecn` have no JSON option (show/main.py at 691b1bb). `show pfc counters`
    # runs pfcstat, which reads COUNTERS_DB (scripts/pfcstat at 691b1bb: COUNTERS_PORT_NAME_MAP,
    # then each port's `COUNTERS:<oid>` hash): gpunet reads the same keys with `sonic-db-cli -j`
    # (sonic-net/sonic-swss-common PR #1205, 85a39d8, 2026-07-22: HGETALL printed as a JSON
    # object; on master only: sonic-buildimage 202605 at 2026-08-20 pins swss-common 240a31a,
    # without it), else without `-j` (redis-py's dict form, as sonic-db-cli has printed it since
    # the Python one); `show pfc counters` where neither answers.
    "sonic": {
        "sonic-show-queue-counters": "show queue counters --json",
        "sonic-show-pfc-counters": RedisHashes("COUNTERS_DB", "COUNTERS_PORT_NAME_MAP", "COUNTERS:"),
    },
    # NVUE `nv show ... -o json` (`--output json`: CumulusNetworks/docs cumulus-linux-55
    # NVUE-CLI.md, "Output Options"), shaped by NVIDIA's NVUE OpenAPI spec (5.3.0 in
    # ../shared/vendor-schemas/nvue): Cumulus Linux 5.x.
    "cumulus": {"cumulus-nv-show-qos-roce": "nv show qos roce -o json"},
}
FORMS_FILE = "capture-forms.json"


def sonic_namespaces(switch: Switch) -> tuple[str, ...]:
    """The namespaces a multi-ASIC SONiC switch keeps its ports' state in, asic0..asic<N-1>
    (sonic-py-common multi_asic.py at 086b03b: ASIC_NAME_PREFIX `asic`, NUM_ASIC of asic.conf);
    () for one ASIC, whose commands are sent as they are (without -n)."""
    if switch.platform != "sonic" or switch.asics < 2:
        return ()
    return tuple(f"asic{index}" for index in range(switch.asics))


def _collect_namespaces(
    session: Any,
    tool: str,
    text_command: str,
    structured: str | RedisHashes | None,
    namespaces: tuple[str, ...],
) -> tuple[str, dict[str, Any]]:
    """A tool read once per namespace (`-n asic<k>`), the answers in one capture, each after its
    NAMESPACE_LINE; the form record of each namespace. Without -n a multi-ASIC switch answers
    from the host namespace (sonic-db-cli: an empty COUNTERS_DB) or prints every namespace's
    table in turn, `show ecn` without naming the namespace of a profile (sonic-utilities
    scripts/ecnconfig list() at 691b1bb)."""
    sections, records = [], {}
    for namespace in namespaces:
        output, records[namespace] = _collect_one(session, tool, text_command, structured, namespace)
        line = NAMESPACE_LINE.format(
            namespace=namespace, count=len(namespaces), command=records[namespace]["command"]
        )
        sections.append(f"{line}\n{output.rstrip(chr(10))}\n")
    kinds = {record["form"] for record in records.values()}
    return "".join(sections), {"form": kinds.pop() if len(kinds) == 1 else "mixed", "namespaces": records}


def _collect_one(
    session: Any,
    tool: str,
    text_command: str,
    structured: str | RedisHashes | None,
    namespace: str | None = None,
) -> tuple[str, dict[str, str]]:
    """The output of one tool and its form record: the structured command's where it answers
    with JSON, else the text command's (an older release refuses the option). With `namespace`,
    every command is sent for that namespace (`show ... -n asic0`, `sonic-db-cli -n asic0 ...`)."""
    if namespace is not None:
        text_command = f"{text_command} -n {namespace}"
        if isinstance(structured, str):
            structured = f"{structured} -n {namespace}"
    if structured is None:
        return session.send_command(text_command, read_timeout=30), {"form": "text", "command": text_command}
    if isinstance(structured, RedisHashes):
        output, refused, as_json = _read_hashes(session, structured, namespace)
        if output is not None:
            record = {"form": "json", "command": structured.describe(as_json, namespace)}
            return output, record | ({"structured_refused": refused} if refused else {})
    else:
        output = session.send_command(structured, read_timeout=30)
        if _is_json(output):
            return output, {"form": "json", "command": structured}
        refused = f"{structured}: {_first_line(output)}"
    form = {"form": "text", "command": text_command, "structured_refused": refused}
    return session.send_command(text_command, read_timeout=30), form


_EMPTY_MAP = "an empty map (a multi-ASIC host namespace: its ports are in each asicN namespace)"
# An object id as SONiC's COUNTERS_*_NAME_MAP holds it; anything else never reaches a command line.
_OID = re.compile(r"^oid:0x[0-9a-fA-F]+$")


def _read_hashes(
    session: Any, form: RedisHashes, namespace: str | None = None
) -> tuple[str | None, str, bool]:
    """The capture of a RedisHashes form (None where it was not read), what was refused on the
    way (`-j`, or why the form was not read), and whether it was read with `-j`. Where
    sonic-db-cli refuses `-j` (before swss-common PR #1205 it prints its usage) the same
    commands are sent without it. Not read: an empty map (a multi-ASIC switch's host namespace,
    whose ports sit in each ASIC's database), an id that is no object id, or an answer that is
    no whole hash (a cut one)."""
    as_json, refused = True, []
    command = form.command(form.name_map, namespace=namespace)
    answer = session.send_command(command, read_timeout=30)
    name_map = _json_object(answer)
    if name_map is None and "usage: sonic-db-cli" in answer:
        as_json = False
        refused.append(f"{command}: {_first_line(answer)}")
        command = form.command(form.name_map, as_json=False, namespace=namespace)
        answer = session.send_command(command, read_timeout=30)
        name_map = redis_py_dict(answer)
    if not name_map:
        # A multi-ASIC switch whose inventory gives no gpunet_switch_asics: the text form, which
        # pfcstat prints for every namespace (scripts/pfcstat at 691b1bb), is read instead.
        refused.append(f"{command}: {_first_line(answer) if name_map is None else _EMPTY_MAP}")
        return None, "; ".join(refused), as_json
    document: dict[str, Any] = {form.name_map: name_map}
    for name, oid in name_map.items():
        if not isinstance(oid, str) or not _OID.match(oid):
            refused.append(f"{command}: {name} maps to {str(oid)[:60]!r}, not an object id")
            return None, "; ".join(refused), as_json
        command = form.command(form.prefix + oid, as_json, namespace)
        answer = session.send_command(command, read_timeout=30)
        stats = _json_object(answer) if as_json else redis_py_dict(answer)
        if stats is None:
            refused.append(f"{command}: {_first_line(answer)}")
            return None, "; ".join(refused), as_json
        document[form.prefix + oid] = stats
    return json.dumps(document, indent=2), "; ".join(refused), as_json


def _json_object(output: str) -> dict[str, Any] | None:
    if not _is_json(output):
        return None
    value = json.loads(output)
    return value if isinstance(value, dict) else None


def _first_line(output: str) -> str:
    return next((line.strip() for line in output.splitlines() if line.strip()), "no output")[:200]


def _is_json(output: str) -> bool:
    if not output.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(output)
    except json.JSONDecodeError:
        return False  # a cut document is no answer: the text form is asked for
    return True


COLLECTION_ERROR = "collection-error.txt"


def record_collection_error(artifacts: Path, switch: str, phase: str, reason: str) -> None:
    """Keep why a switch's outputs are missing, so its checks can say it (never holds credentials:
    the reasons come from LoginError/UnreachableError)."""
    folder = artifacts / "switches" / switch / phase
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COLLECTION_ERROR).write_text(reason.rstrip("\n") + "\n")


__all__ = [
    "COLLECTION_ERROR",
    "FORMS_FILE",
    "INCAST_COMMANDS",
    "INCAST_PHASES",
    "PORT_COMMANDS",
    "STRUCTURED_COMMANDS",
    "PushError",
    "RedisHashes",
    "collect_switch_show",
    "path_ports",
    "phase_commands",
    "port_capture",
    "port_commands",
    "record_collection_error",
    "sonic_namespaces",
]
