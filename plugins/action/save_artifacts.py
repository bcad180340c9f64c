"""gpunet.fabric.save_artifacts: write text files into a controller folder in the controller's process.

Replaces a loop of ansible.builtin.copy delegated to localhost, which runs one local module (a
Python process and a temporary file) per artifact file: tens of files per host on every site.yml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

# The task's arguments, as DOCUMENTATION in plugins/modules/save_artifacts.py documents them
# (tests/unit/package/test_action_arguments.py holds the two together).
ARGUMENTS = {
    "dest_dir": {"type": "path", "required": True},
    "files": {"type": "dict", "required": True},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True  # artifacts are the run's records on the controller, not host state

    def run(self, tmp: str | None = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENTS)[1]
        folder = Path(str(args["dest_dir"])).expanduser()
        written = [str(write_if_different(folder, name, content)) for name, content in args["files"].items()]
        result.update(changed=False, files=written)
        return result


def write_if_different(folder: Path, name: str, content: Any) -> Path:
    if not name or not isinstance(content, str):
        raise AnsibleActionFail(f"save_artifacts: file {name!r} needs a name and a text content")
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise AnsibleActionFail(f"save_artifacts: {name!r} is outside {folder}")
    if not path.is_file() or path.read_text(encoding="utf-8", errors="replace") != content:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return path
