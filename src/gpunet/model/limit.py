"""Ansible host patterns (`--limit`) over group membership, matched by Ansible's own code."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def hosts_matching(groups: Mapping[str, Iterable[str]], pattern: str) -> set[str]:
    """Names of the hosts that `pattern` selects, given each group's hosts.

    Ansible's InventoryManager is filled in memory (no files are read) so patterns mean exactly
    what they mean to ansible-playbook: globs, `~regex`, `group:&other`, `!excluded`, `@file`.
    """
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader

    inventory = InventoryManager(loader=DataLoader(), sources=None, parse=False)
    data = inventory._inventory
    for group, hosts in groups.items():
        data.add_group(group)
        for host in hosts:
            data.add_host(host, group=group)
    inventory.subset(pattern)
    return {host.name for host in inventory.get_hosts("all")}
