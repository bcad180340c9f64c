"""SONiC's Generic Config Updater as the simulated SONiC applies it (LAB EQUIPMENT).

`config apply-patch` and `config rollback` both end in GCU's patch applier: it simulates the
patch, diffs old and target config with python-json-patch (the library sonic-utilities uses),
refuses illegal removals, runs each table's field-operation validators over that diff (PORT
speed and FEC against the port's supported values), refuses a result with an empty table, and
then one whose PORT lanes are malformed or shared. The rules are data (behaviour/sonic_gcu.yml,
with their sonic-utilities sources), never gpunet's push code.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from importlib import resources
from typing import Any

import jsonpatch
import jsonpointer
import yaml

from gpunet.lab.switchsim.factory import sonic_supported_speeds


class GcuRefusal(ValueError):
    """What GCU prints when it refuses a patch; nothing was written."""


@cache
def _rules() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("behaviour", "sonic_gcu.yml").read_text()
    return yaml.safe_load(text)


def asic_name(config: dict[str, Any]) -> str:
    """get_asic_name: the ASIC family GCU's validator tables know this switch by, or "unknown"."""
    rules = _rules()
    metadata = config.get("DEVICE_METADATA", {}).get("localhost", {})
    hwsku = str(metadata.get("hwsku", "")).lower()
    asic_type = rules["asic_types"].get(metadata.get("platform"))
    families = rules["asics"].get(asic_type, {})
    for name, skus in families.items():
        listed = [sku.lower() for sku in skus]
        if hwsku in listed if asic_type == "mellanox" else any(sku in hwsku for sku in listed):
            return name
    return "unknown"


def _fields_of(operation: dict[str, Any], drop_ports: bool) -> list[str]:
    parts = jsonpointer.JsonPointer(operation["path"]).parts[1:]
    if drop_ports:
        parts = [part for part in parts if not any(char.isdigit() for char in part)]
    field = "/".join(parts).lower()
    value = operation.get("value")
    if isinstance(value, dict):
        return [f"{field}/{key}" if field else key for key in value]
    return [field]


def _rdma_allows(scenarios: dict[str, Any], operation: dict[str, Any], asic: str, exact: bool) -> bool:
    if asic == "unknown":
        return False
    for field in _fields_of(operation, drop_ports=exact):
        compared = field if exact else field.split("/")[-1]
        scenario = next((s for s in scenarios.values() if compared in s["fields"]), None)
        if scenario is None or not scenario["platforms"].get(asic):
            return False
        if operation["op"] not in scenario["operations"]:
            return False
    return True


def _state_db_speeds(config: dict[str, Any], port: str | None) -> list[int]:
    """STATE_DB PORT_TABLE|<port> supported_speeds as the simulated switch reports it: the speeds
    of the port's lane count on the cage holding its first lane, or none (an unknown port)."""
    lanes = str(config.get("PORT", {}).get(port or "", {}).get("lanes", "")).split(",")
    hwsku = str(config.get("DEVICE_METADATA", {}).get("localhost", {}).get("hwsku", ""))
    for cage in (sonic_supported_speeds(hwsku) or {}).values():
        if lanes[0].strip() in cage["lanes"].split(","):
            return cage["speeds"].get(str(len(lanes)), [])
    return []


def _port_field_ok(field: str, port: str | None, value: Any, config: dict[str, Any]) -> bool:
    """port_config_update_validator's _validate_field (a single-ASIC switch, not a chassis)."""
    if field == "fec":
        # no supported_fecs in the simulated STATE_DB: the validator's default list
        return str(value).strip() in _rules()["default_supported_fecs"]
    if field == "speed":
        supported = _state_db_speeds(config, port)
        try:
            return not supported or int(value) in supported
        except (TypeError, ValueError):
            return False
    return False


def _port_allows(operation: dict[str, Any], config: dict[str, Any]) -> bool:
    """port_config_update_validator, statement for statement (its `value` rebinding included)."""
    if operation["op"] == "remove":
        return True
    dumped = json.dumps(operation)
    path = operation["path"]
    value = operation.get("value")

    def port_in(text: str) -> str | None:
        match = re.search(r"Ethernet\d+", text)
        return match.group(0) if match else None

    for field in _rules()["port_fields"]:
        if field not in dumped:
            continue
        if path.endswith(field):
            if not _port_field_ok(field, port_in(path), value, config):
                return False
        elif isinstance(value, dict):
            if field in value:
                value = value[field]
                if not _port_field_ok(field, port_in(path), value, config):
                    return False
            else:
                for port_name, port_info in value.items():
                    if isinstance(port_info, dict) and field in port_info:
                        value = port_info[field]
                        if not _port_field_ok(field, port_name, value, config):
                            return False
    return True


