"""`gpunet switchsim` as a process: serves SSH on 127.0.0.1, keeps its state file, stops on SIGTERM."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time

import paramiko
from netmiko import ConnectHandler

from gpunet.lab.switchsim.factory import cli_factory
from gpunet.lab.switchsim.state import DEFAULT_PORTS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_switchsim_serves_a_platform_and_saves_its_state(tmp_path):
    port, state_file, key_file = free_port(), tmp_path / "leaf08.state.json", tmp_path / "host_key"
    command = [sys.executable, "-m", "gpunet.cli", "switchsim", "--platform", "junos", "--port", str(port),
               "--state", str(state_file), "--username", "netops", "--password", "pw",
               "--host-key", str(key_file)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == f"switchsim: junos leaf08 127.0.0.1:{port}"
        session = ConnectHandler(device_type="juniper_junos", host="127.0.0.1", port=port, username="netops",
                                 password="pw", allow_agent=False, use_keys=False)  # fmt: skip
        assert session.find_prompt() == "netops@leaf08>"
        served_key = session.remote_conn.get_transport().get_remote_server_key()
        assert (
            served_key.get_base64() == paramiko.Ed25519Key.from_private_key_file(str(key_file)).get_base64()
        )
        assert "unknown command." in session.send_command("show bogus thing")
        session.disconnect()
        saved = json.loads(state_file.read_text())
        assert (saved["platform"], saved["hostname"]) == ("junos", "leaf08")
        # The factory config of cli.yml, with the hostname and a block per default port.
        assert saved["config"] == cli_factory("junos", "leaf08", DEFAULT_PORTS["junos"])
        port_line = "set interfaces et-0/0/0 unit 0 family ethernet-switching storm-control default"
        assert port_line in saved["config"]
    finally:
        process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
    assert process.returncode == 0


def test_switchsim_refuses_a_bad_port():
    result = subprocess.run(
        [sys.executable, "-m", "gpunet.cli", "switchsim", "--platform", "eos", "--port", "70000"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "out of range" in result.stderr


def test_counters_edited_in_the_state_file_show_up_in_show_commands(tmp_path):
    port, state_file = free_port(), tmp_path / "leaf07.state.json"
    command = [sys.executable, "-m", "gpunet.cli", "switchsim", "--platform", "sonic", "--port", str(port),
               "--state", str(state_file)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().startswith("switchsim: sonic leaf07")
        state = json.loads(state_file.read_text())
        state["counters"]["Ethernet8"]["rx_pfc"][3] = 4242
        state_file.write_text(json.dumps(state))
        session = ConnectHandler(device_type="linux", host="127.0.0.1", port=port, username="admin",
                                 password="admin", allow_agent=False, use_keys=False)  # fmt: skip
        rows = [line.split() for line in session.send_command("show pfc counters").splitlines()]
        session.disconnect()
        assert ["Ethernet8", "0", "0", "0", "4242", "0", "0", "0", "0"] in rows
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
