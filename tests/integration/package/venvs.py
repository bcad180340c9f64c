"""Fresh virtualenvs for the package tests: no gpunet in them, the test venv's dependencies reachable.

The dependencies come through a .pth line naming the test venv's site-packages; a folder added that
way does not run the .pth files inside it, so the test venv's editable gpunet stays invisible.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path


def fresh_venv(folder: Path) -> Path:
    """A venv in folder without gpunet; returns its python."""
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site_packages = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site_packages) / "test-venv-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python
