"""gpunet.fabric.run_commands and gpunet.fabric.save_artifacts: the one-call collection of verify_host.

They replace a command loop and a copy loop, so what they return and write must be what the loops
gave: the registered-loop shape the verify filters read, and the same artifact text.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from ansible.errors import AnsibleActionFail

from tests.conftest import REPO_ROOT


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


run_commands = _load("run_commands", REPO_ROOT / "plugins/modules/run_commands.py")
save_artifacts = _load("save_artifacts_action", REPO_ROOT / "plugins/action/save_artifacts.py")

# (argv, timeout_s, rc, stdout, stderr, msg starts with)
COMMANDS = [
    (["sh", "-c", "printf 'a\\nb\\n'"], 5, 0, "a\nb", "", ""),
    (["sh", "-c", "echo oops >&2; exit 3"], 5, 3, "", "oops", "non-zero return code"),
    (["gpunet-no-such-tool"], 5, 2, "", "", "[Errno 2]"),
    (["sh", "-c", "echo started; sleep 5"], 1, 124, "started", "", "timed out after 1 s"),
]


@pytest.mark.parametrize(("argv", "timeout_s", "rc", "stdout", "stderr", "msg"), COMMANDS)
def test_each_command_result_has_the_registered_loop_shape(
    argv: list[str], timeout_s: int, rc: int, stdout: str, stderr: str, msg: str
) -> None:
    item = {"argv": argv, "file": "probe"}
    result = run_commands.run_one(item, timeout_s)
    assert result["item"] == item
    assert result["cmd"] == argv
    assert (result["rc"], result["stdout"], result["stderr"]) == (rc, stdout, stderr)
    assert result["msg"].startswith(msg)
    assert result["failed"] is False and result["changed"] is False


def test_a_failed_command_is_saved_with_why(tmp_path: Path) -> None:
    from gpunet.validate.collect_plan import raw_output

    result = run_commands.run_one({"argv": ["gpunet-no-such-tool"], "file": "x"}, 5)
    assert raw_output(result).startswith("gpunet verify: `gpunet-no-such-tool` exited 2: [Errno 2]")


def test_files_are_written_and_an_unchanged_one_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "hosts" / "gpu01"
    written = save_artifacts.write_if_different(folder, "ip_link.txt", "1: lo\n")
    assert written.read_text() == "1: lo\n"
    mtime = written.stat().st_mtime_ns
    save_artifacts.write_if_different(folder, "ip_link.txt", "1: lo\n")
    assert written.stat().st_mtime_ns == mtime
    save_artifacts.write_if_different(folder, "ip_link.txt", "2: rail0\n")
    assert written.read_text() == "2: rail0\n"


@pytest.mark.parametrize(("name", "content"), [("../escape.txt", "x"), ("", "x"), ("ok.txt", None)])
def test_bad_file_entries_are_refused_naming_the_file(tmp_path: Path, name: str, content: Any) -> None:
    with pytest.raises(AnsibleActionFail, match="save_artifacts"):
        save_artifacts.write_if_different(tmp_path / "d", name, content)
    assert not (tmp_path / "escape.txt").exists()
