"""Where a project's intended/ folder is: found from the inventory, never from the working directory.

`gpunet render`, `gpunet drift`, the gpunet.fabric.render task and the switch_qos push all read
and write `<project>/intended/<fabric>/`, where the project is

- the folder that holds the `inventories/` folder the inventory is in (the checkout's layout:
  `inventories/prod` or `inventories/prod/hosts.yml` -> the checkout), else
- the folder that holds the inventory (an inventory folder's parent, an inventory file's folder):
  never inside an inventory folder, whose every file Ansible would read as an inventory source.

Running from another folder therefore writes no second intended/. `--out`, `--intended-dir`,
`out_dir` and `switch_qos_intended_dir` override it (docs/switch-rendering.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

INVENTORIES = "inventories"
INTENDED = "intended"


def project_dir(inventory: str | Path) -> Path:
    """The project an inventory (folder or file) belongs to, as an absolute path."""
    path = Path(inventory).expanduser().resolve()
    holder = path if path.is_dir() else path.parent
    for folder in (holder, *holder.parents):
        if folder.name == INVENTORIES:
            return folder.parent
    return path.parent


def intended_root(inventories: str | Path | Iterable[str | Path]) -> Path:
    """`<project>/intended` for one inventory or for several that share a project (ansible-playbook
    -i a -i b); ValueError naming them when they belong to different projects or there is none."""
    sources = [inventories] if isinstance(inventories, str | Path) else list(inventories)
    projects = sorted({project_dir(source) for source in sources})
    if len(projects) != 1:
        named = ", ".join(str(source) for source in sources) or "none"
        raise ValueError(
            f"cannot tell which project's intended/ to use: the inventories ({named}) belong to "
            f"{len(projects)} projects; give the folder explicitly"
        )
    return projects[0] / INTENDED
