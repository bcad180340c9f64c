"""Run playbooks/verify.yml of the project folder, else the installed collection's, through
ansible-runner, with live progress on stderr."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpunet.progress import shown_on_terminal

# The playbooks and roles are not package data (they ship with the checkout and the collection):
# they are found in GPUNET_PROJECT_DIR, else in the folder gpunet-validate runs in, else in the
# gpunet.fabric collection installed in Ansible's configured collection paths (run by its FQCN).
PROJECT_DIR_VARIABLE = "GPUNET_PROJECT_DIR"
PLAYBOOK = Path("playbooks") / "verify.yml"
COLLECTION_PLAYBOOK = "gpunet.fabric.verify"
COLLECTION_FOLDER = Path("ansible_collections") / "gpunet" / "fabric"
EXIT_NO_PLAYBOOK = 2


def project_dir() -> Path:
    return Path(os.environ.get(PROJECT_DIR_VARIABLE) or Path.cwd()).resolve()


def collection_paths() -> list[Path]:
    """Ansible's COLLECTIONS_PATHS as ansible-playbook would read them now (ANSIBLE_COLLECTIONS_PATH,
    else ansible.cfg, else the defaults): a fresh ConfigManager, so a changed environment counts."""
    from ansible.config.manager import ConfigManager

    return [Path(path).expanduser() for path in ConfigManager().get_config_value("COLLECTIONS_PATHS") or []]


def installed_collection(roots: list[Path]) -> Path | None:
    """The first gpunet.fabric collection under `roots` (collection_paths) that ships
    playbooks/verify.yml, else None."""
    for root in roots:
        folder = root / COLLECTION_FOLDER
        if (folder / PLAYBOOK).is_file():
            return folder.resolve()
    return None


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


@dataclass(frozen=True)
class PlaybookRun:
    """How a collection run ended: its exit status, whether any host task ran, and the first
    error line the playbook printed (where ansible-runner kept its stdout)."""

    rc: int
    host_events: int = 0
    first_error: str | None = None
    stdout: Path | None = None
    no_playbook: bool = False

    @property
    def failed_before_collecting(self) -> bool:
        """The playbook stopped before any task ran on a host (a vault, inventory, syntax or
        collection error): nothing was collected, so there is nothing to judge."""
        return self.no_playbook or (self.rc != 0 and self.host_events == 0)


def run_verify_playbook(
    inventory: str, artifacts: Path, limit: str | None, vault_password_file: str | None, quiet: bool = False
) -> int:
    """ansible-playbook verify.yml; returns its exit status. Collection problems become check errors later."""
    return run_collection(inventory, artifacts, limit, vault_password_file, quiet).rc


def run_collection(
    inventory: str,
    artifacts: Path,
    limit: str | None,
    vault_password_file: str | None,
    quiet: bool = False,
    incast: bool = False,
) -> PlaybookRun:
    """ansible-playbook verify.yml through ansible-runner: how it ended (PlaybookRun). `incast`:
    also run the incast stage (gpunet_verify_incast), whose plan the caller wrote."""
    import ansible_runner  # imported here: --from-artifacts must work without Ansible's import cost

    project = project_dir()
    envvars = {"PATH": _path_with_this_python()}
    if (project / PLAYBOOK).is_file():
        playbook = str(project / PLAYBOOK)
        envvars["ANSIBLE_CONFIG"] = str(project / "ansible.cfg")
    else:
        roots = collection_paths()  # read once: a ConfigManager reads ansible.cfg anew
        collection = installed_collection(roots)
        if collection is None:
            searched = ", ".join(str(path) for path in roots) or "none configured"
            print(
                f"gpunet-validate: no {PLAYBOOK} in {project} and no gpunet.fabric collection with it "
                f"in the collection paths ({searched}): run from a gpunet checkout (or set "
                f"{PROJECT_DIR_VARIABLE} to one), or install the collection artifact with "
                "ansible-galaxy collection install",
                file=sys.stderr,
            )
            return PlaybookRun(EXIT_NO_PLAYBOOK, no_playbook=True)
        # ansible-playbook resolves the FQCN through the caller's own Ansible configuration.
        project, playbook = collection, COLLECTION_PLAYBOOK
    # ansible-playbook runs in the project folder: a relative vault password file is the caller's.
    vault = str(Path(vault_password_file).resolve()) if vault_password_file else None
    cmdline = ["--vault-password-file", vault] if vault else []
    # ansible-runner keeps its job events here, next to what they produced.
    private_data_dir = artifacts / ".runner"
    private_data_dir.mkdir(parents=True, exist_ok=True)
    unreachable: dict[str, str] = {}
    host_events = [0]
    on_event = event_handler(unreachable, show=not quiet and shown_on_terminal(), host_events=host_events)
    runner = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        project_dir=str(project),
        playbook=playbook,
        inventory=str(Path(inventory).resolve()),
        limit=limit,
        extravars={"gpunet_verify_artifacts_dir": str(artifacts.resolve()), "gpunet_verify_incast": incast},
        cmdline=" ".join(cmdline) or None,
        envvars=envvars,
        event_handler=on_event,
        quiet=True,
    )
    write_unreachable(artifacts, unreachable)
    rc = int(runner.rc)
    stdout = _stdout_path(runner)
    first_error = None
    if rc and stdout:
        # ansible-runner merges stderr into stdout, except in its subprocess mode (a stderr file).
        stderr = stdout.with_name("stderr")
        text = stdout.read_text(errors="replace")
        first_error = first_error_line(
            text + ("\n" + stderr.read_text(errors="replace") if stderr.is_file() else "")
        )
    return PlaybookRun(rc, host_events[0], first_error, stdout)


def _stdout_path(runner: Any) -> Path | None:
    """Where ansible-runner wrote the playbook's stdout (artifacts/<ident>/stdout), if it did."""
    folder = getattr(getattr(runner, "config", None), "artifact_dir", None)
    path = Path(folder) / "stdout" if folder else None
    return path if path is not None and path.is_file() else None


# ansible-core 2.19 prints `[ERROR]: ...`, earlier releases `ERROR! ...`.
_ERROR_LINE = re.compile(r"^\s*(\[ERROR\]:?|ERROR!)\s*(?P<message>.*)$")


def first_error_line(stdout: str) -> str | None:
    """The playbook's first error line; else its last non-empty line; None for empty output."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    for line in lines:
        if match := _ERROR_LINE.match(line):
            return match["message"] or line
    return lines[-1] if lines else None


def event_handler(
    unreachable: dict[str, str], show: bool, host_events: list[int] | None = None
) -> Callable[[dict[str, Any]], bool]:
    """ansible-runner's event callback: note unreachable hosts always, and count host outcomes in
    `host_events[0]`; print plays, tasks and host outcomes on stderr only when `show` (a terminal,
    not --quiet), like every progress line."""

    def on_event(event: dict[str, Any]) -> bool:
        note_unreachable(event, unreachable)
        if host_events is not None and event.get("event") in _HOST_EVENTS:
            host_events[0] += 1
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
