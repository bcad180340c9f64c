"""Inventory variables -> how gpunet logs in to a switch (table-driven)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpunet.netdev.jumphost import JumpHost
from gpunet.netdev.logins import connection_from_vars

CASES = [
    ({"ansible_password": "pw"}, {"password": "pw", "key_file": None, "use_agent": False, "jump": None}),
    (
        {"gpunet_ssh_key_file": "/keys/sw", "gpunet_ssh_agent": "yes"},
        {"password": "", "key_file": Path("/keys/sw"), "use_agent": True, "jump": None},
    ),
    (
        {"ansible_ssh_private_key_file": "/keys/ansible", "gpunet_ssh_host_key_checking": "false"},
        {"key_file": Path("/keys/ansible"), "host_key_checking": False},
    ),
    (
        {"gpunet_ssh_jump_host": "ops@bastion:2222", "gpunet_ssh_jump_key_file": "/keys/jump"},
        {"jump": JumpHost("bastion", 2222, "ops", Path("/keys/jump"))},
    ),
    (
        {"gpunet_ssh_key_file": "/keys/sw", "gpunet_ssh_key_passphrase": "pp"},
        {"key_file": Path("/keys/sw"), "key_passphrase": "pp", "ssh_config_file": None},
    ),
    ({"gpunet_ssh_config_file": "/etc/ssh_config"}, {"ssh_config_file": Path("/etc/ssh_config")}),
]


@pytest.mark.parametrize("variables, expected", CASES)
def test_connection_from_vars(variables, expected):
    connection = connection_from_vars(variables, known_hosts=None, timeout_s=5)
    assert {key: getattr(connection, key) for key in expected} == expected


def test_repr_never_shows_the_password():
    variables = {"ansible_password": "s3cret-value", "gpunet_ssh_key_passphrase": "pass-phrase"}
    connection = connection_from_vars(variables, known_hosts=None, timeout_s=5)
    assert "s3cret-value" not in repr(connection) and "pass-phrase" not in repr(connection)


def test_templated_password_is_templated():
    """A vaulted password is a Jinja expression in the inventory: the templar resolves it."""
    variables = {"ansible_password": "{{ vault_switch_password }}"}
    resolve = {"{{ vault_switch_password }}": "from-the-vault"}.get
    connection = connection_from_vars(variables, known_hosts=None, timeout_s=5, template=resolve)
    assert connection.password == "from-the-vault"


def test_bad_jump_host_names_the_variable():
    with pytest.raises(ValueError, match=r"^gpunet_ssh_jump_host: .*'a b'"):
        connection_from_vars({"gpunet_ssh_jump_host": "a b"}, known_hosts=None, timeout_s=5)
