"""The gpunet_* variable names that roles declare in meta/argument_specs.yml.

The inventory check rejects unknown gpunet_* names (a typo would otherwise be ignored silently);
names a role declares are role knobs, not model keys, and are allowed.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@cache
def role_variables(roles_dir: Path = PROJECT_ROOT / "roles") -> frozenset[str]:
    names: set[str] = set()
    for spec_file in sorted(roles_dir.glob("*/meta/argument_specs.yml")):
        specs = yaml.safe_load(spec_file.read_text()) or {}
        for entry in (specs.get("argument_specs") or {}).values():
            names.update(name for name in (entry.get("options") or {}) if name.startswith("gpunet_"))
    return frozenset(names)
