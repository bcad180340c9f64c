"""Run the PFC/ECN/queue show commands on one switch and save their raw output as artifacts."""

from __future__ import annotations

from pathlib import Path

from gpunet.model.fabric import Switch
from gpunet.netdev.errors import PushError
from gpunet.netdev.session import open_session
from gpunet.validate.checks.switch import SWITCH_COMMANDS


def collect_switch_show(
    switch: Switch,
    password: str,
    phase: str,
    artifacts: Path,
    *,
    host_key_checking: bool,
    known_hosts: Path | None,
) -> list[str]:
    """Writes `switches/<switch>/<phase>/<tool>.txt` per command; returns the files written.

    A switch that cannot be reached gets no files, so its checks report "error" with the reason
    that is raised here (LoginError/UnreachableError name the switch, never the password)."""
    commands = SWITCH_COMMANDS.get(switch.platform, {})
    folder = artifacts / "switches" / switch.name / phase
    folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    if not commands:
        return written
    session = open_session(switch, password, host_key_checking=host_key_checking, known_hosts=known_hosts)
    try:
        for tool, command in commands.items():
            output = session.send_command(command, read_timeout=30)
            path = folder / f"{tool}.txt"
            path.write_text(output if output.endswith("\n") else output + "\n")
            written.append(str(path))
    finally:
        session.disconnect()
    return written


COLLECTION_ERROR = "collection-error.txt"


def record_collection_error(artifacts: Path, switch: str, phase: str, reason: str) -> None:
    """Keep why a switch's outputs are missing, so its checks can say it (never holds credentials:
    the reasons come from LoginError/UnreachableError)."""
    folder = artifacts / "switches" / switch / phase
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COLLECTION_ERROR).write_text(reason.rstrip("\n") + "\n")


__all__ = ["COLLECTION_ERROR", "PushError", "collect_switch_show", "record_collection_error"]
