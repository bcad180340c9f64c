"""gpunet.fabric.render: render every switch's intended configuration inside a playbook.

Same library calls as `gpunet render`: the play's hostvars -> Fabric -> rendered files under
intended/<fabric>/. `changed` only when a file was (or, in check mode, would be) written or
removed; with --diff each changed file is shown as a diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.plugins.action import ActionBase

from gpunet.model.check import check_raw
from gpunet.model.play_inventory import play_raw_inventory
from gpunet.render import render_fabric, write_intended
from gpunet.render.intended import WriteReport

ARGUMENTS = {"out_dir": {"type": "path", "required": False}}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_diff = True

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        _, arguments = self.validate_argument_spec(argument_spec=ARGUMENTS)
        task_vars = task_vars or {}
        check = check_raw(play_raw_inventory(task_vars, self._loader))
        if not check.ok or check.fabric is None:
            result.update(
                failed=True,
                changed=False,
                msg=f"inventory check found {len(check.problems)} problem(s); nothing rendered:\n"
                + "\n".join(str(problem) for problem in check.problems),
            )
            return result
        fabric = check.fabric
        # Default: intended/<fabric> in the project root, the parent of the playbooks/ folder.
        default_out = Path(self._loader.get_basedir()).parent / "intended" / fabric.name
        out_dir = Path(arguments["out_dir"] or default_out)
        report = write_intended(render_fabric(fabric), out_dir, check=bool(self._task.check_mode))
        result.update(_result(report, check=bool(self._task.check_mode)))
        if self._task.diff and not report.up_to_date:
            result["diff"] = [
                {"before_header": f"a/{name}", "after_header": f"b/{name}", "prepared": report.diffs[name]}
                for name in report.missing + report.changed + report.extra
            ]
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
        "msg": f"{report.out_dir}: {written} file(s) {would}written, {len(report.extra)} {would}removed, "
        f"{len(report.unchanged)} unchanged"
        if changed
        else f"{report.out_dir}: up to date ({len(report.unchanged)} files)",
    }
