"""gpunet.fabric.switch_config: push one switch's reviewed config (intended/<fabric>/<switch>.cfg) safely.

Runs on the controller and calls gpunet.netdev.push; the switch's connection variables come from
the play (ansible_host, ansible_port, ansible_user, ansible_password, and the SSH key, agent and
jump host variables of gpunet.netdev.logins). Secrets are read from hostvars, never taken as task
arguments, so they cannot reach the task's logged arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.plugins.action import ActionBase
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import require_gpunet

try:
    from gpunet.model.fabric import Switch
    from gpunet.netdev.errors import PushError
    from gpunet.netdev.logins import LOGIN_VARS, connection_from_vars
    from gpunet.netdev.push import push_switch
    from gpunet.netdev.strategies import PushOptions
    from gpunet.platforms import UnknownPlatformError, get_platform
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None

# The task's arguments, as DOCUMENTATION in plugins/modules/switch_config.py documents them
# (tests/unit/package/test_action_arguments.py holds the two together).
ARGUMENTS = {
    "src": {"type": "path", "required": True},
    "backup_dir": {"type": "path", "required": True},
    "known_hosts": {"type": "path", "required": False},
    "confirm_timeout_s": {"type": "int", "required": False, "default": 300},
    "command_timeout_s": {"type": "float", "required": False, "default": 60.0},
    "connect_timeout_s": {"type": "float", "required": False, "default": 15.0},
}
TIMEOUTS = ("confirm_timeout_s", "command_timeout_s", "connect_timeout_s")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        require_gpunet(GPUNET_IMPORT_ERROR)
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=ARGUMENTS)[1]
        name = str(task_vars["inventory_hostname"])
        problem = self._check_timeouts(args)
        if problem:
            return {**result, "failed": True, "msg": f"{name}: {problem}"}
        source = Path(str(args["src"]))
        if not source.is_file():
            return {
                **result,
                "failed": True,
                "msg": f"{name}: no reviewed config at {source} (run `gpunet render` first)",
            }

        def var(key: str, default: Any = None) -> Any:
            return self._templar.template(task_vars.get(key, default))

        platform = str(var("gpunet_platform", ""))
        try:
            get_platform(platform)
        except UnknownPlatformError as error:
            return {**result, "failed": True, "msg": f"{name}.gpunet_platform: {error}"}
        switch = Switch(
            name=name,
            platform=platform,
            role=str(var("gpunet_role", "")),
            model=str(var("gpunet_switch_model", "")),
            mgmt_address=str(var("ansible_host", name)),
            mgmt_port=int(var("ansible_port", 22)),
            ports=(),
            mgmt_user=str(var("ansible_user", "")),
        )
        known_hosts = args.get("known_hosts")
        try:
            connection = connection_from_vars(
                {key: task_vars[key] for key in LOGIN_VARS if key in task_vars},
                known_hosts=Path(str(known_hosts)).expanduser() if known_hosts else None,
                timeout_s=float(args["connect_timeout_s"]),
                template=self._templar.template,
            )
        except ValueError as error:
            return {**result, "failed": True, "msg": f"{name}.{error}"}
        options = PushOptions(
            confirm_timeout_s=int(args["confirm_timeout_s"]),
            command_timeout_s=float(args["command_timeout_s"]),
        )
        try:
            pushed = push_switch(
                switch,
                source.read_text(),
                connection,
                check_mode=bool(self._task.check_mode),
                backup_root=Path(str(args["backup_dir"])),
                options=options,
            )
        except PushError as error:
            return {**result, "failed": True, "msg": str(error), "config_state": error.config_state}
        result.update(
            changed=pushed.changed,
            msg=f"{name}: {pushed.message}",
            backup=str(pushed.backup) if pushed.backup else None,
            config_state="unchanged" if self._task.check_mode or not pushed.changed else "committed",
        )
        if self._task.diff and pushed.diff:
            result["diff"] = {
                "prepared": f"--- {name} running\n+++ {name} intended ({source})\n{pushed.diff}\n"
            }
        return result

    @staticmethod
    def _check_timeouts(args: dict[str, Any]) -> str:
        for key in TIMEOUTS:
            if args[key] <= 0:
                return f"{key}: expected a positive number, got {args[key]!r}"
        return ""
