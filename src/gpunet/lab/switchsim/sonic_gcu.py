"""SONiC's Generic Config Updater as the simulated SONiC applies it (LAB EQUIPMENT).

`config apply-patch` and `config rollback` both end in GCU's patch applier: it simulates the
patch, diffs old and target config with python-json-patch (the library sonic-utilities uses),
refuses illegal removals, runs each table's field-operation validators over that diff, and
refuses a result with an empty table. The rules are data (behaviour/sonic_gcu.yml, with their
sonic-utilities sources), never gpunet's push code.
"""

from __future__ import annotations

import copy
from functools import cache
from importlib import resources
from typing import Any

import jsonpatch
import jsonpointer
import yaml


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


def _allowed(table_rules: dict[str, Any], operation: dict[str, Any], asic: str) -> bool:
    scenarios = table_rules["scenarios"]
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
        if table_rules and not _allowed(table_rules, operation, asic):
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


def apply(config: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """The config after the patch, as GCU would leave it; GcuRefusal (nothing changed) otherwise."""
    try:
        target = jsonpatch.apply_patch(copy.deepcopy(config), operations)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as error:
        raise GcuRefusal(str(error)) from error
    check_transition(config, target)
    return target
