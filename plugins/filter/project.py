"""Filter gpunet.fabric.intended_root: the project's intended/ folder, found from the inventory.

The push (switch_qos) reads where `gpunet render` and gpunet.fabric.render write: a thin wrapper over
gpunet.project, so the CLI, the render task and the push share one rule.
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


def intended_root(inventory_sources: Any) -> str:
    sources = [inventory_sources] if isinstance(inventory_sources, str) else list(inventory_sources or [])
    try:
        return str(project.intended_root([str(source) for source in sources]))
    except ValueError as error:
        raise AnsibleFilterError(f"{error} (switch_qos_intended_dir)") from error


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return guarded_filters({"intended_root": intended_root}, GPUNET_IMPORT_ERROR)
