"""Simulated switches (real SSH on 127.0.0.1) and rendered configs for the push tests.

The configs are rendered by gpunet.render from inventories/prod; the tests never connect to that
inventory's addresses: each Switch is pointed at a simulator on 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpunet.lab.switchsim import SimOptions, SimulatedSwitch, SimulatorFleet
from gpunet.model.check import load_fabric
from gpunet.model.fabric import Switch
from gpunet.render import render_fabric
from tests.conftest import REPO_ROOT

# One switch of each platform in the example inventory.
SWITCH_OF_PLATFORM = {
    "nxos": "leaf01",
    "eos": "leaf03",
    "cumulus": "leaf05",
    "sonic": "leaf07",
    "junos": "leaf08",
}
PASSWORD = "lab-only-secret"


@pytest.fixture(scope="session")
def prod_fabric():
    inventory = REPO_ROOT / "inventories" / "prod"
    return load_fabric(inventory, inventory / "vault-password.txt")


@pytest.fixture(scope="session")
def rendered(prod_fabric) -> dict[str, str]:
    return {name: switch.config for name, switch in render_fabric(prod_fabric).items()}


@pytest.fixture(scope="module")
def fleet() -> Iterator[SimulatorFleet]:
    with SimulatorFleet() as running:
        yield running


@dataclasses.dataclass
class Target:
    sim: SimulatedSwitch
    switch: Switch  # the inventory's switch, pointed at the simulator
    intended: str


@pytest.fixture
def start(fleet, prod_fabric, rendered):
    """start(platform, **SimOptions fields) -> Target: a fresh simulator for that platform's switch."""

    def starter(platform: str, **faults) -> Target:
        name = SWITCH_OF_PLATFORM[platform]
        model = prod_fabric.switches[name]
        options = SimOptions(**{"username": "netops", "password": PASSWORD, "minute_seconds": 2, **faults})
        ports = [p.name for p in model.ports]
        sim = fleet.start(
            platform, name, options=options, ports=ports, model=model.model, os_version=model.os_version
        )
        switch = dataclasses.replace(model, mgmt_address="127.0.0.1", mgmt_port=sim.port, mgmt_user="netops")
        return Target(sim, switch, rendered[name])

    return starter


@pytest.fixture
def backups(tmp_path: Path) -> Path:
    return tmp_path / "backups"