def lanes_error(config: dict[str, Any]) -> str | None:
    """ConfigWrapper.validate_lanes: its error for the PORT table of `config`, or None."""
    port_lanes: dict[str, list[str]] = {}
    for port, attrs in config.get("PORT", {}).items():
        if "lanes" in attrs:
            lanes = [lane.strip() for lane in str(attrs["lanes"]).split(",")]
            for lane in lanes:
                if not lane:
                    return f"PORT '{port}' has an empty lane"
                if not lane.isdigit():
                    return f"PORT '{port}' has an invalid lane '{lane}'"
            port_lanes[port] = lanes
    platform = config.get("DEVICE_METADATA", {}).get("localhost", {}).get("platform")
    if platform not in _rules()["dup_lanes_platforms"]:
        existing: dict[str, str] = {}
        for port, lanes in port_lanes.items():
            for lane in lanes:
                if lane in existing:
                    return f"'{lane}' lane is used multiple times in PORT: {set([port, existing[lane]])}"
                existing[lane] = port
    return None


def _allowed(table_rules: dict[str, Any], operation: dict[str, Any], asic: str, old: dict[str, Any]) -> bool:
    scenarios = table_rules["scenarios"]
    if table_rules["validator"] == "port":
        return _port_allows(operation, old)
    if table_rules["validator"] == "buffer_profile":
        if len(jsonpointer.JsonPointer(operation["path"]).parts) == 2:
            return operation["op"] in ("add", "remove", "replace")
        return _rdma_allows(scenarios, operation, asic, exact=False)
    return _rdma_allows(scenarios, operation, asic, exact=True)


def check_transition(old: dict[str, Any], target: dict[str, Any]) -> None:
    """Raise GcuRefusal with GCU's message where GCU would refuse going from `old` to `target`."""
    rules = _rules()
    diff = list(jsonpatch.JsonPatch.from_diff(old, target))
    for operation in diff:
        if operation["op"] == "remove" and operation["path"] in rules["illegal_removals"]:
            message = "Given patch operation is invalid. Operation: remove is illegal on field: "
            raise GcuRefusal(message + operation["path"])
    asic = asic_name(old)
    for operation in diff:
        table = jsonpointer.JsonPointer(operation["path"]).parts[0]
        table_rules = rules["tables"].get(table)
        if table_rules and not _allowed(table_rules, operation, asic, old):
            function = f"generic_config_updater.field_operation_validators.{table_rules['validator']}"
            function += "_config_update_validator"
            raise GcuRefusal(
                f"Modification of {table} table is illegal- validating function {function} returned False"
            )
    empty = sorted(table for table, entries in target.items() if not entries)
    if empty:
        raise GcuRefusal(
            "localhost: given patch is not valid because it will result in empty tables which is not "
            f"allowed in ConfigDb. Table{'s' if len(empty) != 1 else ''}: {', '.join(empty)}"
        )
    if error := lanes_error(target):
        raise GcuRefusal(f"Given patch will produce invalid config. Error: {error}")


def ports_taken_down(old: dict[str, Any], target: dict[str, Any]) -> list[str]:
    """The ports GCU's patch sorter sets admin down while it goes from `old` to `target`
    (RequiredValueMoveExtender): a port admin up (neither "down" nor missing, which counts as
    the default "down") in `old` with an entry of a requiring table that differs in `target`."""
    rules = _rules()["required_admin_down"]
    taken = []
    for port, fields in old.get("PORT", {}).items():
        if fields.get("admin_status", rules["default_value"]) == "down":
            continue
        for table, pattern in rules["requiring"].items():
            before, after = old.get(table, {}), target.get(table, {})
            if pattern == "@":
                keys = {port} & (set(before) | set(after))
            else:
                prefix = pattern.replace("@", port)[:-1]
                keys = {key for key in (*before, *after) if key.startswith(prefix)}
            if any(before.get(key) != after.get(key) for key in keys):
                taken.append(port)
                break
    return taken


def apply(config: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """The config after the patch, as GCU would leave it; GcuRefusal (nothing changed) otherwise."""
    try:
        target = jsonpatch.apply_patch(copy.deepcopy(config), operations)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as error:
        raise GcuRefusal(str(error)) from error
    check_transition(config, target)
    return target
