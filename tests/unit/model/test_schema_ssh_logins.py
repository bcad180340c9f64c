"""The inventory schema takes every documented switch-login variable (issue 27: they were refused)
in each form gpunet's login code takes it, and refuses what that code would refuse."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.model.schema_check import check, host_validator
from gpunet.netdev.jumphost import JumpHost

SWITCH = {
    "gpunet_platform": "eos",
    "gpunet_switch_model": "7060X5",
    "gpunet_role": "leaf",
    "gpunet_ports": [{"name": "Ethernet1/1", "speed_gbps": 400, "peer": "gpu01:mlx5_0"}],
}

# (variables on a switch, the problem the check must give: None where it takes them)
CASES: list[tuple[dict[str, Any], str | None]] = [
    ({"gpunet_ssh_key_file": "~/.ssh/switches_ed25519", "gpunet_ssh_key_passphrase": "from the vault"}, None),
    ({"gpunet_ssh_agent": True}, None),
    ({"gpunet_ssh_jump_host": "bastion.example.net", "gpunet_ssh_jump_key_file": "/keys/jump"}, None),
    ({"gpunet_ssh_jump_host": "ops@10.0.0.1:2222"}, None),
    ({"gpunet_ssh_jump_host": "ops@[2001:db8::1]:22"}, None),  # an IPv6 bastion, bracketed as OpenSSH's
    ({"gpunet_ssh_jump_host": "[2001:db8::1]"}, None),
    ({"gpunet_ssh_config_file": "~/.ssh/config"}, None),
    ({"gpunet_ssh_host_key_checking": False}, None),
    ({"gpunet_ssh_agent": "yes"}, "x.gpunet_ssh_agent: wrong type"),
    ({"gpunet_ssh_jump_host": "a b"}, "x.gpunet_ssh_jump_host: badly formed"),
    ({"gpunet_ssh_jump_host": "ops@2001:db8::1"}, "x.gpunet_ssh_jump_host: badly formed"),  # no brackets
    ({"gpunet_ssh_key_passphrase": ""}, "x.gpunet_ssh_key_passphrase: "),
    ({"gpunet_ssh_jumphost": "bastion"}, "x.gpunet_ssh_jumphost: unknown key"),
]


@pytest.mark.parametrize(("variables", "problem"), CASES, ids=[str(case[0]) for case in CASES])
def test_the_schema_takes_the_login_variables(variables: dict[str, Any], problem: str | None) -> None:
    problems = [str(found) for found in check({**SWITCH, **variables}, host_validator("switch"), "x")]
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(problem), problems


@pytest.mark.parametrize(
    "spec", [case[0]["gpunet_ssh_jump_host"] for case in CASES if "gpunet_ssh_jump_host" in case[0]]
)
def test_a_jump_host_the_schema_takes_is_one_the_login_parses(spec: str) -> None:
    taken = not check({**SWITCH, "gpunet_ssh_jump_host": spec}, host_validator("switch"), "x")
    try:
        JumpHost.parse(spec)
        parsed = True
    except ValueError:
        parsed = False
    assert taken == parsed, spec
