"""gpunet.fabric.verify_switch_show: save a switch's PFC/ECN/queue show outputs into the artifacts folder.

Runs on the controller (netmiko), like the push; reads the switch's connection vars from the play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.plugins.action import ActionBase
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import require_gpunet

try:
    from gpunet.collect.switch_show import collect_switch_show, record_collection_error
    from gpunet.model.fabric import Switch
    from gpunet.netdev.errors import PushError
    from gpunet.netdev.logins import LOGIN_VARS, connection_from_vars
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None

PHASES = ("before", "after", "incast-before", "incast-after")
# The task's arguments, as DOCUMENTATION in plugins/modules/verify_switch_show.py documents them
# (tests/unit/package/test_action_arguments.py holds the two together).
ARGUMENTS = {
    "phase": {"type": "str", "required": True, "choices": list(PHASES)},
    "artifacts_dir": {"type": "path", "required": True},
    "known_hosts": {"type": "path", "required": False},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True  # read-only on the switch; writes only the controller's artifacts

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        require_gpunet(GPUNET_IMPORT_ERROR)
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=ARGUMENTS)[1]
        phase = str(args["phase"])
        artifacts = Path(str(args["artifacts_dir"]))
        known_hosts = args.get("known_hosts")
        switch = Switch(
            name=task_vars["inventory_hostname"],
            platform=str(task_vars.get("gpunet_platform", "")),
            role=str(task_vars.get("gpunet_role", "")),
            mgmt_address=str(task_vars.get("ansible_host", task_vars["inventory_hostname"])),
            mgmt_port=int(task_vars.get("ansible_port", 22)),
            ports=(),
            mgmt_user=str(task_vars.get("ansible_user", "")),
            asics=int(task_vars.get("gpunet_switch_asics", 1)),
        )
        try:
            # The same login variables as the push, templated (a vaulted "{{ vault_... }}" password).
            login = connection_from_vars(
                {key: task_vars[key] for key in LOGIN_VARS if key in task_vars},
                known_hosts=Path(str(known_hosts)).expanduser() if known_hosts else None,
                timeout_s=15.0,
                template=self._templar.template,
            )
        except ValueError as error:
            return {**result, "failed": True, "msg": f"{switch.name}.{error}"}
        try:
            written = collect_switch_show(switch, login, phase, artifacts)
        except PushError as error:
            # Collection goes on: the missing files become "error" results naming this reason.
            record_collection_error(artifacts, switch.name, phase, str(error))
            return {**result, "failed": True, "msg": str(error)}
        # Artifacts are the run's output, not a change to the switch.
        return {**result, "changed": False, "files": written, "msg": f"{len(written)} show outputs saved"}
