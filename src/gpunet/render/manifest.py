"""The render manifest: which files in an output folder gpunet wrote, with their digests.

`gpunet render` removes a file only when the manifest lists it and its content still has the
recorded digest; everything else in the folder belongs to someone else. The file is sorted JSON,
one entry per line and nothing that changes between runs (no time, no version), so two branches
that re-render the same folder merge like the rendered files themselves.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

MANIFEST_NAME = ".gpunet-render.json"
FORMAT_VERSION = 1


class RenderFolderError(Exception):
    """The output folder cannot be used as it is; the message says why and what to do."""


def digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


def manifest_text(files: Mapping[str, str]) -> str:
    """The manifest for `files` (name -> content), byte-for-byte the same for the same files."""
    return digests_manifest_text({name: digest(content) for name, content in files.items()})


def digests_manifest_text(digests: Mapping[str, str]) -> str:
    """The manifest for files given by their digests (name -> `digest(content)`)."""
    document = {
        "files": dict(sorted(digests.items())),
        "format": FORMAT_VERSION,
        "written_by": "gpunet render",
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def read_manifest(folder: Path) -> dict[str, str] | None:
    """name -> digest of the files gpunet wrote into `folder`, or None when it has no manifest."""
    path = folder / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text())
        files = document["files"]
        if document.get("format") != FORMAT_VERSION or not isinstance(files, dict):
            raise ValueError(f"unknown format {document.get('format')!r}")
        return {str(name): str(value) for name, value in files.items()}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise RenderFolderError(
            f"{path}: not a gpunet render manifest ({error}); delete it only if gpunet wrote this folder"
        ) from None
