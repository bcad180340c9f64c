"""Run the host collection commands locally, each under a timeout, into an artifacts folder.

The commands and the file layout are those of roles/verify_host (`collect_plan.host_commands`,
`raw_output`), so the same parsers read them. They run in parallel: the slowest command, not the
sum, bounds the check's run time.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gpunet.validate.collect_plan import host_commands, raw_output
from gpunet.validate.manifest import HostExpectation

DEFAULT_TIMEOUT_S = 3.0


def collect_host(host: HostExpectation, folder: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
    """Write hosts/<host>/<file>.txt for every collection command; never raises for a bad command."""
    nics = [{"name": nic.name, "netdev": nic.netdev} for nic in host.nics]
    commands = host_commands(nics)
    target = folder / "hosts" / host.name
    target.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        outputs = pool.map(lambda command: run_one(command["argv"], timeout_s), commands)
        for command, output in zip(commands, outputs, strict=True):
            (target / f"{command['file']}.txt").write_text(output)


def run_one(argv: list[str], timeout_s: float) -> str:
    """The command's output as the verify role saves it, or one line saying why it did not run."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
        result: dict[str, Any] = {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}
    except subprocess.TimeoutExpired:
        result = {"rc": None, "failed": True, "msg": f"timed out after {timeout_s:g} s"}
    except OSError as error:
        result = {"rc": 127 if isinstance(error, FileNotFoundError) else 126, "msg": error.strerror}
    return raw_output({**result, "item": {"argv": argv}})
