"""`gpunet node-check-bundle`: the node check as one self-contained zipapp the controller copies to
GPU hosts, so a node needs only a Python interpreter, never a package index the operator did not
name (gpunet is not published on one) nor a virtualenv tool the distribution may lack.

The archive holds the controller's own gpunet (the code that derived the expectations) and the pure
Python of what node-check imports (PyYAML's Python half, prometheus_client, rich), taken from the
controller's installed packages; C extensions are left out, since the node's interpreter may differ.
It is byte-for-byte the same for the same installed code (fixed entry times), so copying it again
changes nothing. Its entry point refuses an interpreter older than gpunet's own floor with a clear
line instead of a SyntaxError.
"""

from __future__ import annotations

import importlib.util
import io
import zipfile
from pathlib import Path

# What node-check imports beyond the standard library (gpunet.nodecheck.cli:main says which).
PACKAGES = ("gpunet", "yaml", "prometheus_client", "rich")
# Parts of gpunet no node check reads: the lab (its container images and switch simulator).
SKIPPED = ("gpunet/lab/",)
MINIMUM_PYTHON = (3, 11)  # pyproject.toml requires-python
ENTRY_TIME = (2020, 1, 1, 0, 0, 0)

MAIN = f"""import sys

if sys.version_info < {MINIMUM_PYTHON!r}:
    found = ".".join(str(part) for part in sys.version_info[:3])
    print(
        f"gpunet node-check: needs Python {MINIMUM_PYTHON[0]}.{MINIMUM_PYTHON[1]} or newer; "
        f"{{sys.executable}} is {{found}}. Set slurm_healthcheck_python to a newer interpreter.",
        file=sys.stderr,
    )
    sys.exit(2)

from gpunet.nodecheck.cli import main

sys.exit(main())
"""


def package_root(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{name} is not installed on the controller: node-check needs it")
    return Path(next(iter(spec.submodule_search_locations)))


def bundle_members() -> list[tuple[str, Path]]:
    """(archive name, file) for every file the bundle carries, sorted for a stable archive."""
    members = []
    for name in PACKAGES:
        root = package_root(name)
        for path in root.rglob("*"):
            relative = f"{name}/{path.relative_to(root).as_posix()}"
            compiled = "__pycache__" in path.parts or path.suffix in (".pyc", ".so", ".pyd", ".c")
            if path.is_file() and not compiled and not relative.startswith(SKIPPED):
                members.append((relative, path))
    return sorted(members)


def build_bundle() -> bytes:
    buffer = io.BytesIO()
    buffer.write(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for relative, path in [("__main__.py", None), *bundle_members()]:
            info = zipfile.ZipInfo(relative, ENTRY_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            data = MAIN.encode() if path is None else path.read_bytes()
            archive.writestr(info, data)
    return buffer.getvalue()


def write_bundle(output: Path) -> int:
    data = build_bundle()
    output.parent.mkdir(parents=True, exist_ok=True)
    if not (output.exists() and output.read_bytes() == data):
        output.write_bytes(data)
        output.chmod(0o755)
    print(f"{output}: {len(data)} bytes")
    return 0
