"""The simulator's LLDP commands: each OS's layout read back by its parser, the lab's cabling
judged as planned, and each cabling fault found by the judge under its class.

The fabric is inventories/prod (NX-OS, EOS, Cumulus, SONiC and Junos leaves, EOS and NX-OS
spines); each switch is told its neighbours as the lab tells them (gpunet.lab.plan), asked its
OS's LLDP command through its personality, and the answer parsed by the tool gpunet collects it as.
"""

from __future__ import annotations

from functools import cache

import pytest

from gpunet.collect.lldp import LLDP_COMMANDS
from gpunet.lab.plan import _neighbours
from gpunet.lab.switchsim.personalities import PERSONALITIES
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimOptions, SimulatedSwitch
from gpunet.model.check import load_fabric
from gpunet.model.fabric import Fabric
from gpunet.validate.cabling import judge_cabling
from gpunet.validate.parsers import parse
from tests.conftest import REPO_ROOT


@cache
def prod() -> Fabric:
    return load_fabric(REPO_ROOT / "inventories" / "prod")


def answer(name: str, options: SimOptions | None = None) -> tuple[str, str]:
    """(tool, the switch's answer to its LLDP command)."""
    switch = prod().switches[name]
    neighbours = {port: [device, far] for port, device, far in _neighbours(switch, prod())}
    state = SwitchState(switch.platform, name, ports=[p.name for p in switch.ports], neighbours=neighbours)
    shell = PERSONALITIES[switch.platform](SimulatedSwitch(state, options or SimOptions()), "admin")
    shell.paging = False
    ((tool, command),) = LLDP_COMMANDS[switch.platform].items()
    return tool, shell.handle(command)


SWITCHES = ["leaf01", "leaf03", "leaf05", "leaf06", "leaf08", "spine01", "spine02"]


@pytest.mark.parametrize("name", SWITCHES)
def test_each_os_layout_reads_back_as_the_cabling(name: str) -> None:
    tool, text = answer(name)
    seen = {
        (n["interface"], n["chassis"]["name"], n["port"]["id"]["value"])
        for n in parse(tool, text)["neighbours"]
    }
    planned = set(_neighbours(prod().switches[name], prod()))
    assert seen == planned and len(planned) > 4
    host_ports = {far for _, device, far in planned if device in prod().hosts}
    assert all(not port.startswith("mlx5") for port in host_ports)  # hosts by netdev, as lldpd names them


def test_a_switch_without_neighbours_reads_back_as_none() -> None:
    for platform, commands in LLDP_COMMANDS.items():
        ((tool, command),) = commands.items()
        state = SwitchState(platform, "lone")
        shell = PERSONALITIES[platform](SimulatedSwitch(state, SimOptions()), "admin")
        shell.paging = False
        assert parse(tool, shell.handle(command))["neighbours"] == [], platform


def captures(faults: dict[str, SimOptions]) -> dict:
    found = {}
    for name in prod().switches:
        tool, text = answer(name, faults.get(name))
        found[name] = parse(tool, text)
    return found | dict.fromkeys(prod().hosts)  # no host captured: links judged from the switch end


# (case, faults per switch, the findings as (class, the ends they name))
FAULTS = [
    ("as cabled", {}, set()),
    (
        "two host cables swapped on a SONiC leaf",
        {"leaf06": SimOptions(lldp_swap="Ethernet0,Ethernet8")},
        {("swapped", ("gpu01:mlx5_5", "leaf06:Ethernet0", "gpu02:mlx5_5", "leaf06:Ethernet8"))},
    ),
    (
        "a Junos leaf port cabled to the wrong host",
        {"leaf08": SimOptions(lldp_neighbour=["et-0/0/0=gpu03:enp219s0np0"])},
        {
            ("wrong_neighbour", ("gpu01:mlx5_7", "leaf08:et-0/0/0", "gpu03:mlx5_7")),
            ("extra_neighbour", ("gpu03:mlx5_7", "leaf08:et-0/0/0")),
        },
    ),
    (
        "a leaf-spine cable missing (neither end sees the other)",
        {
            "spine01": SimOptions(lldp_neighbour=["Ethernet3/1/1="]),
            "leaf01": SimOptions(lldp_neighbour=["Ethernet1/9="]),
        },
        {("missing", ("leaf01:Ethernet1/9", "spine01:Ethernet3/1/1"))},
    ),
]


@pytest.mark.parametrize(("faults", "expected"), [c[1:] for c in FAULTS], ids=[c[0] for c in FAULTS])
def test_cabling_faults_are_found_by_class(faults: dict[str, SimOptions], expected: set) -> None:
    verdict = judge_cabling(prod(), captures(faults))
    found = {(f.kind, tuple(f"{e.device}:{e.port}" for e in f.ends)) for f in verdict.findings}
    assert found == expected


@pytest.mark.parametrize(
    ("option", "refusal"),
    [
        (["--lldp-swap", "Ethernet0"], "--lldp-swap Ethernet0: expected PORT_A,PORT_B"),
        (
            ["--lldp-neighbour", "Ethernet0=gpu01"],
            "--lldp-neighbour Ethernet0=gpu01: expected PORT=DEVICE:PORT",
        ),
        (["--lldp-neighbour", "=gpu01:rail0"], "--lldp-neighbour =gpu01:rail0: expected"),
    ],
)
def test_a_malformed_cabling_fault_is_refused_before_serving(option: list[str], refusal: str, capsys) -> None:
    from gpunet.cli import main

    assert main(["switchsim", "--platform", "sonic", "--port", "2222", *option]) == 2
    assert refusal in capsys.readouterr().err
