"""Pack an installed collection (a folder with MANIFEST.json and FILES.json) as a collection artifact.

Two sources, both without a Galaxy:
- an installed collection folder: scripts/build-ee.sh packs ansible.posix and community.general
  from the collections path scripts/setup.sh filled (collections/ansible_collections/...);
- the `ansible` bundle's wheel, as `pip download --no-deps ansible==X` gets it from PyPI:
  scripts/setup.sh's fallback when Galaxy does not answer packs every collection requirements.yml
  and requirements-test.yml name from the wheel's ansible_collections/ and checks each version
  against its range.

The bundle ships each collection without some files FILES.json lists (its tests, CI files), and
ansible-galaxy checks every listed file's checksum on install, so FILES.json is cut down to the
files present and its new checksum written into MANIFEST.json, as `ansible-galaxy collection
build` would have.

    python scripts/pack-installed-collection.py SOURCE_DIR OUTPUT.tar.gz
    python scripts/pack-installed-collection.py --wheel ansible-X.whl --requirements requirements.yml \
        [--requirements requirements-test.yml] OUTDIR
        (writes OUTDIR/<namespace>-<name>-<version>.tar.gz per collection, prints their paths)
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path


def pack(source: Path, output: Path) -> None:
    files = json.loads((source / "FILES.json").read_text())
    files["files"] = [entry for entry in files["files"] if (source / entry["name"]).exists()]
    files_json = json.dumps(files, indent=4).encode()
    manifest = json.loads((source / "MANIFEST.json").read_text())
    manifest["file_manifest_file"]["chksum_sha256"] = hashlib.sha256(files_json).hexdigest()
    with tarfile.open(output, "w:gz") as artifact:
        for name, data in (
            ("MANIFEST.json", json.dumps(manifest, indent=4).encode()),
            ("FILES.json", files_json),
        ):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            artifact.addfile(info, io.BytesIO(data))
        for entry in files["files"]:
            artifact.add(source / entry["name"], arcname=entry["name"], recursive=False)


def requirements(path: Path) -> dict[str, str]:
    """name -> version range ("*" where none) of a requirements.yml's collections."""
    import yaml  # ansible-core's dependency; only the wheel mode needs it

    entries = yaml.safe_load(path.read_text())["collections"]
    return {entry["name"]: entry.get("version", "*") for entry in entries}


def _in_range(version: str, spec: str) -> bool:
    from packaging.specifiers import SpecifierSet  # ansible-core's dependency
    from packaging.version import Version

    return spec == "*" or Version(version) in SpecifierSet(spec)


def pack_from_wheel(wheel: Path, wanted: dict[str, str], outdir: Path) -> list[Path]:
    """Each collection of `wanted` from the wheel's ansible_collections/, as OUTDIR/ns-name-version.tar.gz."""
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with zipfile.ZipFile(wheel) as bundle, tempfile.TemporaryDirectory() as tmp:
        members = bundle.namelist()
        for name, spec in wanted.items():
            prefix = "ansible_collections/{}/{}/".format(*name.split("."))
            chosen = [m for m in members if m.startswith(prefix) and not m.endswith("/")]
            if f"{prefix}MANIFEST.json" not in chosen:
                raise SystemExit(f"{wheel.name} has no {name} (no {prefix}MANIFEST.json)")
            bundle.extractall(tmp, chosen)
            source = Path(tmp) / prefix
            version = json.loads((source / "MANIFEST.json").read_text())["collection_info"]["version"]
            if not _in_range(version, spec):
                raise SystemExit(f"{wheel.name} ships {name} {version}, outside the required range {spec}")
            output = outdir / f"{name.replace('.', '-')}-{version}.tar.gz"
            pack(source, output)
            written.append(output)
    return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--wheel", type=Path, help="the ansible bundle's wheel to pack collections from")
    parser.add_argument(
        "--requirements", type=Path, action="append", help="with --wheel: collections to pack (repeatable)"
    )
    parser.add_argument("paths", nargs="+", type=Path, help="SOURCE_DIR OUTPUT.tar.gz, or OUTDIR")
    args = parser.parse_args(argv)
    if args.wheel:
        if not args.requirements or len(args.paths) != 1:
            parser.error("--wheel needs --requirements and one OUTDIR")
        wanted = {name: spec for path in args.requirements for name, spec in requirements(path).items()}
        for path in pack_from_wheel(args.wheel, wanted, args.paths[0]):
            print(path)
    elif len(args.paths) == 2 and not args.requirements:
        pack(args.paths[0], args.paths[1])
    else:
        parser.error("give SOURCE_DIR OUTPUT.tar.gz, or --wheel WHEEL --requirements FILE OUTDIR")


if __name__ == "__main__":
    main(sys.argv[1:])
