"""Run the PFC/ECN/queue show commands on one switch and save their raw output as artifacts.

Where the OS prints a command's counters as structured data, that form is asked for first
(STRUCTURED_COMMANDS) and the text command of SWITCH_COMMANDS is the fallback for releases
without it. The parsers read either form (they tell JSON by its first character), and
`capture-forms.json` beside the captures records which form each one is and why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpunet.model.fabric import Switch
from gpunet.netdev.errors import PushError
from gpunet.netdev.push import Connection, connector
from gpunet.validate.checks.switch import SWITCH_COMMANDS


def collect_switch_show(switch: Switch, login: Connection, phase: str, artifacts: Path) -> list[str]:
    """Writes `switches/<switch>/<phase>/<tool>.txt` per command; returns the files written. Logs
    in as the push does (`login`: password, keys, agent, jump host, ssh_config, host keys).

    A switch that cannot be reached gets no files, so its checks report "error" with the reason
    that is raised here (LoginError/UnreachableError name the switch, never the password)."""
    commands = SWITCH_COMMANDS.get(switch.platform, {})
    structured = STRUCTURED_COMMANDS.get(switch.platform, {})
    folder = artifacts / "switches" / switch.name / phase
    folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    if not commands:
        return written
    session = connector(switch, login)()
    forms: dict[str, dict[str, str]] = {}
    try:
        for tool, command in commands.items():
            output, forms[tool] = _collect_one(session, tool, command, structured.get(tool))
            path = folder / f"{tool}.txt"
            path.write_text(output if output.endswith("\n") else output + "\n")
            written.append(str(path))
    finally:
        session.disconnect()
    (folder / FORMS_FILE).write_text(json.dumps(forms, indent=2) + "\n")
    return written


# Structured forms, per platform and tool, with where and from which release the OS has them.
STRUCTURED_COMMANDS: dict[str, dict[str, str]] = {
    # sonic-utilities show/main.py `show queue counters -j/--json` (queuestat -j), added by PR
    # #1505 (commit d5f5382, 2021-04): releases from 202106. `show pfc counters`, `show pfc
    # priority` and `show ecn` have no JSON option (show/main.py at 691b1bb): text only.
    "sonic": {"sonic-show-queue-counters": "show queue counters --json"},
    # NVUE `nv show ... -o json` (`--output json`: CumulusNetworks/docs cumulus-linux-55
    # NVUE-CLI.md, "Output Options"), shaped by NVIDIA's NVUE OpenAPI spec (5.3.0 in
    # ../shared/vendor-schemas/nvue): Cumulus Linux 5.x.
    "cumulus": {"cumulus-nv-show-qos-roce": "nv show qos roce -o json"},
}
FORMS_FILE = "capture-forms.json"


def _collect_one(
    session: Any, tool: str, text_command: str, structured: str | None
) -> tuple[str, dict[str, str]]:
    """The output of one tool and its form record: the structured command's where it answers
    with JSON, else the text command's (an older release refuses the option)."""
    if structured is None:
        return session.send_command(text_command, read_timeout=30), {"form": "text", "command": text_command}
    output = session.send_command(structured, read_timeout=30)
    if _is_json(output):
        return output, {"form": "json", "command": structured}
    refusal = next((line.strip() for line in output.splitlines() if line.strip()), "no output")
    form = {"form": "text", "command": text_command, "structured_refused": f"{structured}: {refusal[:200]}"}
    return session.send_command(text_command, read_timeout=30), form


def _is_json(output: str) -> bool:
    if not output.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(output)
    except json.JSONDecodeError:
        return False  # a cut document is no answer: the text form is asked for
    return True


COLLECTION_ERROR = "collection-error.txt"


def record_collection_error(artifacts: Path, switch: str, phase: str, reason: str) -> None:
    """Keep why a switch's outputs are missing, so its checks can say it (never holds credentials:
    the reasons come from LoginError/UnreachableError)."""
    folder = artifacts / "switches" / switch / phase
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COLLECTION_ERROR).write_text(reason.rstrip("\n") + "\n")


__all__ = [
    "COLLECTION_ERROR",
    "FORMS_FILE",
    "STRUCTURED_COMMANDS",
    "PushError",
    "collect_switch_show",
    "record_collection_error",
]
