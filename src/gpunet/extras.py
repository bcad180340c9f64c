"""Optional parts of gpunet and the pip extra that installs each (see pyproject.toml)."""

from __future__ import annotations

import importlib.util
import sys

# extra -> the modules it brings; kept beside [project.optional-dependencies] in pyproject.toml.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "lab": ("asyncssh", "jsonpatch"),
}
EXIT_MISSING_EXTRA = 2


def missing_modules(extra: str) -> list[str]:
    return [name for name in EXTRA_MODULES[extra] if importlib.util.find_spec(name) is None]


def require_extra(extra: str, command: str) -> bool:
    """True when the extra's modules import; else says which extra to install, on stderr."""
    missing = missing_modules(extra)
    if missing:
        print(
            f"{command} needs gpunet's '{extra}' extra ({', '.join(missing)} is not installed): "
            f"pip install 'gpunet[{extra}]'",
            file=sys.stderr,
        )
    return not missing
