"""The incast plan: per rail k senders into one receiver in the lossless class, k oversubscribing
the receiver's port, one server port per sender, and the switch ports on the path from the cabling."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpunet.model.check import load_fabric
from gpunet.model.fabric import Fabric
from gpunet.validate.incast import (
    incast_plan,
    plan_document,
    plan_for,
    plan_from_document,
    senders_needed,
)
from gpunet.validate.thresholds import Thresholds
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def prod() -> Fabric:
    return load_fabric(REPO_ROOT / "inventories" / "prod")


@pytest.mark.parametrize(
    ("receiver", "sender", "ratio", "k"),
    [
        (400, 400, 2.0, 2),  # 800 Gb/s offered into 400
        (800, 800, 2.0, 2),
        (800, 400, 2.0, 4),  # 400G senders into an 800G port
        (400, 400, 3.0, 3),
        (400, 800, 2.0, 2),  # one 800G sender would be 2x, but one flow is not an incast
        (400, 400, 1.5, 2),
    ],
)
def test_the_default_sender_count_oversubscribes_the_receiver(
    receiver: int, sender: int, ratio: float, k: int
) -> None:
    assert senders_needed(receiver, sender, ratio) == k
    assert k * sender >= ratio * receiver


def test_every_rail_gets_one_receiver_and_senders_in_the_lossless_class(prod: Fabric) -> None:
    plan = incast_plan(prod)
    assert [rail.rail for rail in plan] == list(range(8))
    receivers = [rail.receiver for rail in plan]
    assert len(set(receivers)) == 8  # spread over the hosts, one a rail
    for rail in plan:
        assert len(rail.senders) == 2 and rail.oversubscription == 2.0
        assert rail.receiver not in {s.host for s in rail.senders}
        assert {s.nic for s in rail.senders} == {rail.receiver_nic}  # rail r is every host's NIC r
        for sender in rail.senders:
            server, client = rail.server_argv(sender), rail.client_argv(sender)
            # DSCP 26 << 2 | ECT(0): the class NCCL_IB_TC gets; -p -q -D are SYMMETRIC in perftest.
            for argv in (server, client):
                assert "--tclass=106" in argv
                assert argv[argv.index("-p") + 1] == str(sender.port)
                assert argv[argv.index("-q") + 1] == "4" and argv[argv.index("-D") + 1] == "10"
            assert server[:3] == ["ib_write_bw", "-d", rail.receiver_nic] and client[-1] == rail.receiver_ip
    # A host serving on several rails would need distinct ports; per receiver they are distinct.
    ports = [(rail.receiver, s.port) for rail in plan for s in rail.senders]
    assert len(ports) == len(set(ports))


def test_the_path_is_the_receivers_leaf_port_then_the_senders(prod: Fabric) -> None:
    rail = incast_plan(prod)[0]
    receiver_nic = next(n for n in prod.hosts[rail.receiver].nics if n.rail == 0)
    assert rail.receiver_port.target == f"{receiver_nic.switch}:{receiver_nic.switch_port}"
    assert rail.receiver_port.role == "receiver-edge"
    assert [p.role for p in rail.path] == ["receiver-edge", "sender-edge", "sender-edge"]


def test_senders_behind_another_leaf_put_the_uplinks_and_spine_downlinks_on_the_path(prod: Fabric) -> None:
    # gpu03's rail-0 NIC moved behind leaf02: its traffic to gpu01 (leaf01) crosses the spines.
    host = prod.hosts["gpu03"]
    moved = [replace(n, switch="leaf02", switch_port="Ethernet1/3") if n.rail == 0 else n for n in host.nics]
    fabric = replace(prod, hosts={**prod.hosts, "gpu03": replace(host, nics=tuple(moved))})
    rail = incast_plan(fabric)[0]
    roles = {(p.switch, p.role) for p in rail.path}
    uplinks = {
        switch: {p.name for p in fabric.switches[switch].ports if p.peer and p.peer.kind == "switch"}
        for switch in ("leaf01", "leaf02")
    }
    assert {("leaf01", "receiver-uplink"), ("leaf02", "sender-uplink"), ("leaf02", "sender-edge")} <= roles
    assert {p.port for p in rail.path if p.role == "receiver-uplink"} == uplinks["leaf01"]
    assert {p.port for p in rail.path if p.role == "sender-uplink"} == uplinks["leaf02"]
    downlinks = {(p.switch, p.port) for p in rail.path if p.role == "spine-downlink"}
    assert downlinks == {
        (s.name, p.name)
        for s in fabric.switches.values()
        for p in s.ports
        if p.peer and p.peer.kind == "switch" and p.peer.device == "leaf01"
    }
    assert downlinks and {switch for switch, _ in downlinks} == {"spine01", "spine02"}
    # Rails whose senders share the receiver's leaf cross no spine.
    assert all(p.role.endswith("edge") for p in incast_plan(prod)[1].path)


def test_catalog_thresholds_and_small_rails(prod: Fabric) -> None:
    plan = plan_for(prod, Thresholds(incast_senders=5.0, incast_seconds=30.0))
    assert all(len(rail.senders) == 5 and rail.seconds == 30 for rail in plan)
    with pytest.raises(ValueError, match="whole number"):
        plan_for(prod, Thresholds(incast_senders=2.5))
    # Eight hosts give at most seven senders: the plan takes them and says how far it oversubscribes.
    assert {len(rail.senders) for rail in incast_plan(prod, senders=12)} == {7}
    two = {name: prod.hosts[name] for name in ("gpu01", "gpu02")}
    thin = incast_plan(replace(prod, hosts=two))
    assert {rail.oversubscription for rail in thin} == {1.0}
    infiniband = incast_plan(replace(prod, transport="infiniband"))
    assert not any("--tclass" in arg for arg in infiniband[0].client_argv(infiniband[0].senders[0]))


def test_the_plan_round_trips_through_its_json(prod: Fabric) -> None:
    plan = incast_plan(prod)
    assert plan_from_document(json.loads(json.dumps(plan_document(plan)))) == plan
