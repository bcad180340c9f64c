"""build_fabric makes each switch port once, its peer already of its kind, and reads a NIC address
as ip_interface does without asking IPv4 to read an IPv6 one (issue 33: the model build of a cold
render at 262,144 GPUs)."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from gpunet.model import build
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.fabric import Fabric, SwitchPort
from tests.unit.model.helpers import raw_inventory


def _built(raw: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Fabric, list[str]]:
    """The fabric build_fabric cross-checks (also when a problem is then raised) and its problems."""
    seen: list[Fabric] = []
    run_all = build.crosschecks.run_all

    def spy(fabric: Fabric, broken: set[str]) -> list[Any]:
        seen.append(fabric)
        return run_all(fabric, broken)

    monkeypatch.setattr(build.crosschecks, "run_all", spy)
    try:
        build.build_fabric(raw)
        problems: list[str] = []
    except InventoryInvalidError as error:
        problems = [problem.path for problem in error.problems]
    assert len(seen) == 1
    return seen[0], problems


def _drop_gpus(inv: dict[str, Any]) -> None:
    del inv["host_vars"]["gpu01"]["gpunet_gpus"]  # gpu01 fails its schema: no host of that name


def _drop_spine_model(inv: dict[str, Any]) -> None:
    del inv["host_vars"]["spine01"]["gpunet_switch_model"]  # spine01 fails its schema


def _unknown_peer(inv: dict[str, Any]) -> None:
    inv["host_vars"]["leaf01"]["gpunet_ports"][1]["peer"] = "gpu99:mlx5_0"


# (mutation, {(switch, port index): the peer's kind})
KINDS = [
    (None, {("leaf01", 0): "host", ("leaf01", 1): "host", ("leaf01", 2): "switch", ("spine01", 1): "switch"}),
    (_drop_gpus, {("leaf01", 0): "unknown", ("leaf02", 0): "unknown", ("leaf01", 1): "host"}),
    (_drop_spine_model, {("leaf01", 2): "unknown", ("leaf02", 2): "unknown", ("leaf01", 0): "host"}),
    (_unknown_peer, {("leaf01", 1): "unknown", ("leaf01", 0): "host", ("leaf02", 2): "switch"}),
]


@pytest.mark.parametrize(("mutate", "kinds"), KINDS)
def test_each_port_is_made_once_with_its_peer_kind(
    mutate: Any, kinds: dict[tuple[str, int], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []

    class Counted(SwitchPort):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(kwargs.get("name", args[0] if args else ""))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(build, "SwitchPort", Counted)
    raw = raw_inventory(mutate)
    fabric, _ = _built(raw, monkeypatch)
    for (switch, index), kind in kinds.items():
        peer = fabric.switches[switch].ports[index].peer
        assert peer is not None and peer.kind == kind, (switch, index, peer)
    ports = [port["name"] for name in fabric.switches for port in raw.hostvars[name]["gpunet_ports"]]
    assert sorted(made) == sorted(ports)  # once each: no second pass that copies the ports


ADDRESSES = [
    "198.51.100.1/28",
    "198.51.100.1/255.255.255.240",
    "2001:db8::1/64",
    "2001:DB8:0:0::1/127",
    "::ffff:198.51.100.1/128",
    "fe80::1%eth0/64",
    "198.51.100.1/33",  # bad prefix
    "2001:db8::1/129",  # bad prefix
    "2001:db8::g/64",  # bad address
    "198.51.100.256/24",  # bad address
    "198.51.100.1:1/24",  # neither
]


@pytest.mark.parametrize("address", ADDRESSES)
def test_nic_address_reads_as_ip_interface(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    ipv4 = ipaddress.IPv4Interface

    def recording(value: Any) -> Any:
        asked.append(value)
        return ipv4(value)

    try:
        expected: Any = ipaddress.ip_interface(address)
    except ValueError:
        expected = None

    def mutate(inv: dict[str, Any]) -> None:
        inv["host_vars"]["gpu01"]["gpunet_nics"][0]["ip"] = address

    monkeypatch.setattr(ipaddress, "IPv4Interface", recording)
    fabric, problems = _built(raw_inventory(mutate), monkeypatch)
    if expected is None:
        assert "gpu01.gpunet_nics[0].ip" in problems
        assert "gpu01" not in fabric.hosts
    else:
        ip = fabric.hosts["gpu01"].nics[0].ip
        assert (type(ip), ip, str(ip)) == (type(expected), expected, str(expected))
    assert [value for value in asked if ":" in str(value)] == []
