"""The fast inventory path gives exactly the values Ansible's loader gives.

For every inventory in tests/fixtures and the examples, and for a table of folders built to hit
each precedence rule: the same groups (in order), and for every host the same variables, all
templated (so Jinja and vault values are compared too). `load_inventory` itself is compared with
GPUNET_INVENTORY_LOADER=ansible, with and without a vault password and with --limit patterns.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from gpunet.model.errors import InventoryInvalidError
from gpunet.model.folder_inventory import MAGIC_VARIABLES, Unhandled, read_folder
from gpunet.model.loader import LOADER_ENV, load_inventory
from gpunet.model.plain import to_plain
from tests.conftest import FIXTURES_DIR, REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"
PROD_PASSWORD = PROD / "vault-password.txt"
VALID_SOURCES = [
    PROD,
    REPO_ROOT / "inventories" / "lab",
    *sorted((FIXTURES_DIR / "inventories" / "valid").iterdir()),
    # Read as the golden render tests read them: the file (the folder also holds expected/).
    *sorted((FIXTURES_DIR / "render").glob("*/hosts.yml")),
]
BROKEN_SOURCES = sorted(p for p in (FIXTURES_DIR / "inventories" / "broken").iterdir() if p.is_dir())


class _NoFacts(dict):
    """A fact cache that has nothing: Ansible treats KeyError from get() as no facts."""

    def get(self, key: str, default: Any = None) -> Any:
        raise KeyError(key)


def _ansible_view(source: Path, password_file: Path | None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """Groups and every host's templated variables (without magic ones), read by Ansible."""
    from ansible.cli import CLI
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.parsing.vault import VaultSecretsContext
    from ansible.template import Templar
    from ansible.vars.manager import VariableManager

    loader = DataLoader()
    if password_file:
        VaultSecretsContext._current = None
        loader.set_vault_secrets(
            CLI.setup_vault_secrets(loader, vault_ids=[], vault_password_files=[str(password_file)])
        )
    inventory = InventoryManager(loader=loader, sources=[str(source)])
    variables = VariableManager(loader=loader, inventory=inventory)
    # Facts cached by an earlier lab run (ansible.cfg's fact cache) are not inventory.
    variables._fact_cache = _NoFacts()
    groups = {name: [h.name for h in group.get_hosts()] for name, group in inventory.groups.items()}
    hostvars = {}
    for host in inventory.get_hosts("all"):
        all_vars = variables.get_vars(host=host, include_hostvars=False)
        magic = variables._get_magic_variables(
            play=None, host=host, task=None, include_hostvars=False, _hosts=None, _hosts_all=None
        )
        # ansible_facts comes from the fact cache, not the inventory.
        skip = {*magic, *MAGIC_VARIABLES, "ansible_facts"}
        own = {k: v for k, v in all_vars.items() if k not in skip}
        hostvars[host.name] = to_plain(Templar(loader=loader, variables=all_vars).template(own))
    return groups, hostvars


