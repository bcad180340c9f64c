"""One digest of everything a loaded inventory gives the model, and of the code that reads it.

The whole-render reuse (gpunet.render.fabric_reuse) and the check reuse (gpunet.model.check_reuse)
reuse a result only for exactly the inputs that produced it. The key is the BLAKE2b of the
inventory as the model receives it (groups, each host's model variables after templating and
vault decryption, the roles' variable names, the unread vault files), spelled with `marshal`
version 2, which writes every value with its exact type and no back-references (equal values,
equal bytes), together with every file of the gpunet package and the versions of the libraries
it depends on.
"""

from __future__ import annotations

import hashlib
import marshal
from functools import cache
from importlib import metadata, resources
from typing import Any

from gpunet.model.build import RawInventory

MARSHAL_VERSION = 2  # before version 3 marshal writes no back-references


def inventory_key(raw: RawInventory, purpose: bytes) -> bytes | None:
    """The key of `raw` for `purpose` (a name and any fingerprint of the caller's own), or None when
    a value has no exact spelling in marshal (an Ansible-tagged string, say): then nothing is
    reused."""
    try:
        spelled = marshal.dumps(
            (
                # A play's group and host names are Ansible's tagged str subclass: spell them plain.
                [(str(group), [str(member) for member in members]) for group, members in raw.groups.items()],
                [(str(host), variables) for host, variables in raw.hostvars.items()],
                sorted(raw.role_variables),
                list(raw.skipped_files),
            ),
            MARSHAL_VERSION,
        )
    except ValueError:
        return None
    return hashlib.blake2b(purpose + b"\0" + package_fingerprint() + spelled, digest_size=20).digest()


@cache
def package_fingerprint() -> bytes:
    """Every file of the gpunet package (code, templates, schemas, defaults) and the versions of
    the libraries it depends on: any change to them computes again."""
    hasher = hashlib.blake2b(digest_size=20)
    for name, entry in sorted(package_files(resources.files("gpunet"), "gpunet")):
        hasher.update(name.encode() + b"\0" + entry.read_bytes() + b"\0")
    hasher.update(repr(sorted(_dependency_versions())).encode())
    return hasher.digest()


def package_files(folder: Any, name: str) -> list[tuple[str, Any]]:
    """(path under the package, resource) of every file below `folder`, compiled files left out."""
    found = []
    for entry in folder.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                found.extend(package_files(entry, f"{name}/{entry.name}"))
        elif not entry.name.endswith((".pyc", ".pyo")):
            found.append((f"{name}/{entry.name}", entry))
    return found


def _dependency_versions() -> list[tuple[str, str]]:
    try:
        requirements = metadata.requires("gpunet") or []
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        requirements = []
    versions = []
    for requirement in requirements:
        if "extra ==" in requirement:
            continue
        package = requirement.split(";")[0].strip()
        for stop in "<>=!~[ (":
            package = package.split(stop)[0]
        try:
            versions.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            versions.append((package, "absent"))
    return versions
