"""A thin runner for the podman CLI: the project's containers.conf, and errors that carry stderr."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from gpunet.lab.errors import LabError


class Podman:
    def __init__(self, containers_conf: Path) -> None:
        # This machine's kernel needs runc and explicit ulimits (molecule/containers.conf says why).
        self.env = {**os.environ, "CONTAINERS_CONF": str(containers_conf)}

    def run(self, *args: str, input_text: str | None = None, timeout: float = 600) -> str:
        """Run `podman args...`; return stdout, or raise LabError with the command and its stderr."""
        command = ["podman", *args]
        try:
            done = subprocess.run(
                command,
                input=input_text,
                capture_output=True,
                text=True,
                env=self.env,
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError:
            raise LabError("podman is not installed (run `make setup`)") from None
        except subprocess.TimeoutExpired:
            raise LabError(f"{shlex.join(command)} did not finish within {timeout:.0f} s") from None
        if done.returncode != 0:
            detail = done.stderr.strip() or done.stdout.strip()
            raise LabError(f"{shlex.join(command)} failed (rc {done.returncode}): {detail}")
        return done.stdout

    def exists(self, kind: str, name: str) -> bool:
        """kind is image, container or network."""
        try:
            done = subprocess.run(
                ["podman", kind, "exists", name], env=self.env, capture_output=True, check=False
            )
        except FileNotFoundError:
            raise LabError("podman is not installed (run `make setup`)") from None
        return done.returncode == 0

    def labelled(self, kind: str, label: str) -> list[str]:
        """Names of the containers or networks that carry `label`."""
        if kind == "container":
            out = self.run("ps", "-a", "--filter", f"label={label}", "--format", "{{.Names}}")
        else:
            out = self.run("network", "ls", "--filter", f"label={label}", "--format", "{{.Name}}")
        return [line for line in out.split() if line]

    def container_state(self, name: str) -> str:
        """running, exited, ... or "absent"."""
        if not self.exists("container", name):
            return "absent"
        return self.run("inspect", "--format", "{{.State.Status}}", name).strip()

    def container_address(self, name: str, network: str) -> str:
        template = f'{{{{ (index .NetworkSettings.Networks "{network}").IPAddress }}}}'
        return self.run("inspect", "--format", template, name).strip()
