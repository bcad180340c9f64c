"""gpunet.fabric.inventory_check: run gpunet's inventory check inside a playbook (the preflight stage).

It reads the same hostvars the play sees, so its verdict matches `gpunet inventory check`.
"""

from __future__ import annotations

from typing import Any

from ansible.plugins.action import ActionBase
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import require_gpunet

try:
    from gpunet.model.check import check_raw
    from gpunet.model.check_reuse import CheckReuse
    from gpunet.model.errors import InventoryInvalidError
    from gpunet.model.play_inventory import VaultPasswordMissing, play_raw_inventory_without_secrets
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None


# The task takes no arguments (plugins/modules/inventory_check.py documents none).
ARGUMENTS: dict[str, dict[str, object]] = {}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        require_gpunet(GPUNET_IMPORT_ERROR)
        result = super().run(tmp, task_vars)
        self.validate_argument_spec(argument_spec=ARGUMENTS)  # none: any argument is an error
        task_vars = task_vars or {}
        result["changed"] = False
        try:
            # Without a vault password, as `gpunet inventory check`: vault files unread (the model
            # reads no secret), unless the tags select a stage that reads them (then one line says so).
            raw = play_raw_inventory_without_secrets(task_vars, self._loader, gate=True)
        except VaultPasswordMissing as error:
            return {**result, "failed": True, "msg": str(error)}
        except InventoryInvalidError as invalid:
            problems = [str(problem) for problem in invalid.problems]
            return {**result, "failed": True, "problems": problems, "msg": _failed(problems)}
        if raw.skipped_files:
            result["skipped_vault_files"] = list(raw.skipped_files)  # no password given; not needed
        reuse = CheckReuse(raw)
        passed = reuse.passed()
        if passed is not None:  # this exact inventory passed before (check_reuse.py)
            result.update(problems=[], msg=passed.message, summary=passed.summary)
            return result
        check = check_raw(raw)
        reuse.record(check)
        result["problems"] = [str(problem) for problem in check.problems]
        if not check.ok or check.fabric is None:
            result["failed"] = True
            result["msg"] = _failed(result["problems"])
            return result
        result["msg"] = check.fabric.summary()
        result["summary"] = check.as_dict()["summary"]
        return result


def _failed(problems: list[str]) -> str:
    return f"inventory check found {len(problems)} problem(s):\n" + "\n".join(problems)
