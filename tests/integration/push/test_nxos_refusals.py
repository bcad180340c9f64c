"""NX-OS refuses an input queuing policy that holds a pause buffer beside priority/bandwidth
(Cisco N9K QoS guide 10.5(x), PFC Guidelines and Limitations; gpunet.lab.switchsim.personalities.
nxos_refusals). gpunet renders the input policy (long lossless cables) with the pause buffer alone,
so its push is accepted; an intent that mixes them is refused by the simulator on the line that
completes the mix, and the push rolls the switch back.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpunet.lab.switchsim.personalities.nxos_refusals import REFUSED
from gpunet.netdev.errors import PushError
from tests.integration.push.test_factory_state import push
from tests.integration.push.test_nxos_system_qos import typed
from tests.integration.push.test_push import running
from tests.integration.push.test_remediation import render_for

LONG_CABLE_M = 150  # over Cisco's 100 m: the static pause buffer is mandatory
IN_CLASS = "  class type queuing c-in-q3"


def long_cables(fabric, name: str):
    switch = fabric.switches[name]
    ports = tuple(dataclasses.replace(port, cable_length_m=LONG_CABLE_M) for port in switch.ports)
    switches = {**fabric.switches, name: dataclasses.replace(switch, ports=ports)}
    return dataclasses.replace(fabric, switches=switches)


@pytest.fixture
def long_cable_intent(prod_fabric) -> str:
    intended = render_for(long_cables(prod_fabric, "leaf01"), "leaf01")
    assert "  service-policy type queuing input GPUNET-QUEUING-IN" in intended.splitlines()
    return intended


def test_gpunets_input_policy_holds_the_pause_buffer_alone_and_is_accepted(
    fleet, start, backups, long_cable_intent
):
    target = start("nxos")
    result = push(target, long_cable_intent, backups)
    assert result.changed and result.message == "committed, confirmed and saved"
    config = running(fleet, target)
    assert "policy-map type queuing GPUNET-QUEUING-IN" in config
    assert push(target, long_cable_intent, backups).changed is False


@pytest.mark.parametrize("mixed", ["    bandwidth remaining percent 50", "    priority level 1"])
def test_an_input_policy_mixing_pause_buffer_and_scheduling_is_refused(
    fleet, start, backups, long_cable_intent, mixed
):
    lines = long_cable_intent.splitlines()
    at = lines.index(IN_CLASS) + 1
    wrong = "\n".join([*lines[: at + 1], mixed, *lines[at + 1 :]])
    target = start("nxos")
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, wrong, backups)
    assert "Input queuing policy GPUNET-QUEUING-IN cannot have pause buffer and priority/bandwidth" in str(
        failure.value
    )
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before


def test_the_refusal_is_for_an_attached_input_policy_only(fleet, start, backups, long_cable_intent):
    """The same mix in a policy not attached as input is accepted; attaching it is then refused."""
    target = start("nxos")
    assert push(target, long_cable_intent, backups).changed
    lines = [
        "configure terminal",
        "policy-map type queuing OPS-IN",
        "class type queuing c-in-q4",
        "pause buffer-size 100000 pause-threshold 50000 resume-threshold 40000",
        "bandwidth remaining percent 10",
        "system qos",
        "service-policy type queuing input OPS-IN",
    ]
    shown = typed(fleet, target.sim, lines)
    assert shown[1:6] == ["", "", "", "", ""]
    assert shown[6] == REFUSED.format(name="OPS-IN")
    config = running(fleet, target)
    assert "  service-policy type queuing input GPUNET-QUEUING-IN" in config
    assert "  service-policy type queuing input OPS-IN" not in config
