"""gpunet.fabric.render: render every switch's intended configuration inside a playbook.

Same library calls as `gpunet render`: the play's hostvars -> Fabric -> rendered files under
intended/<fabric>/. `changed` only when a file was (or, in check mode, would be) written or
removed; with --diff each changed file is shown as a diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.plugins.action import ActionBase
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import require_gpunet

try:
    from gpunet.model.errors import InventoryInvalidError, Problem
    from gpunet.model.play_inventory import VaultPasswordMissing, play_raw_inventory_without_secrets
    from gpunet.project import intended_root
    from gpunet.render.intended import WriteReport
    from gpunet.render.manifest import RenderFolderError
    from gpunet.render.pipeline import render_inventory
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None

# The task's arguments, as DOCUMENTATION in plugins/modules/render.py documents them
# (tests/unit/package/test_action_arguments.py holds the two together).
ARGUMENTS = {
    "out_dir": {"type": "path", "required": False},
    "force": {"type": "bool", "required": False, "default": False},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_diff = True

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        require_gpunet(GPUNET_IMPORT_ERROR)
        result = super().run(tmp, task_vars)
        arguments = self.validate_argument_spec(argument_spec=ARGUMENTS)[1]
        task_vars = task_vars or {}
        sources = task_vars.get("ansible_inventory_sources") or []
        try:
            # Without a vault password the play cannot read an encrypted vars file, though the
            # render needs no secret: the inventory is then read as `gpunet render` reads it.
            raw = play_raw_inventory_without_secrets(task_vars, self._loader)
        except InventoryInvalidError as invalid:
            return self._invalid(result, invalid.problems)
        except VaultPasswordMissing as error:
            result.update(failed=True, changed=False, msg=str(error))
            return result
        try:
            # <project>/intended, found from the inventory as `gpunet render` does (gpunet.project)
            root = None if arguments["out_dir"] else intended_root(sources)
        except ValueError as error:
            result.update(failed=True, changed=False, msg=f"{error} (out_dir)")
            return result
        try:
            outcome = render_inventory(
                raw,
                lambda fabric_name: Path(arguments["out_dir"]) if root is None else root / fabric_name,
                check=bool(self._task.check_mode),
                force=arguments["force"],
                with_diffs=bool(self._task.diff),
            )
        except RenderFolderError as error:
            result.update(failed=True, changed=False, msg=str(error))
            return result
        report = outcome.report
        if report is None:
            return self._invalid(result, outcome.problems)
        result.update(_result(report, check=bool(self._task.check_mode)))
        if raw.skipped_files:
            result["skipped_vault_files"] = list(raw.skipped_files)  # no password given; not needed
        if self._task.diff and not report.up_to_date:
            result["diff"] = [
                {"before_header": f"a/{name}", "after_header": f"b/{name}", "prepared": report.diffs[name]}
                for name in report.missing + report.changed + report.extra
            ]
        return result

    @staticmethod
    def _invalid(result: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
        result.update(
            failed=True,
            changed=False,
            msg=f"inventory check found {len(problems)} problem(s); nothing rendered:\n"
            + "\n".join(str(problem) for problem in problems),
        )
        return result


def _result(report: WriteReport, *, check: bool) -> dict[str, Any]:
    changed = not report.up_to_date
    written = len(report.missing) + len(report.changed)
    would = "would be " if check else ""
    return {
        "changed": changed,
        "out_dir": str(report.out_dir),
        "created": report.missing,
        "updated": report.changed,
        "removed": report.extra,
        "unchanged": len(report.unchanged),
        "kept_edited": report.edited,
        "left_alone": report.foreign,
        "msg": f"{report.out_dir}: {written} file(s) {would}written, {len(report.extra)} {would}removed, "
        f"{len(report.unchanged)} unchanged"
        if changed
        else f"{report.out_dir}: up to date ({len(report.unchanged)} files)",
    }
