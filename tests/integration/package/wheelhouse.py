"""A local wheelhouse of gpunet's dependencies, repacked from the test venv's installed copies.

So a fresh virtualenv can `pip install .` with no index at all (`--no-index --find-links`) and
still resolve every dependency for real: this machine's package indexes lack ansible, ansible-core,
netmiko, ansible-runner and hier-config, and CI must not need the network. Only what
pyproject.toml's [project].dependencies and [build-system].requires pull in is packed, each at the
version installed here; a dependency missing from the test venv fails by name. The wheels are
stored uncompressed under .cache/ (gitignored), keyed by every packed name and version, so a
second run reuses them.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# pip writes these itself on install; a wheel must not carry them.
_INSTALLER_FILES = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}
_BIN = "../../../bin/"


def requirements_of(pyproject: Path) -> list[Requirement]:
    document = tomllib.loads(pyproject.read_text())
    names = document["project"]["dependencies"] + document["build-system"]["requires"]
    return [Requirement(name) for name in names]


def closure(roots: list[Requirement]) -> list[metadata.Distribution]:
    """The installed distributions `roots` need, transitively (extras only where a requirement names them)."""
    installed = {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()}
    found: dict[str, metadata.Distribution] = {}
    pending = [(req, "") for req in roots]
    while pending:
        req, extra = pending.pop()
        if req.marker and not req.marker.evaluate({**default_environment(), "extra": extra}):
            continue
        name = canonicalize_name(req.name)
        if name not in installed:
            raise LookupError(f"{req} is required but not installed in the test venv (run scripts/setup.sh)")
        dist = installed[name]
        for wanted in ("", *sorted(req.extras)):
            key = f"{name}[{wanted}]"
            if key in found:
                continue
            found[key] = dist
            pending += [(Requirement(r), wanted) for r in dist.requires or []]
    return list({canonicalize_name(d.metadata["Name"]): d for d in found.values()}.values())


def build(cache: Path, pyproject: Path) -> Path:
    """The wheelhouse folder for pyproject's dependencies, built once per set of versions."""
    dists = sorted(closure(requirements_of(pyproject)), key=lambda d: canonicalize_name(d.metadata["Name"]))
    pins = "\n".join(f"{d.metadata['Name']}=={d.version}" for d in dists)
    folder = cache / hashlib.sha256(pins.encode()).hexdigest()[:16]
    if (folder / "complete").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for dist in dists:
        repack(dist, folder)
    (folder / "complete").write_text(pins + "\n")
    return folder


def repack(dist: metadata.Distribution, out: Path) -> Path:
    """One installed distribution as a wheel: its RECORD's files, scripts as .data/scripts."""
    name, version = dist.metadata["Name"], dist.version
    stem = f"{re.sub(r'[-_.]+', '_', name)}-{version}"
    info = f"{stem}.dist-info"
    wheel_text = dist.read_text("WHEEL") or "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    lines = wheel_text.splitlines()
    tags = [line.split(":", 1)[1].strip().split("-") for line in lines if line.startswith("Tag:")]
    # The compressed tag set (py2.py3-none-any): a WHEEL may list py2-none-any before py3-none-any.
    tag = "-".join(".".join(sorted({t[part] for t in tags})) for part in range(3))
    entry_points = {ep.name for ep in dist.entry_points if ep.group in ("console_scripts", "gui_scripts")}
    target = out / f"{stem}-{tag}.whl"
    records: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as wheel:

        def add(arcname: str, data: bytes) -> None:
            wheel.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{arcname},sha256={digest},{len(data)}")

        for file in dist.files or []:
            path = file.as_posix()
            if "__pycache__" in path or path.endswith(".pyc"):
                continue
            if path.startswith(_BIN):
                script = path[len(_BIN) :]
                if script in entry_points or "/" in script:
                    continue  # pip writes entry points itself
                data = Path(dist.locate_file(file)).read_bytes()
                first, _, rest = data.partition(b"\n")
                if first.startswith(b"#!") and b"python" in first:
                    data = b"#!python\n" + rest  # pip points it at the new venv's interpreter
                add(f"{stem}.data/scripts/{script}", data)
                continue
            if path.startswith("..") or path.split("/", 1)[0].endswith(".dist-info"):
                continue
            add(path, Path(dist.locate_file(file)).read_bytes())
        for member in ("METADATA", "entry_points.txt", "top_level.txt"):
            text = dist.read_text(member)
            if text is not None and member not in _INSTALLER_FILES:
                add(f"{info}/{member}", text.encode())
        add(f"{info}/WHEEL", wheel_text.encode())
        wheel.writestr(f"{info}/RECORD", "\n".join([*records, f"{info}/RECORD,,"]) + "\n")
    return target
