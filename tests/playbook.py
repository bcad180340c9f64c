"""Run ansible-playbook from the test virtualenv, in the project root, with the project's ansible.cfg."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")


def run_playbook(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
    }
    return subprocess.run(
        [str(ANSIBLE_PLAYBOOK), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
