"""Dynamic port breakout and `config qos reload --ports` of the simulated SONiC (LAB EQUIPMENT).

`config interface breakout <cage> '<mode>' [-y] [-f] [-l] [-v]` as sonic-utilities 691b1bbc runs
it (config/main.py `breakout`, config/config_mgmt.py ConfigMgmtDPB): the cage must be in
BREAKOUT_CFG, a parent port of platform.json and in PORT, the mode a key of that cage's
breakout_modes (exact text); the ports of the current mode are deleted with what refers to them
(-f; without it the command lists them and stops), the ports of the new mode added with
BreakoutCfg's fields only (alias, lanes, speed, index, subport, fec), and BREAKOUT_CFG|<cage>
set. The messages are the vendor's; where SONiC prints a dependency as its YANG xpath the
simulator prints the config_db key (assumed form). The rules are data (behaviour/sonic_dpb.yml).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

from gpunet.lab.switchsim.factory import sonic_platform_interfaces, sonic_qos_per_port

# portconfig.py BRKOUT_PATTERN (sonic-buildimage 086b03bd src/sonic-config-engine/portconfig.py)
BRKOUT_PATTERN = re.compile(r"(\d{1,6})x(\d{1,6}G?)(\[(\d{1,6}G?,?)*\])?(\((\d{1,6})\))?")
ABORTED = "Aborted!"  # click's main on click.Abort
BREAKOUT_USAGE = (
    "Usage: config interface breakout [OPTIONS] <interface_name> MODE\n"
    'Try "config interface breakout -h" for help.\n\n'
)
FLAGS = {
    "-f": "force",
    "--force-remove-dependencies": "force",
    "-l": "predefined",
    "--load-predefined-config": "predefined",
    "-y": "yes",
    "--yes": "yes",
    "-v": "verbose",
    "--verbose": "verbose",
}


@cache
def _rules() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("behaviour", "sonic_dpb.yml").read_text()
    return yaml.safe_load(text)


def _hwsku(config: dict[str, Any]) -> str:
    return str(config.get("DEVICE_METADATA", {}).get("localhost", {}).get("hwsku", ""))


def _speed(text: str) -> int:
    return int(text[:-1]) * 1000 if text.endswith("G") else int(text)


def _entries(mode: str, lane_count: int) -> list[tuple[int, int, frozenset[int], int]]:
    """BreakoutCfg._str_to_entries: per `+` group (ports, default speed, speeds, assigned lanes)."""
    entries = []
    for group in mode.split("+"):
        match = BRKOUT_PATTERN.match(group)
        if match is None:
            raise RuntimeError(f'Breakout mode "{mode}" validation failed!')
        default = _speed(match[2])
        listed = (match[3] or "[]")[1:-1].split(",")
        speeds = frozenset({default, *(_speed(s.strip()) for s in listed if s.strip())})
        entries.append((int(match[1]), default, speeds, int(match[6]) if match[6] else lane_count))
    return entries


def child_ports(cage: str, mode: str, properties: dict[str, Any]) -> dict[str, dict[str, str]]:
    """get_child_ports -> BreakoutCfg(cage, mode, platform.json's entry).get_config(): the mode is
    matched to a listed one by port count, speeds and lanes (BreakoutModeEntry.__eq__), lanes are
    split evenly within each group, a child is named Ethernet<cage number + its lane offset>."""
    lanes, indexes = properties["lanes"].split(","), properties["index"].split(",")
    wanted = _entries(mode, len(lanes))
    shape = [(count, speeds, assigned) for count, _, speeds, assigned in wanted]
    aliases = next(
        (
            names
            for listed, names in properties["breakout_modes"].items()
            if [(c, s, a) for c, _, s, a in _entries(listed, len(lanes))] == shape
        ),
        None,
    )
    if aliases is None:
        raise RuntimeError(f"Unsupported breakout mode {mode}!")
    if sum(assigned for *_, assigned in wanted) > len(lanes):
        raise RuntimeError("Assigned lines count is more that available!")
    total = sum(count for count, *_ in wanted)
    base, lane_id, alias_id = int(cage.replace("Ethernet", "")), 0, 0
    ports: dict[str, dict[str, str]] = {}
    for count, default, _, assigned in wanted:
        per_port = assigned // count
        for _ in range(count):
            port = {
                "alias": aliases[alias_id],
                "lanes": ",".join(lanes[lane_id : lane_id + per_port]),
                "speed": str(default),
                "index": indexes[lane_id],
                "subport": "0" if total == 1 else str(alias_id + 1),
            }
            if default // per_port >= 50000:  # portconfig: FEC rs from 50G per lane
                port["fec"] = "rs"
            ports[f"Ethernet{base + lane_id}"] = port
            lane_id += per_port
            alias_id += 1
    return ports


def references(config: dict[str, Any], port: str) -> list[tuple[str, str]]:
    """(table, key) of every entry that refers to `port` through a YANG leafref to PORT."""
    found = []
    for table, rule in _rules()["port_references"].items():
        for key, fields in config.get(table, {}).items():
            form = rule["form"]
            if (
                (form == "key" and key == port)
                or (form == "prefix" and key.startswith(f"{port}|"))
                or (form == "field" and port in fields)
            ):
                found.append((table, key))
    return found


def _without(config: dict[str, Any], ports: list[str]) -> dict[str, Any]:
    """The config with `ports` and what refers to them deleted (-f, _deletePorts)."""
    result = {
        table: {key: dict(fields) for key, fields in entries.items()} for table, entries in config.items()
    }
    for port in ports:
        for table, key in references(result, port):
            if _rules()["port_references"][table]["form"] == "field":
                result[table][key].pop(port)
            else:
                result[table].pop(key)
        result["PORT"].pop(port, None)
    # Redis keeps no empty entry or table
    for table in list(result):
        result[table] = {key: fields for key, fields in result[table].items() if fields}
        if not result[table]:
            del result[table]
    return result


@dataclass
class Breakout:
    """One run of the command: its output so far, and the config it leaves (None: unchanged).

    `ask`: set when the command waits for an answer to a confirmation prompt; calling it with the
    answer (None: end of input) finishes the run."""

    output: list[str] = field(default_factory=list)
    config: dict[str, Any] | None = None
    ask: Callable[[str | None], None] | None = None
    prompt: str = ""

    def text(self) -> str:
        return "\n".join(self.output)


def _usage(message: str) -> Breakout:
    return Breakout([f"{BREAKOUT_USAGE}Error: {message}"])


def breakout(config: dict[str, Any], arguments: str, *, stdin_closed: bool) -> Breakout:
    """`config interface breakout ARGUMENTS` on `config` (root already checked)."""
    try:
        words = shlex.split(arguments)
    except ValueError as error:
        return Breakout([f"-bash: {error}"])
    options = {FLAGS[w] for w in words if w in FLAGS}
    unknown = [w for w in words if w.startswith("-") and w not in FLAGS]
    if unknown:
        return _usage(f"No such option: {unknown[0]}")
    positional = [w for w in words if not w.startswith("-")]
    if not positional:
        return _usage("Missing argument '<interface_name>'.")
    if len(positional) < 2:
        return _usage("Missing argument 'MODE'.")
    if len(positional) > 2:
        return _usage(f"Got unexpected extra argument ({positional[2]})")
    cage, mode = positional
    run = Breakout()
    if "yes" not in options:
        # -y's prompt (callback _abort_if_false): the simulator takes no answer but end of input
        run.output += ["Do you want to Breakout the port, continue? [y/N]: ", ABORTED]
        return run
    interfaces = sonic_platform_interfaces(_hwsku(config))
    if interfaces is None:
        return Breakout(["[ERROR] Breakout feature is not available without platform.json file", ABORTED])
    modes = config.get("BREAKOUT_CFG", {})
    if not modes:
        return Breakout(["[ERROR] BREAKOUT_CFG table is NOT present in CONFIG DB", ABORTED])
    if cage not in modes:
        return Breakout(
            [f"[ERROR] {cage} interface is NOT present in BREAKOUT_CFG table of CONFIG DB", ABORTED]
        )
    current = modes[cage].get("brkout_mode", "")
    # _validate_interface_mode: a parent port of platform.json, the mode one of its keys verbatim
    if cage not in interfaces:
        message = f"[ERROR] {cage} is not a Parent port. So, Breakout Mode is not available on this port"
        return Breakout([message, ABORTED])
    if mode not in interfaces[cage]["breakout_modes"]:
        return Breakout([f"[ERROR] Target mode {mode} is not available for the port {cage}", ABORTED])
    ports = config.get("PORT", {})
    if not ports:
        return Breakout(["port_dict is None!", ABORTED])
    if cage not in ports:
        return Breakout([f"[ERROR] {cage} is not in port_dict", ABORTED])
    run.output.append(f"\nRunning Breakout Mode : {current} \nTarget Breakout Mode : {mode}")
    if current == mode:
        run.output.append("[WARNING] No action will be taken as current and desired Breakout Mode are same.")
        return run
    try:
        deleted = child_ports(cage, current, interfaces[cage])
        added = child_ports(cage, mode, interfaces[cage])
    except RuntimeError as error:  # uncaught in `breakout`: click prints the traceback
        run.output += ["Traceback (most recent call last):", f"RuntimeError: {error}"]
        return run
    run.output.append(
        "\nPorts to be deleted : \n {}".format(
            json.dumps({p: f["speed"] for p, f in deleted.items()}, indent=4)
        )
    )
    run.output.append(
        "Ports to be added : \n {}".format(json.dumps({p: f["speed"] for p, f in added.items()}, indent=4))
    )
    for port in deleted:  # interface_name_is_valid
        if port not in ports:
            run.output += [f"[ERROR] Interface name {port} is invalid", ABORTED]
            return run
    rules = _rules()
    extra = sorted(table for table in config if table not in rules["yang_tables"])

    def finish(answer: str | None) -> None:
        run.ask = None
        if extra and (answer or "").strip().lower() not in ("y", "yes"):
            # click.confirm(abort=True) raises Abort, caught by `breakout`'s except Exception
            run.output.append(
                "Failed to break out Port. Error: Failed in breakout_warnUser_extraTables. Error: "
            )
            return
        _break_out(config, run, cage, mode, list(deleted), added, options)

    if extra:
        # breakout_warnUser_extraTables: tables without YANG, whatever -y said
        relevant = {t: e for t in extra if (e := {k: v for k, v in config[t].items() if _names(k, deleted)})}
        run.output.append(
            "Below Config can not be verified, It may cause harm to the system\n "
            + json.dumps(relevant, indent=2)
        )
        run.prompt = "Do you wish to Continue? [y/N]: "
        if stdin_closed:
            run.output.append(run.prompt)
            finish(None)
        else:
            run.ask = finish
        return run
    finish(None)
    return run


def _names(key: str, ports: dict[str, Any]) -> bool:
    """configWithKeys' key pattern (`^<port>\\|`, `<port>$`, `^<port>$`)."""
    return any(re.search(rf"^{p}\||{p}$|^{p}$", key) for p in ports)


def _break_out(
    config: dict[str, Any],
    run: Breakout,
    cage: str,
    mode: str,
    deleted: list[str],
    added: dict[str, dict[str, str]],
    options: set[str],
) -> None:
    """ConfigMgmtDPB.breakOutPort and the BREAKOUT_CFG write after it."""
    dependencies = [ref for port in deleted for ref in references(config, port)]
    if dependencies and "force" not in options:
        run.output += ["Dependencies Exist. No further action will be taken", "*** Printing dependencies ***"]
        run.output += [f"{table}|{key}" for table, key in dependencies]
        return
    if "predefined" in options:
        # _getDefaultConfig reads a file hardware images do not ship: _addPorts fails, nothing written
        missing = _rules()["predefined_config_file"]
        run.output += [
            f"getDefaultConfig Failed, Error: [Errno 2] No such file or directory: '{missing}'",
            f"[Errno 2] No such file or directory: '{missing}'",
            "Port Addition Failed",
            "[ERROR] Port breakout Failed!!! Opting Out",
            "Failed to break out Port. Error: ",
        ]
        return
    result = _without(config, deleted)
    result.setdefault("PORT", {}).update({port: dict(fields) for port, fields in added.items()})
    result["BREAKOUT_CFG"][cage] = {"brkout_mode": mode}
    run.config = result
    run.output += [
        "Breakout process got successfully completed.",
        "Please note loaded setting will be lost after system reboot. "
        "To preserve setting, run `config save`.",
    ]


def qos_reload_ports(config: dict[str, Any], ports_text: str) -> tuple[dict[str, Any], str]:
    """`config qos reload --ports P1,P2` (_qos_update_ports): the ports' entries of the per-port
    tables removed, then the SKU's templates' entries written for those of them PORT holds, and
    CABLE_LENGTH merged. The templates are the SKU's per-port entries (factory qos_per_port)."""
    wanted = set(ports_text.split(","))
    tables = _rules()["qos_reload_tables"]
    result = {
        table: {key: dict(fields) for key, fields in entries.items()} for table, entries in config.items()
    }
    for table in tables:
        for key in list(result.get(table, {})):
            if key.split("|")[0] in wanted:
                del result[table][key]
    handled = wanted & set(result.get("PORT", {}))
    template = sonic_qos_per_port(_hwsku(config))
    for port in sorted(handled):
        for table, entries in template.items():
            if table == "CABLE_LENGTH":
                for name, length in entries.items():
                    result.setdefault(table, {}).setdefault(name, {})[port] = length
                continue
            for key, fields in entries.items():
                result.setdefault(table, {})[key.replace("<port>", port)] = dict(fields)
    result = {table: entries for table, entries in result.items() if entries}
    missing = wanted - handled
    output = f"The port(s) {missing} are not updated because they do not exist" if missing else ""
    return result, output
