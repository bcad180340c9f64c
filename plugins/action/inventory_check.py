"""gpunet.fabric.inventory_check: run gpunet's inventory check inside a playbook (the preflight stage).

It reads the same hostvars the play sees, so its verdict matches `gpunet inventory check`.
"""

from __future__ import annotations

from typing import Any

import ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required  # noqa: F401 (clear error without gpunet)
from ansible.plugins.action import ActionBase

from gpunet.model.build import GPU_GROUP, SWITCH_GROUP, RawInventory, is_model_var
from gpunet.model.check import check_raw
from gpunet.model.plain import to_plain
from gpunet.model.role_vars import role_variables


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        groups = {name: list(members) for name, members in task_vars.get("groups", {}).items()}
        hostvars = task_vars.get("hostvars", {})
        known_role_vars = role_variables()
        wanted = dict.fromkeys(groups.get(GPU_GROUP, []) + groups.get(SWITCH_GROUP, []))
        own_vars = {}
        for name in wanted:
            host = hostvars[name]
            # Read only the model's keys: reading a hostvar templates it (and may decrypt vault).
            own_vars[name] = {key: host[key] for key in host if is_model_var(key, known_role_vars)}
        raw = RawInventory(groups=groups, hostvars=to_plain(own_vars), role_variables=known_role_vars)
        check = check_raw(raw)
        result["changed"] = False
        result["problems"] = [str(problem) for problem in check.problems]
        if not check.ok or check.fabric is None:
            result["failed"] = True
            result["msg"] = f"inventory check found {len(check.problems)} problem(s):\n" + "\n".join(
                result["problems"]
            )
            return result
        result["msg"] = check.fabric.summary()
        result["summary"] = check.as_dict()["summary"]
        return result
