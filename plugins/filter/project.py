"""Filters gpunet.fabric.intended_root and gpunet.fabric.backups_root: the project's intended/ and
backups/ folders, found from the inventory.

The push (switch_qos) reads where `gpunet render` and gpunet.fabric.render write, and keeps its
backups in the same project: thin wrappers over gpunet.project, so the CLI, the render task and the
push share one rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import guarded_filters

try:
    from gpunet import project
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None


def _sources(inventory_sources: Any) -> list[str]:
    sources = [inventory_sources] if isinstance(inventory_sources, str) else list(inventory_sources or [])
    return [str(source) for source in sources]


def intended_root(inventory_sources: Any) -> str:
    try:
        return str(project.intended_root(_sources(inventory_sources)))
    except ValueError as error:
        raise AnsibleFilterError(f"{error} (switch_qos_intended_dir)") from error


def backups_root(inventory_sources: Any) -> str:
    try:
        return str(project.backups_root(_sources(inventory_sources)))
    except ValueError as error:
        raise AnsibleFilterError(f"{error} (switch_qos_backup_dir)") from error


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return guarded_filters(
            {"intended_root": intended_root, "backups_root": backups_root}, GPUNET_IMPORT_ERROR
        )
