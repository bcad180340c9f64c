"""Remediation per OS: what the push sends to go from a running config to the intended one,
within gpunet's owned scope (table-driven; the running configs are written as each OS prints them)."""

from __future__ import annotations

import json

import pytest

from gpunet.netdev.remediation import remediate

NXOS_RUNNING = """hostname leaf01
username admin password 5 $5$NOTREAL$hash role network-admin
policy-map type network-qos GPUNET-NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
policy-map type queuing OLD-GPUNET-ONLY-BY-NAME
  class type queuing c-out-8q-q3
    bandwidth remaining percent 60
policy-map type queuing GPUNET-QUEUING-OLD
  class type queuing c-out-8q-q3
    bandwidth remaining percent 60
system qos
  service-policy type network-qos GPUNET-NQ
  service-policy type queuing output GPUNET-QUEUING-OLD
interface Ethernet1/1
  description uplink
  mtu 9000
  service-policy type qos input GPUNET-QOS-IN
interface Ethernet1/9
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input GPUNET-QOS-IN
interface mgmt0
  vrf member management"""
NXOS_INTENDED = """policy-map type network-qos GPUNET-NQ
  class type network-qos c-8q-nq4
    pause pfc-cos 4
    mtu 9216
policy-map type queuing GPUNET-QUEUING-OUT
  class type queuing c-out-8q-q4
    bandwidth remaining percent 60
system qos
  service-policy type network-qos GPUNET-NQ
  service-policy type queuing output GPUNET-QUEUING-OUT
interface Ethernet1/1
  mtu 9216
  service-policy type qos input GPUNET-QOS-IN"""

EOS_RUNNING = """hostname leaf03
qos map dscp 26 to traffic-class 3
qos profile GPUNET-ROCE
   priority-flow-control priority 3 no-drop
   tx-queue 3
      no priority
      bandwidth percent 60
interface Ethernet1/1
   description keep
   mtu 9214
   service-profile GPUNET-ROCE
interface Management1
   ip address 192.0.2.11/24"""
EOS_INTENDED = """qos map dscp 26 to traffic-class 4
qos profile GPUNET-ROCE
   priority-flow-control priority 4 no-drop
   tx-queue 4
      no priority
      bandwidth percent 60
interface Ethernet1/1
   mtu 9214
   service-profile GPUNET-ROCE"""

CUMULUS_RUNNING = """nv set system hostname leaf05
nv set qos pfc gpunet-pfc-3m switch-priority 3
nv set qos pfc gpunet-pfc-3m cable-length 3
nv set qos pfc gpunet-pfc-30m switch-priority 3
nv set qos pfc operator switch-priority 5
nv set qos egress-scheduler default-global traffic-class 3 bw-percent 60
nv set interface swp1 link mtu 9000
nv set interface swp1 description keep
nv set interface swp9 qos pfc profile gpunet-pfc-3m"""
CUMULUS_INTENDED = """nv set qos pfc gpunet-pfc-3m switch-priority 4
nv set qos pfc gpunet-pfc-3m cable-length 3
nv set qos egress-scheduler default-global traffic-class 3 bw-percent 70
nv set interface swp1 link mtu 9216"""

JUNOS_RUNNING = """set system host-name leaf08
set system root-authentication encrypted-password "$6$NOTREAL"
set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3
set class-of-service schedulers sch-roce transmit-rate percent 60
set class-of-service schedulers sch-bulk transmit-rate percent 20
set class-of-service schedulers ops transmit-rate percent 5
set interfaces et-0/0/0 mtu 9000
set interfaces et-0/0/0 description keep"""
JUNOS_INTENDED = """set class-of-service forwarding-classes class roce queue-num 4 no-loss pfc-priority 4
set class-of-service schedulers sch-roce transmit-rate percent 70
set interfaces et-0/0/0 mtu 9216"""

