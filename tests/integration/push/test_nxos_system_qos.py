"""NX-OS's system-defined QoS objects (factory/cli.yml `nxos.system_defined`, Cisco's QoS guide).

They are in the OS from boot, left out of `show running-config` and printed by `show
running-config ipqos all`; they cannot be edited or deleted. gpunet's push references the
system classes in its own GPUNET- policies and attaches those under `system qos`: the defaults
stay defined, give way under `system qos`, and no line the push sends names one. An intended/
that would edit or delete one is refused before any change, and the simulator refuses such a
line by its own data if the push's check were missing.
"""

from __future__ import annotations

import pytest

from gpunet.lab.switchsim.personalities.nxos import NxosPersonality
from gpunet.netdev import push as push_module
from gpunet.netdev.errors import PushError
from tests.integration.push.test_factory_state import push
from tests.integration.push.test_push import running

SYSTEM_QOS = "system qos"


def typed(fleet, sim, lines: list[str]) -> list[str]:
    """What the simulated NX-OS prints for each line, typed in one CLI session."""

    def session() -> list[str]:
        shell = NxosPersonality(sim, "netops")
        shell.paging = False
        return [shell.handle(line) for line in lines]

    return fleet.call(session)


def system_qos(shown: str) -> list[str]:
    lines = shown.splitlines()
    start = lines.index(SYSTEM_QOS)
    return [line.strip() for line in lines[start + 1 :] if line.startswith("  ")][:2]


def test_ipqos_all_shows_the_defaults_and_then_gpunets_policies(fleet, start, backups):
    target = start("nxos")
    (factory_qos,) = typed(fleet, target.sim, ["show running-config ipqos all"])
    (factory_run,) = typed(fleet, target.sim, ["show running-config"])
    assert "policy-map type network-qos default-8q-nq-policy" in factory_qos
    assert "default-8q" not in factory_run and SYSTEM_QOS not in factory_run.splitlines()
    assert system_qos(factory_qos) == [
        "service-policy type network-qos default-8q-nq-policy",
        "service-policy type queuing output default-8q-out-policy",
    ]

    result = push(target, target.intended, backups)
    assert result.changed and "GPUNET-NQ" in result.diff
    assert "default-8q" not in result.diff  # nothing sent names a system object
    (pushed_qos,) = typed(fleet, target.sim, ["show running-config ipqos all"])
    assert system_qos(pushed_qos) == [
        "service-policy type network-qos GPUNET-NQ",
        "service-policy type queuing output GPUNET-QUEUING-OUT",
    ]
    for kept in ("network-qos default-8q-nq-policy", "queuing default-8q-out-policy"):
        assert f"policy-map type {kept}" in pushed_qos.splitlines()


@pytest.mark.parametrize(
    "line",
    [
        "no policy-map type network-qos default-8q-nq-policy",
        "no policy-map type queuing default-8q-out-policy",
        "policy-map type queuing default-8q-out-policy",
        "class-map type queuing match-any c-out-8q-q3",
        "no class-map type network-qos match-any c-8q-nq3",
        "no class-map type qos match-any c-dflt-mpls-qosgrp1",
    ],
)
def test_the_simulator_refuses_to_edit_or_delete_a_system_object(fleet, start, line):
    target = start("nxos")
    before = running(fleet, target)
    _, shown = typed(fleet, target.sim, ["configure terminal", line])
    assert shown.startswith("% System-defined ") and "cannot be modified or deleted" in shown
    assert running(fleet, target) == before


def test_a_user_policy_of_the_same_kind_is_accepted(fleet, start):
    """The refusal is by name: GPUNET- policies referencing the system classes are the user's."""
    target = start("nxos")
    lines = ["configure terminal", "policy-map type queuing OPS-OUT", "class type queuing c-out-8q-q3",
             "bandwidth remaining percent 50"]  # fmt: skip
    assert typed(fleet, target.sim, lines)[1:] == ["", "", ""]
    assert "policy-map type queuing OPS-OUT" in running(fleet, target)


EDITS_THE_DEFAULT = (
    "policy-map type queuing default-8q-out-policy\n"
    "  class type queuing c-out-8q-q3\n"
    "    bandwidth remaining percent 60\n"
)


def test_a_push_that_edits_a_system_policy_is_refused_before_any_change(fleet, start, backups):
    target = start("nxos")
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, EDITS_THE_DEFAULT + target.intended, backups)
    assert "system-defined QoS objects (default-8q-out-policy)" in str(failure.value)
    assert failure.value.config_state == "unchanged"
    assert running(fleet, target) == before
    assert fleet.call(lambda: list(target.sim.state.history)) == []


def test_without_the_push_check_the_simulator_refuses_and_the_push_rolls_back(
    fleet, start, backups, monkeypatch
):
    monkeypatch.setattr(push_module, "check_system_defined", lambda name, commands: None)
    target = start("nxos")
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push(target, EDITS_THE_DEFAULT + target.intended, backups)
    assert "System-defined policy-map type queuing default-8q-out-policy" in str(failure.value)
    assert failure.value.config_state == "rolled back"
    assert running(fleet, target) == before


def test_taking_gpunets_policies_off_puts_the_defaults_back(fleet, start, backups):
    """From gpunet's config to an intent with no QoS policy: the push unbinds and deletes its own
    GPUNET- policies and names no default; `system qos` then shows the system policies again."""
    target = start("nxos")
    assert push(target, target.intended, backups).changed
    ports_only = "\n".join(
        line for line in target.intended.splitlines() if line.startswith("interface ") or line == "  mtu 9216"
    )
    result = push(target, ports_only, backups)
    assert result.changed and "no policy-map type network-qos GPUNET-NQ" in result.diff
    assert "default-8q" not in result.diff
    (shown,) = typed(fleet, target.sim, ["show running-config ipqos all"])
    assert system_qos(shown) == [
        "service-policy type network-qos default-8q-nq-policy",
        "service-policy type queuing output default-8q-out-policy",
    ]
    assert not [line for line in running(fleet, target) if "GPUNET-" in line]
