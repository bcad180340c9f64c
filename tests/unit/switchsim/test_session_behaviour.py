"""Simulator session behaviour a netmiko client normally hides: banner, paging, error text."""

from __future__ import annotations

import threading
import time

import paramiko
import pytest

from gpunet.lab.switchsim import SimOptions, SimulatorFleet


@pytest.fixture(scope="module")
def fleet():
    with SimulatorFleet() as running:
        yield running


def shell(port: int, password: str = "admin") -> paramiko.Channel:
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # the simulator's own key, 127.0.0.1
    client.connect("127.0.0.1", port, "admin", password, allow_agent=False, look_for_keys=False, timeout=10)
    channel = client.invoke_shell()
    channel.settimeout(10)
    return channel


def read_until(channel: paramiko.Channel, marker: str) -> str:
    text, deadline = "", time.monotonic() + 10
    while marker not in text and time.monotonic() < deadline:
        text += channel.recv(65536).decode()
    return text


def test_output_stops_at_one_page_until_paging_is_off(fleet):
    sim = fleet.start("nxos", "leaf01")
    fleet.call(lambda: sim.state.config.extend(f"interface Ethernet1/{n}" for n in range(1, 41)))
    channel = shell(sim.port)
    assert "Cisco Nexus Operating System" in read_until(channel, "leaf01# ")
    channel.send("show running-config\n")
    paged = read_until(channel, "leaf01# ")
    assert " --More-- " in paged and "Ethernet1/40" not in paged
    channel.send("terminal length 0\n")
    read_until(channel, "leaf01# ")
    channel.send("show running-config\n")
    full = read_until(channel, "Ethernet1/40\r\nleaf01# ")
    assert "Ethernet1/40" in full and " --More-- " not in full


@pytest.mark.parametrize(
    ("platform", "prompt", "bad", "error"),
    [
        ("nxos", "leaf01# ", "show bogus", "% Invalid command at '^' marker."),
        ("eos", "spine01#", "show bogus", "% Invalid input"),
        ("cumulus", "admin@leaf05:mgmt:~$ ", "nv bogus", "Error: No such command 'bogus'."),
        ("sonic", "admin@leaf07:~$ ", "config bogus", 'Error: No such command "bogus".'),
        ("junos", "admin@leaf08> ", "show bogus", "unknown command."),
    ],
)
def test_unknown_command_gets_the_os_error_text(fleet, platform, prompt, bad, error):
    sim = fleet.start(platform, prompt.split("@")[-1].split(":")[0].rstrip("#> "))
    channel = shell(sim.port)
    read_until(channel, prompt)
    channel.send(f"{bad}\n")
    assert error in read_until(channel, prompt)


def test_wrong_password_is_refused(fleet):
    sim = fleet.start("eos", "spine01", options=SimOptions(password="right"))
    with pytest.raises(paramiko.AuthenticationException):
        shell(sim.port, password="wrong")


def test_a_stopped_fleet_leaves_no_thread_behind() -> None:
    # Forking judges and renderers (gpunet.forked) refuse to fork while another thread runs.
    before = {thread.ident for thread in threading.enumerate()}
    with SimulatorFleet() as running:
        sim = running.start("sonic", "leaf09")
        transport = shell(sim.port).get_transport()  # a login: the loop resolves names in its executor
        assert transport is not None
        transport.close()
        transport.join(timeout=10)  # paramiko's own thread, the client's side
        assert len(threading.enumerate()) > len(before)
    assert {thread.ident for thread in threading.enumerate()} == before
