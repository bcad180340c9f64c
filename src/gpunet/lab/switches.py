"""The lab's simulated switches: one `gpunet switchsim` process per inventory switch on 127.0.0.1.

LAB EQUIPMENT: the simulators stand in for switch OSes that cannot run here (see gpunet.lab.switchsim).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.lab.errors import LabError
from gpunet.lab.plan import LabSwitch

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 20.0
# Written by `lab up` (gpunet.lab.nodes.host_link_devices): which veth carries each host NIC's LLDP.
LLDP_WIRES_FILE = "lldp-wires.json"


@dataclass(frozen=True)
class RunningSwitch:
    name: str
    platform: str
    port: int
    pid: int
    state_file: str
    log_file: str
    faults: list[str] = field(default_factory=list)  # switchsim fault options, e.g. ["--reject", "ecn"]
    code: str = ""  # simulator_code_digest() when it started: a process keeps the code it loaded


def simulator_code_digest(workdir: Path | None = None) -> str:
    """Digest of the simulator's code and grammar data, and of the LLDP wires in `workdir`; `lab up`
    restarts simulators when it changes (new containers have new veths)."""
    import gpunet

    package = Path(gpunet.__file__).parent
    digest = hashlib.sha256()
    wires = workdir / LLDP_WIRES_FILE if workdir is not None else None
    if wires is not None and wires.is_file():
        digest.update(wires.read_bytes())
    # lab/traffic_folder.py: the simulators serve the lab's incast SIMULATION with it (--traffic-dir).
    for folder in ("lab/switchsim", "grammar", "lab/traffic_folder.py"):
        found = [package / folder] if (package / folder).is_file() else (package / folder).rglob("*")
        for path in sorted(found):
            if path.is_file() and path.suffix in {".py", ".yml", ".yaml", ".json"}:
                digest.update(path.relative_to(package).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def ssh_banner(port: int, timeout_s: float = 2.0) -> str | None:
    """The SSH identification string served on 127.0.0.1:port, or None when nothing answers."""
    try:
        with socket.create_connection((LOOPBACK, port), timeout=timeout_s) as connection:
            return connection.recv(256).decode(errors="replace").strip() or None
    except OSError:
        return None


def is_simulator(pid: int) -> bool:
    """True when `pid` is still one of our simulators (a recycled pid is left alone)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"switchsim" in cmdline


def is_up(switch: RunningSwitch) -> bool:
    return is_simulator(switch.pid) and (ssh_banner(switch.port) or "").startswith("SSH-")


def seed_state(switch: LabSwitch, state_file: Path) -> None:
    """A factory-fresh switch named as in the inventory, with exactly the inventory's ports."""
    from gpunet.lab.switchsim.state import SwitchState

    SwitchState(
        platform=switch.platform,
        hostname=switch.name,
        model=switch.model or None,
        os_version=switch.os_version or None,
        ports=list(switch.ports),
        neighbours={port: [device, far] for port, device, far in switch.neighbours},
    ).save(state_file)


def rewire_state(switch: LabSwitch, state_file: Path) -> None:
    """A kept state told the inventory's cabling again (a state from before LLDP, a recabled lab)."""
    from gpunet.lab.switchsim.state import SwitchState

    try:
        state = SwitchState.load(state_file)
    except (OSError, ValueError, KeyError, TypeError):
        return  # unreadable: the simulator refuses it at start, and start_switch reports that
    neighbours = {port: [device, far] for port, device, far in switch.neighbours}
    if state.neighbours != neighbours:
        state.neighbours = neighbours
        state.save(state_file)


def start_switch(
    switch: LabSwitch,
    workdir: Path,
    username: str,
    password: str,
    port: int | None = None,
    faults: list[str] | None = None,
    traffic_dir: Path | None = None,
) -> RunningSwitch:
    """Start a simulator for `switch` (reusing `port` when it is free) and wait until it serves SSH;
    with `traffic_dir` (LabPaths.traffic_dir, where it exists) it serves the lab's incast SIMULATION."""
    workdir.mkdir(parents=True, exist_ok=True)
    if port is None or ssh_banner(port, timeout_s=0.5) is not None:
        port = free_port()
    state_file = workdir / f"{switch.name}.state.json"
    log_file = workdir / f"{switch.name}.log"
    wires = workdir / LLDP_WIRES_FILE
    if not state_file.exists():
        seed_state(switch, state_file)
    else:
        rewire_state(switch, state_file)
    command = [
        sys.executable, "-m", "gpunet.cli", "switchsim",
        "--platform", switch.platform,
        "--port", str(port),
        "--state", str(state_file),
        # "=": a generated password may start with "-", which argparse would take for an option
        f"--username={username}",
        f"--password={password}",
        *([f"--lldp-wires={wires}"] if wires.is_file() else []),
        *([f"--traffic-dir={traffic_dir}"] if traffic_dir is not None and traffic_dir.is_dir() else []),
        *(faults or []),
    ]  # fmt: skip
    with log_file.open("ab") as log:
        # Its own session, so the simulator outlives `gpunet lab up` and ^C in the shell.
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
    running = RunningSwitch(
        switch.name,
        switch.platform,
        port,
        process.pid,
        str(state_file),
        str(log_file),
        list(faults or []),
        simulator_code_digest(workdir),
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if (ssh_banner(port, timeout_s=0.5) or "").startswith("SSH-"):
            return running
        time.sleep(0.2)
    stop_switch(running)
    tail = log_file.read_text(errors="replace").strip().splitlines()[-5:]
    raise LabError(
        f"simulator for {switch.name} ({switch.platform}) did not serve SSH on {LOOPBACK}:{port}: "
        + (" | ".join(tail) or "no output")
    )


def stop_switch(switch: RunningSwitch, timeout_s: float = 5.0) -> None:
    if not is_simulator(switch.pid):
        return
    os.kill(switch.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not is_simulator(switch.pid):
            return
        _reap(switch.pid)
        time.sleep(0.1)
    os.kill(switch.pid, signal.SIGKILL)
    _reap(switch.pid)


def _reap(pid: int) -> None:
    """Collect the exit status when this process started the simulator (no zombie left)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def host_key(port: int) -> str:
    """The simulator's host key as a known_hosts line, read with ssh-keyscan (we started it ourselves)."""
    done = subprocess.run(
        ["ssh-keyscan", "-p", str(port), "-t", "ed25519,rsa,ecdsa", LOOPBACK],
        capture_output=True,
        text=True,
        timeout=15,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line and not line.startswith("#")]
    if not lines:
        raise LabError(f"ssh-keyscan found no host key on {LOOPBACK}:{port}: {done.stderr.strip()}")
    return "\n".join(lines)
