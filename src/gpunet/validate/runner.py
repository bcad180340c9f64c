"""Run playbooks/verify.yml of the project folder through ansible-runner, with live progress on stderr."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpunet.progress import shown_on_terminal

# The playbooks and roles are not package data (they ship with the checkout and the collection):
# they are found in GPUNET_PROJECT_DIR, else in the folder gpunet-validate runs in.
PROJECT_DIR_VARIABLE = "GPUNET_PROJECT_DIR"
PLAYBOOK = Path("playbooks") / "verify.yml"
EXIT_NO_PLAYBOOK = 2


def project_dir() -> Path:
    return Path(os.environ.get(PROJECT_DIR_VARIABLE) or Path.cwd()).resolve()


_SHOWN_EVENTS = {
    "playbook_on_play_start": "play",
    "playbook_on_task_start": "task",
}
_HOST_EVENTS = {
    "runner_on_ok": "ok",
    "runner_on_failed": "FAILED",
    "runner_on_unreachable": "UNREACHABLE",
    "runner_on_skipped": "skipped",
}


def run_verify_playbook(
    inventory: str, artifacts: Path, limit: str | None, vault_password_file: str | None, quiet: bool = False
) -> int:
    """ansible-playbook verify.yml; returns its exit status. Collection problems become check errors later."""
    import ansible_runner  # imported here: --from-artifacts must work without Ansible's import cost

    project = project_dir()
    if not (project / PLAYBOOK).is_file():
        print(
            f"gpunet-validate: no {PLAYBOOK} in {project}: run from a gpunet checkout "
            f"or set {PROJECT_DIR_VARIABLE} to one",
            file=sys.stderr,
        )
        return EXIT_NO_PLAYBOOK
    cmdline = ["--vault-password-file", vault_password_file] if vault_password_file else []
    # ansible-runner keeps its job events here, next to what they produced.
    private_data_dir = artifacts / ".runner"
    private_data_dir.mkdir(parents=True, exist_ok=True)
    unreachable: dict[str, str] = {}
    on_event = event_handler(unreachable, show=not quiet and shown_on_terminal())
    runner = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        project_dir=str(project),
        playbook=str(project / PLAYBOOK),
        inventory=str(Path(inventory).resolve()),
        limit=limit,
        extravars={"gpunet_verify_artifacts_dir": str(artifacts.resolve())},
        cmdline=" ".join(cmdline) or None,
        envvars={"ANSIBLE_CONFIG": str(project / "ansible.cfg"), "PATH": _path_with_this_python()},
        event_handler=on_event,
        quiet=True,
    )
    write_unreachable(artifacts, unreachable)
    return int(runner.rc)


def event_handler(unreachable: dict[str, str], show: bool) -> Callable[[dict[str, Any]], bool]:
    """ansible-runner's event callback: note unreachable hosts always; print plays, tasks and
    host outcomes on stderr only when `show` (a terminal, not --quiet), like every progress line."""

    def on_event(event: dict[str, Any]) -> bool:
        note_unreachable(event, unreachable)
        return _show_progress(event) if show else True

    return on_event


def note_unreachable(event: dict[str, Any], unreachable: dict[str, str]) -> None:
    """Keep the first reason Ansible gave for each host it could not reach."""
    if event.get("event") != "runner_on_unreachable":
        return
    data = event.get("event_data", {})
    host = str(data.get("host", ""))
    message = str((data.get("res") or {}).get("msg", "unreachable")).strip().splitlines()
    if host and host not in unreachable:
        unreachable[host] = f"UNREACHABLE: {message[0] if message else 'no reason given'}"


def write_unreachable(artifacts: Path, unreachable: dict[str, str]) -> None:
    """hosts/<host>/collection-error.txt for every unreachable GPU host: the judge reports one
    `host_collected` error with this reason instead of one error per missing file. Only hosts
    verify_host made a folder for (its first task runs on the controller) are GPU hosts."""
    for host, reason in unreachable.items():
        folder = artifacts / "hosts" / host
        if folder.is_dir():
            (folder / "collection-error.txt").write_text(reason[:500] + "\n")


def _path_with_this_python() -> str:
    """PATH with this Python's bin folder first: ansible-playbook of the same venv (which need not be
    activated) runs, and its plugins import the same gpunet."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _show_progress(event: dict[str, Any]) -> bool:
    data = event.get("event_data", {})
    kind = event.get("event", "")
    if kind in _SHOWN_EVENTS:
        name = data.get("name") or data.get("task") or data.get("play") or ""
        print(f"[{_SHOWN_EVENTS[kind]}] {name}", file=sys.stderr, flush=True)
    elif kind in _HOST_EVENTS and not data.get("ignore_errors"):
        print(f"    {_HOST_EVENTS[kind]:<11} {data.get('host', '')}", file=sys.stderr, flush=True)
    return True  # keep the event in the runner's job_events folder too
