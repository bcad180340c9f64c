"""Pack an installed collection (a folder with MANIFEST.json and FILES.json) as a collection artifact.

scripts/build-ee.sh uses it for the collections gpunet's roles need (requirements.yml), taken from
the `ansible` package installed here, because no Galaxy is reachable to download them. The package
ships each collection without some files FILES.json lists (its tests, CI files), and ansible-galaxy
checks every listed file's checksum on install, so FILES.json is cut down to the files present and
its new checksum written into MANIFEST.json, as `ansible-galaxy collection build` would have.

    python scripts/pack-installed-collection.py SOURCE_DIR OUTPUT.tar.gz
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tarfile
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


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pack(Path(sys.argv[1]), Path(sys.argv[2]))
