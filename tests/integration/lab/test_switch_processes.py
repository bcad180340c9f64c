"""The lab's simulator processes: started from the inventory's ports, reachable over SSH on
127.0.0.1, their host key recorded, a fault option passed through, stopped without leftovers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from gpunet.lab import switches
from gpunet.lab.errors import LabError
from gpunet.lab.plan import LabSwitch

LEAF = LabSwitch("leaf09", "cumulus", ("swp7", "swp8", "swp32"))


def log_in(port: int, password: str) -> None:
    """Log in as admin with `password` and leave (a throwaway simulator: its host key is irrelevant)."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(
            "127.0.0.1", port=port, username="admin", password=password, look_for_keys=False,
            allow_agent=False, timeout=10,
        )  # fmt: skip
    finally:
        client.close()


@pytest.fixture
def leaf(tmp_path: Path) -> Iterator[switches.RunningSwitch]:
    running = switches.start_switch(LEAF, tmp_path, "admin", "pw-test")
    yield running
    switches.stop_switch(running)


def test_simulator_serves_ssh_with_the_inventory_ports(leaf: switches.RunningSwitch) -> None:
    assert switches.is_up(leaf)
    assert (switches.ssh_banner(leaf.port) or "").startswith("SSH-2.0")
    state = json.loads(Path(leaf.state_file).read_text())
    assert state["hostname"] == "leaf09"
    assert state["ports"] == ["swp7", "swp8", "swp32"]
    assert leaf.code == switches.simulator_code_digest()  # `lab up` restarts it when the code changes


def test_recorded_host_key_is_the_one_served(leaf: switches.RunningSwitch, tmp_path: Path) -> None:
    line = switches.host_key(leaf.port)
    assert line.startswith(f"[127.0.0.1]:{leaf.port} ssh-ed25519 ")
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(line + "\n")
    client = paramiko.SSHClient()
    client.load_host_keys(str(known_hosts))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())  # strict: only the recorded key
    try:
        client.connect(
            "127.0.0.1", port=leaf.port, username="admin", password="pw-test", look_for_keys=False,
            allow_agent=False, timeout=10,
        )  # fmt: skip
    finally:
        client.close()


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    running = switches.start_switch(LEAF, tmp_path, "admin", "pw-test")
    switches.stop_switch(running)
    assert not switches.is_simulator(running.pid)
    assert switches.ssh_banner(running.port, timeout_s=0.5) is None


def test_fault_options_reach_the_simulator(tmp_path: Path) -> None:
    running = switches.start_switch(LEAF, tmp_path, "admin", "pw-test", faults=["--fail-login"])
    try:
        assert running.faults == ["--fail-login"]
        with pytest.raises(paramiko.AuthenticationException):
            log_in(running.port, "pw-test")
    finally:
        switches.stop_switch(running)


def test_a_simulator_that_cannot_start_is_reported(tmp_path: Path) -> None:
    broken = LabSwitch("leaf10", "cumulus", ("swp1",))
    (tmp_path / "leaf10.state.json").write_text("{not json")
    with pytest.raises(LabError, match=r"leaf10 \(cumulus\) did not serve SSH"):
        switches.start_switch(broken, tmp_path, "admin", "pw-test")


def test_a_generated_password_that_starts_with_a_dash_still_logs_in(tmp_path: Path) -> None:
    """`lab up` draws secrets.token_urlsafe(12), which starts with "-" once in 64 draws: argparse
    took it for an option and the simulator never started (seen in CI)."""
    running = switches.start_switch(LEAF, tmp_path, "admin", "-Ab3_dash-first")
    try:
        log_in(running.port, "-Ab3_dash-first")
    finally:
        switches.stop_switch(running)