def _fast_view(source: Path, password_file: Path | None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    vault = None
    if password_file:
        from ansible.cli import CLI
        from ansible.parsing.dataloader import DataLoader
        from ansible.parsing.vault import VaultLib, VaultSecretsContext

        VaultSecretsContext._current = None
        secrets = CLI.setup_vault_secrets(
            DataLoader(), vault_ids=[], vault_password_files=[str(password_file)]
        )
        vault = VaultLib(secrets)
    folder = read_folder(source, vault)
    hostvars = {
        host: to_plain(folder.templated(host, [k for k in own if k not in MAGIC_VARIABLES]))
        for host, own in folder.variables.items()
    }
    return folder.groups, hostvars


def _assert_same_view(source: Path, password_file: Path | None) -> None:
    ansible_groups, ansible_vars = _ansible_view(source, password_file)
    fast_groups, fast_vars = _fast_view(source, password_file)
    assert fast_groups == ansible_groups
    assert fast_vars == ansible_vars


@pytest.mark.parametrize("source", VALID_SOURCES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_valid_inventories_take_the_fast_path_with_ansibles_values(source: Path) -> None:
    password = PROD_PASSWORD if source == PROD else None
    _assert_same_view(source, password)


def test_the_prod_vault_value_is_decrypted_and_templated() -> None:
    _, hostvars = _fast_view(PROD, PROD_PASSWORD)
    password = hostvars["leaf01"]["ansible_password"]
    assert password and "{{" not in password
    assert hostvars["leaf01"]["vault_switch_password"] == password


def _load(source: Path, loader: str, **kwargs: Any) -> Any:
    previous = os.environ.get(LOADER_ENV)
    os.environ[LOADER_ENV] = loader
    try:
        return load_inventory(source, **kwargs)
    except InventoryInvalidError as error:
        return ("invalid", [str(problem) for problem in error.problems])
    finally:
        if previous is None:
            del os.environ[LOADER_ENV]
        else:
            os.environ[LOADER_ENV] = previous


@pytest.mark.parametrize(
    "source",
    VALID_SOURCES + BROKEN_SOURCES,
    ids=lambda p: str(p.relative_to(REPO_ROOT)),
)
def test_load_inventory_gives_what_ansibles_loader_gives(source: Path) -> None:
    assert _load(source, "auto") == _load(source, "ansible")


def test_load_inventory_with_the_vault_password_matches() -> None:
    args = {"vault_password_file": PROD_PASSWORD}
    assert _load(PROD, "auto", **args) == _load(PROD, "ansible", **args)


@pytest.mark.parametrize(
    "pattern",
    ["gpu01", "leaf*", "switches:!spine01", "gpu_nodes:&~gpu0[12]", "leaf02,gpu03", "nothing"],
)
def test_limit_selects_the_hosts_ansible_selects(pattern: str) -> None:
    fast = _load(PROD, "auto", limit=pattern)
    assert fast == _load(PROD, "ansible", limit=pattern)
    if pattern == "gpu01":
        assert list(fast.hostvars) == ["gpu01"]


# Folders built to hit one precedence rule each: files relative to the folder, and the host whose
# variables decide it.
PRECEDENCE_CASES: dict[str, dict[str, str]] = {
    "child_group_beats_parent_and_all": {
        "hosts.yml": "all:\n  vars: {x: from_inventory_all}\n  children:\n    parent:\n"
        "      vars: {x: from_inventory_parent}\n      children:\n        child:\n          hosts: {h1: }\n",
        "group_vars/all.yml": "x: group_vars_all\ny: all\n",
        "group_vars/parent.yml": "x: group_vars_parent\n",
        "group_vars/child.yml": "x: group_vars_child\n",
    },
    "inventory_group_vars_lose_to_group_vars_files": {
        "hosts.yml": "g:\n  vars: {x: inventory, z: only_inventory}\n  hosts: {h1: }\n",
        "group_vars/all/main.yml": "x: all_file\n",
    },
    "same_depth_sorted_by_priority_then_name": {
        "hosts.yml": "b:\n  vars: {ansible_group_priority: 5}\n  hosts: {h1: }\na:\n  hosts: {h1: }\n"
        "c:\n  hosts: {h1: }\n",
        "group_vars/a.yml": "x: a\ny: a\n",
        "group_vars/b.yml": "x: b\n",
        "group_vars/c.yml": "x: c\ny: c\n",
    },
    "host_vars_beat_inventory_host_vars": {
        "hosts.yml": "g:\n  hosts:\n    h1: {x: inventory, keep: yes}\n    h2:\n",
        "host_vars/h1/a.yml": "x: folder_a\n",
        "host_vars/h1/b.yaml": "x: folder_b\n",
        "host_vars/h1/.hidden.yml": "x: hidden\n",
        "host_vars/h1/backup.yml~": "x: backup\n",
        "host_vars/h2": "x: no_extension\n",
    },
    "file_without_extension_wins_over_yml": {
        "hosts.yml": "g:\n  hosts: {h1: }\n",
        "group_vars/g": "x: no_extension\n",
        "group_vars/g.yml": "x: yml\n",
        "group_vars/all.json": '{"j": [1, 2], "x": "json"}\n',
    },
    "jinja_in_values": {
        "hosts.yml": "g:\n  hosts: {h1: , h2: }\n",
        "group_vars/g.yml": "base: 10\nport: '{{ base + 1 }}'\nname: '{{ inventory_hostname }}-x'\n"
        "nested: {list: ['{{ groups.g | length }}', '{{ group_names | join(\",\") }}']}\n",
    },
    "ungrouped_and_top_level_hosts": {
        "hosts.yml": "all:\n  hosts: {lonely: }\n  children:\n    g:\n      hosts: {h1: }\n",
        "group_vars/ungrouped.yml": "x: ungrouped\n",
    },
    "yaml_1_1_scalars_anchors_and_merge_keys": {
        "hosts.yml": "g:\n  hosts: {h1: }\n",
        "group_vars/g.yml": "flags: [yes, No, on, OFF, true, ~, null, '']\n"
        "numbers: [0o17, 017, 0x1f, 1_000, 1:30,"
        " 3.5, .inf, -.Inf, 1e3, '42']\nwhen: 2026-12-01\nstamp: 2026-12-01 10:00:00\n"
        "base: &base {mtu: 9216, speed: 400}\nport: {<<: *base, speed: 100}\nsame: *base\nempty:\n",
    },
    "two_inventory_files_and_ignored_ones": {
        "a.yml": "g:\n  hosts: {h1: }\n",
        "b.yaml": "g:\n  hosts: {h2: }\n  vars: {x: b}\n",
        "notes.md": "not an inventory\n",
        "old.cfg": "[x]\n",
    },
}


@pytest.mark.parametrize("name", PRECEDENCE_CASES)
def test_precedence_rules_match_ansible(tmp_path: Path, name: str) -> None:
    for relative, text in PRECEDENCE_CASES[name].items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _assert_same_view(tmp_path, None)


@pytest.mark.parametrize(
    "files",
    [
        {"hosts.ini": "[g]\nh1\n"},
        {"hosts.yml": "g:\n  hosts:\n    node[01:03]:\n"},
        {"hosts.yml": "plugin: constructed\n"},
        {"hosts.yml": "g:\n  hosts: {h1: }\n", "expected/leaf01.cfg": "hostname leaf01\n"},
        {
            "hosts.yml": "g:\n  hosts: {h1: }\n",
            "group_vars/g.yml": "x: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n",
        },
    ],
    ids=["ini", "host_range", "inventory_plugin", "folder_without_inventory", "inline_vault"],
)
def test_sources_the_fast_path_does_not_reproduce_go_to_ansible(
    tmp_path: Path, files: dict[str, str]
) -> None:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with pytest.raises(Unhandled):
        read_folder(tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: [x, 'y', \"z\"]\n",
        "- yes\n- no\n- On\n- off\n- y\n- n\n- ~\n- Null\n",
        "[0o17, 017, 0x1F, -0b101, 1_000, 190:20:30, 6.8523015e+5, 685_230.15, .NaN, -.inf]\n",
        "when: 2026-12-01\nat: 2001-12-14t21:59:43.10-05:00\n",
        "base: &b {x: 1}\nmerged: {<<: *b, y: 2}\nalias: *b\n",
        "? [complex, key]\n: value\n",
        "!!binary aGVsbG8=\n",
        "",
        "just a string\n",
        "{'quoted': '{{ jinja }}', plain: {{ not_yaml }}}\n",
    ],
)
def test_the_fast_yaml_reader_gives_safeloaders_values(text: str) -> None:
    import yaml

    from gpunet.model import folder_inventory

    try:
        expected = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        with pytest.raises(Unhandled):
            folder_inventory._load_yaml(text)
        return
    got = folder_inventory._load_yaml(text)
    if expected != expected:  # NaN
        assert got != got
    else:
        assert repr(got) == repr(expected)
