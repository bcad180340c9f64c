"""Where a project's intended/ and backups/ folders are: found from the inventory, never from the
working directory.

`gpunet render`, `gpunet drift`, the gpunet.fabric.render task and the switch_qos push all read
and write `<project>/intended/<fabric>/`, where the project is

- the folder that holds the `inventories/` folder the inventory is in (the checkout's layout:
  `inventories/prod` or `inventories/prod/hosts.yml` -> the checkout), else
- the folder that holds the inventory (an inventory folder's parent, an inventory file's folder):
  never inside an inventory folder, whose every file Ansible would read as an inventory source.

Running from another folder therefore writes no second intended/. `--out`, `--intended-dir`,
`out_dir` and `switch_qos_intended_dir` override it (docs/switch-rendering.md). The push's
running-config backups go to `<project>/backups/` by the same rule (`switch_qos_backup_dir`
overrides it): beside the playbooks would be inside an installed collection, which the next
`ansible-galaxy collection install --force` replaces.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

INVENTORIES = "inventories"
INTENDED = "intended"
BACKUPS = "backups"


def project_dir(inventory: str | Path) -> Path:
    """The project an inventory (folder or file) belongs to, as an absolute path."""
    path = Path(inventory).expanduser().resolve()
    holder = path if path.is_dir() else path.parent
    for folder in (holder, *holder.parents):
        if folder.name == INVENTORIES:
            return folder.parent
    return path.parent


def project_root(inventories: str | Path | Iterable[str | Path], folder: str = "project") -> Path:
    """The one project of one inventory or of several (ansible-playbook -i a -i b); ValueError naming
    them when they belong to different projects or there is none. `folder` names what is looked for."""
    sources = [inventories] if isinstance(inventories, str | Path) else list(inventories)
    projects = sorted({project_dir(source) for source in sources})
    if len(projects) != 1:
        named = ", ".join(str(source) for source in sources) or "none"
        raise ValueError(
            f"cannot tell which project's {folder} to use: the inventories ({named}) belong to "
            f"{len(projects)} projects; give the folder explicitly"
        )
    return projects[0]


def intended_root(inventories: str | Path | Iterable[str | Path]) -> Path:
    """`<project>/intended`, where renders are written and pushes read."""
    return project_root(inventories, f"{INTENDED}/") / INTENDED


def backups_root(inventories: str | Path | Iterable[str | Path]) -> Path:
    """`<project>/backups`, where pushes keep the running configs they replace."""
    return project_root(inventories, f"{BACKUPS}/") / BACKUPS
