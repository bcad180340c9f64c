"""Reuse a switch's files from the last render when nothing that goes into them changed.

The templates print from one plain dict per switch (`design_switch`) and nothing else; printing is
most of `gpunet render` (2,560 SONiC documents at 8,192 hosts). So each render records, per output
folder, each switch's input digest (BLAKE2b of the structured config in a canonical spelling,
together with a fingerprint of every template and of this package's code) and the sha256 of the
two files it wrote. The next render of that folder takes a switch's files from disk instead of
printing them when the input digest is the same and both files still have the recorded sha256
(a hand edit, a deleted file or a changed template means printing again). Written to
`$XDG_CACHE_HOME/gpunet/render/` (see gpunet.cachedir); `GPUNET_RENDER_CACHE=off` turns it off.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from gpunet.cachedir import cache_file, read_records, write_records
from gpunet.model.inventory_key import package_files
from gpunet.render.manifest import digest

CACHE_ENV = "GPUNET_RENDER_CACHE"
FORMAT = "gpunet-render-cache-1"


class RenderReuse:
    """The last render's records for one output folder."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.path = cache_file("render", CACHE_ENV, str(out_dir.absolute()))
        self._stored = read_records(self.path, FORMAT) if self.path is not None else {}
        self._records: dict[str, tuple[bytes, str, str]] = {}

    def input_digest(self, structured: dict[str, Any], kind: str) -> bytes | None:
        if self.path is None:
            return None
        try:
            spelled = orjson.dumps(structured, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        except (TypeError, orjson.JSONEncodeError):
            return None  # a value without one spelling: always print
        return hashlib.blake2b(_code_fingerprint() + kind.encode() + spelled, digest_size=20).digest()

    def previous(self, name: str, key: bytes | None) -> tuple[str, str] | None:
        """The switch's config and summary as on disk, when they are what `key` would print."""
        stored = self._stored.get(name)
        if key is None or stored is None or stored[0] != key:
            return None
        try:
            config = (self.out_dir / f"{name}.cfg").read_text()
            summary = (self.out_dir / f"{name}.md").read_text()
        except (OSError, UnicodeDecodeError):
            return None
        if digest(config) != stored[1] or digest(summary) != stored[2]:
            return None
        return config, summary

    def record(self, name: str, key: bytes | None, config_digest: str, summary_digest: str) -> None:
        """The switch's input key and the digests (manifest.digest) of the config and summary."""
        if key is not None:
            # A play's host names are Ansible's tagged str subclass, which marshal refuses.
            self._records[name.encode().decode()] = (key, config_digest, summary_digest)

    def flush(self) -> None:
        """Store this render's records (call only after the files were written)."""
        if self.path is None or self._records == self._stored:
            return
        write_records(self.path, FORMAT, self._records)  # unstorable: the next render prints again


@cache
def _code_fingerprint() -> bytes:
    """Every template and every module of gpunet.render: a change to any of them prints again."""
    hasher = hashlib.blake2b(digest_size=20)
    for folder in ("templates", "render"):
        for name, entry in sorted(package_files(resources.files("gpunet") / folder, folder)):
            if name.endswith((".j2", ".py", ".yml")):
                hasher.update(name.encode() + b"\0" + entry.read_bytes())
    return hasher.digest()
