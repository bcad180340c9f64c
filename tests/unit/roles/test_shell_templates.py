"""Every role template that writes shell, rendered with hostile values and run (issue 34).

Each value is one shell word however it is spelled: the script passes `sh -n`, runs in a scratch
folder, hands the exact values on (recorded by a stand-in command) and never runs what a value
holds (a canary file stays absent). A host named `gpu08$(touch${IFS}/tmp/x)` got past the
inventory check before the name rule; the templates must not depend on that check.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from ansible.template import trust_as_template

from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import templar

# Every template of a role that a shell runs or sources; a new one fails the inventory test below
# until it is added here with its hostile case.
SHELL_TEMPLATES = {
    "roles/slurm_healthcheck/templates/gpunet-healthcheck.sh.j2",
    "roles/cuda_toolkit/templates/cuda-path.sh.j2",
    "roles/roce_host/templates/gpunet-roce-qos.sh.j2",
}


SHELL_SHEBANG = re.compile(r"#!\S*/(?:env\s+)?(?:ba|da|k)?sh\b")


def _hostile(canary: Path) -> list[str]:
    """Values that would run `touch <canary>` if a shell read them as code."""
    c = str(canary)
    return [
        f"gpu08$(touch${{IFS}}{c})",
        f"x`touch {c}`",
        f"x; touch {c}",
        f"x' ; touch {c}; '",
        f'x" ; touch {c}; "',
        f"x\ntouch {c}",
        f"x && touch {c} #",
        "x *",
    ]


def test_every_shell_template_is_covered() -> None:
    found = {
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "roles").glob("*/templates/*.j2")
        if path.name.endswith((".sh.j2", ".bash.j2")) or SHELL_SHEBANG.match(path.read_text())
    }
    assert found == SHELL_TEMPLATES


def _render(relative: str, variables: dict) -> str:
    text = (REPO_ROOT / relative).read_text()
    # As the template action renders: trim_blocks on (ansible/plugins/action/template.py).
    rendered = templar(variables).template(
        trust_as_template(text), escape_backslashes=False, overrides={"trim_blocks": True}
    )
    return str(rendered)


def _write(tmp_path: Path, relative: str, variables: dict) -> Path:
    script = tmp_path / Path(relative).name.removesuffix(".j2")
    script.write_text(_render(relative, variables))
    syntax = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True, check=False)
    assert syntax.returncode == 0, syntax.stderr + script.read_text()
    return script


def _recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in command that writes each argument it was given on its own line."""
    record = tmp_path / "argv"
    command = tmp_path / "record args"
    command.write_text(
        f'#!/bin/sh\nfor arg in "$@"; do printf "%s\\0" "$arg"; done > {shlex.quote(str(record))}\n'
    )
    command.chmod(0o755)
    return command, record


@pytest.mark.parametrize("install", [False, True], ids=["image's command", "bundle run by python"])
@pytest.mark.parametrize("index", range(8))
def test_healthcheck_passes_every_value_as_one_word(tmp_path: Path, index: int, install: bool) -> None:
    canary = tmp_path / "canary"
    value = _hostile(canary)[index]
    command, record = _recorder(tmp_path)
    # Installed: the recorder stands in for the node's Python, so the bundle path is its first word.
    variables = {
        "ansible_managed": value,
        "slurm_healthcheck_install": install,
        "slurm_healthcheck_python": str(command),
        "slurm_healthcheck_node_command": value if install else str(command),
        "slurm_healthcheck_expectations_path": value,
        "slurm_healthcheck_command_timeout": 30,
        "slurm_healthcheck_checks": [value, "nic_qos"],
        "slurm_healthcheck_textfile": value,
        "inventory_hostname_short": value,
    }
    script = _write(tmp_path, "roles/slurm_healthcheck/templates/gpunet-healthcheck.sh.j2", variables)
    run = subprocess.run(["sh", str(script)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert not canary.exists()
    assert record.read_text().split("\0")[:-1] == [value] * install + [
        "--expectations", value, "--timeout", "30", "--checks", f"{value},nic_qos",
        "--textfile", value, "--slurm", "--slurm-node", value,
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(8))
def test_cuda_path_sets_the_folder_literally_and_once(tmp_path: Path, index: int) -> None:
    canary = tmp_path / "canary"
    home = "/opt/" + _hostile(canary)[index]
    variables = {"ansible_managed": _hostile(canary)[index], "cuda_toolkit_home": home}
    script = _write(tmp_path, "roles/cuda_toolkit/templates/cuda-path.sh.j2", variables)
    # Sourced twice, as nested login shells do: the folder is on PATH once.
    shell = (
        f'. {shlex.quote(str(script))}; . {shlex.quote(str(script))}; printf "%s\\0%s" "$CUDA_HOME" "$PATH"'
    )
    run = subprocess.run(
        ["sh", "-c", shell],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert not canary.exists()
    assert run.stdout.split("\0") == [home, f"{home}/bin:/usr/bin:/bin"]


@pytest.mark.parametrize("index", range(8))
def test_roce_boot_script_reports_a_failed_command_literally(tmp_path: Path, index: int) -> None:
    canary = tmp_path / "canary"
    value = _hostile(canary)[index]
    failing = shlex.join(["false", value])
    variables = {"ansible_managed": value, "roce_host_result": {"boot_commands": [failing, "true"]}}
    script = _write(tmp_path, "roles/roce_host/templates/gpunet-roce-qos.sh.j2", variables)
    run = subprocess.run(["sh", str(script)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert not canary.exists()
    assert run.stderr == f"gpunet-roce-qos: failed: {failing}\n"