CASES = {
    "nxos": (
        NXOS_RUNNING,
        NXOS_INTENDED,
        [
            # A port the inventory no longer lists: gpunet's statements go, the port stays.
            "interface Ethernet1/9",
            "  no mtu 9216",
            "  no priority-flow-control mode on",
            "  no service-policy type qos input GPUNET-QOS-IN",
            "policy-map type network-qos GPUNET-NQ",
            "  no class type network-qos c-8q-nq3",
            "  class type network-qos c-8q-nq4",
            "    pause pfc-cos 4",
            "    mtu 9216",
            "policy-map type queuing GPUNET-QUEUING-OUT",
            "  class type queuing c-out-8q-q4",
            "    bandwidth remaining percent 60",
            "system qos",
            "  service-policy type queuing output GPUNET-QUEUING-OUT",  # replaces the old binding
            "interface Ethernet1/1",
            "  mtu 9216",
            # Deleting a policy comes after the line that rebinds system qos away from it.
            "no policy-map type queuing GPUNET-QUEUING-OLD",
        ],
    ),
    "eos": (
        EOS_RUNNING,
        EOS_INTENDED,
        [
            "no qos map dscp 26 to traffic-class 3",
            "qos map dscp 26 to traffic-class 4",
            "qos profile GPUNET-ROCE",
            "   no priority-flow-control priority 3 no-drop",
            "   no tx-queue 3",
            "   priority-flow-control priority 4 no-drop",
            "   tx-queue 4",
            "      no priority",
            "      bandwidth percent 60",
        ],
    ),
    "cumulus": (
        CUMULUS_RUNNING,
        CUMULUS_INTENDED,
        [
            "nv unset qos pfc gpunet-pfc-3m switch-priority 3",  # a set of priorities: the old one goes
            "nv unset qos pfc gpunet-pfc-30m",  # a whole profile intended/ no longer has
            "nv unset interface swp9 qos pfc profile",  # a port the inventory no longer lists
            "nv set qos pfc gpunet-pfc-3m switch-priority 4",
            "nv set qos egress-scheduler default-global traffic-class 3 bw-percent 70",
            "nv set interface swp1 link mtu 9216",
        ],
    ),
    "junos": (
        JUNOS_RUNNING,
        JUNOS_INTENDED,
        [
            "delete class-of-service schedulers sch-bulk",
            "set class-of-service forwarding-classes class roce queue-num 4 no-loss pfc-priority 4",
            "set class-of-service schedulers sch-roce transmit-rate percent 70",
            "set interfaces et-0/0/0 mtu 9216",
        ],
    ),
}


@pytest.mark.parametrize("platform", list(CASES))
def test_remediation_commands(platform):
    running, intended, expected = CASES[platform]
    assert remediate(platform, running, intended).commands == expected


@pytest.mark.parametrize("platform", list(CASES))
def test_intended_against_itself_is_in_sync(platform):
    _, intended, _ = CASES[platform]
    assert remediate(platform, intended, intended).in_sync


@pytest.mark.parametrize("platform", list(CASES))
def test_foreign_config_never_appears(platform):
    running, intended, _ = CASES[platform]
    text = "\n".join(remediate(platform, running, intended).commands)
    foreign_words = ("hostname", "host-name", "description", "mgmt0", "Management1", "operator", " ops ")
    for foreign in (*foreign_words, "password", "NOTREAL"):  # secrets never reach a diff
        assert foreign not in text


def test_sonic_patch_replaces_contradicting_stock_entries_and_keeps_the_rest():
    # The stock PG range 3-4 overlaps gpunet's PG 3: it goes. The stock pfc_to_pg_map is a field
    # gpunet does not write and names no gpunet object: it stays.
    running = {
        "BGP_NEIGHBOR": {"192.0.2.2": {"asn": "65002"}},
        "BUFFER_PG": {
            "Ethernet0|3-4": {"profile": "ingress_lossless_profile"},
            "Ethernet9|3-4": {"profile": "x"},
        },
        "QUEUE": {"Ethernet0|3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_to_pg_map": "AZURE", "pfc_enable": "3,4"}},
        "PORT": {"Ethernet0": {"mtu": "9100", "description": "keep"}},
        "SCHEDULER": {"gpunet.1": {"type": "DWRR", "weight": "20"}, "scheduler.1": {"type": "DWRR"}},
    }
    intended = {
        "BUFFER_PG": {"Ethernet0|3": {"profile": "pg_lossless_400000_3m_profile"}},
        "QUEUE": {"Ethernet0|3": {"scheduler": "gpunet.3", "wred_profile": "GPUNET_LOSSLESS"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
        "PORT": {"Ethernet0": {"mtu": "9216"}},
    }
    patch = remediate("sonic", json.dumps(running), json.dumps(intended)).patch
    assert patch == [
        {"op": "remove", "path": "/BUFFER_PG/Ethernet0|3-4"},
        {"op": "remove", "path": "/SCHEDULER/gpunet.1"},
        {
            "op": "add",
            "path": "/BUFFER_PG/Ethernet0|3",
            "value": {"profile": "pg_lossless_400000_3m_profile"},
        },
        {"op": "replace", "path": "/QUEUE/Ethernet0|3/scheduler", "value": "gpunet.3"},
        {"op": "replace", "path": "/QUEUE/Ethernet0|3/wred_profile", "value": "GPUNET_LOSSLESS"},
        {"op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable", "value": "3"},
        {"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"},
    ]
