"""gpunet-validate's collection progress (ansible-runner's plays, tasks and host outcomes) is shown
on a terminal only, like every other progress line; unreachable hosts are noted either way."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpunet.validate import runner
from tests.conftest import REPO_ROOT

EVENTS = [
    {"event": "playbook_on_play_start", "event_data": {"play": "collect from GPU hosts"}},
    {"event": "playbook_on_task_start", "event_data": {"task": "ibstat"}},
    {"event": "runner_on_ok", "event_data": {"host": "gpu01"}},
    {"event": "runner_on_unreachable", "event_data": {"host": "gpu02", "res": {"msg": "ssh: timed out"}}},
]
SHOWN = "[play] collect from GPU hosts\n[task] ibstat\n    ok          gpu01\n    UNREACHABLE gpu02\n"


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


# (stdout a terminal, stderr a terminal, --quiet, what stderr shows)
CASES = [
    (True, True, False, SHOWN),
    (True, True, True, ""),
    (False, True, False, ""),  # stdout into a file or pipe: `gpunet-validate ... > report`
    (True, False, False, ""),  # stderr into a log
    (False, False, False, ""),  # CI
]


@pytest.mark.parametrize(("stdout_tty", "stderr_tty", "quiet", "expected"), CASES)
def test_collection_progress_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    stdout_tty: bool,
    stderr_tty: bool,
    quiet: bool,
    expected: str,
) -> None:
    import ansible_runner

    def fake_run(**kwargs: Any) -> SimpleNamespace:
        # ansible-runner calls the handler once per job event; the playbook itself is not run.
        assert all(kwargs["event_handler"](event) for event in EVENTS)  # every event is kept
        return SimpleNamespace(rc=0)

    monkeypatch.setattr(ansible_runner, "run", fake_run)
    monkeypatch.setenv(runner.PROJECT_DIR_VARIABLE, str(REPO_ROOT))
    stdout, stderr = _Stream(stdout_tty), _Stream(stderr_tty)
    monkeypatch.setattr("sys.stdout", stdout)
    monkeypatch.setattr("sys.stderr", stderr)
    (tmp_path / "hosts" / "gpu02").mkdir(parents=True)
    assert runner.run_verify_playbook("inventory", tmp_path, None, None, quiet=quiet) == 0
    assert stderr.getvalue() == expected
    assert stdout.getvalue() == ""
    # Unreachable hosts are noted whatever is shown.
    assert (tmp_path / "hosts" / "gpu02" / "collection-error.txt").read_text() == (
        "UNREACHABLE: ssh: timed out\n"
    )
