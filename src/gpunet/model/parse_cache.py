"""Parsed YAML inventory files, kept between runs and keyed by each file's content.

libyaml composing the YAML is the floor of reading a large inventory (about 7 s of CPU for the
63 MB an 8,192-host plan writes), and an operator reads the same folder again and again: `gpunet
inventory check`, `gpunet render`, the preflight and render stages of every playbook run. So the
fast path keeps what it parsed, per inventory folder, in one file under
`$XDG_CACHE_HOME/gpunet/inventory/` (default `~/.cache`), and reads a file from it only when the
file's bytes hash to the same BLAKE2b digest: an edited file is parsed again, whatever its mtime.
Values are stored with `marshal`, which handles exactly the plain types YAML gives (dict, list,
str, int, float, bool, None) and loads them several times faster than pickle; it runs no code on
load, and the folder is created private to the user. Each run writes back only the entries it
used, so the file does not grow with old versions. A file whose text holds Jinja is cached like
any other: the caller marks its templates after the lookup.

`GPUNET_PARSE_CACHE=off` turns it off; `GPUNET_PARSE_CACHE=DIR` puts it in DIR. A missing,
unreadable or foreign cache file is treated as empty (and rewritten), never as an error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

import gpunet
from gpunet.cachedir import cache_file, read_records, write_records

CACHE_ENV = "GPUNET_PARSE_CACHE"
# Anything that changes how text becomes values invalidates every entry.
FORMAT = (
    "gpunet-parse-cache",
    1,
    gpunet.__version__,
    yaml.__version__,
    bool(getattr(yaml, "__with_libyaml__", 0)),
)


class ParseCache:
    """Parsed values by content digest for one inventory source; `flush` writes what was used."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stored = read_records(path, FORMAT) if path is not None else {}
        self._used: dict[bytes, Any] = {}
        self._missed = False

    def parse(self, raw: bytes, text: str, parse: Callable[[str], Any]) -> Any:
        if self.path is None:
            return parse(text)
        key = hashlib.blake2b(raw, digest_size=20).digest()
        if key in self._stored:
            value = self._stored[key]
        else:
            value = parse(text)
            self._missed = True
        self._used[key] = value
        return value

    def flush(self) -> None:
        """Write the entries this run used, when any was parsed anew or the stored set differs."""
        if self.path is None or not (self._missed or self._used.keys() != self._stored.keys()):
            return
        write_records(self.path, FORMAT, self._used)


def cache_for(source: Path) -> ParseCache:
    """The cache of `source` (an inventory folder or file), or an inactive one when turned off."""
    return ParseCache(cache_file("inventory", CACHE_ENV, str(source.absolute())))
