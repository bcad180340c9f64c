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

The record is bounded: an entry whose stored form is more than RECORD_FACTOR times its file's
size (plus ENTRY_SLACK) is used but not stored, since what YAML aliases expand to can be far
larger than the file (a 400-byte anchor file once left a 2.45 GB record; aliases are bounded now,
model/yaml_bounds.py, and this bounds what they may still add). The folder is capped as every
cache folder is (cachedir.MAX_FOLDER_BYTES, least recently written out first); `gpunet cache`
says where it is.

`GPUNET_PARSE_CACHE=off` turns it off; `GPUNET_PARSE_CACHE=DIR` puts it in DIR. A missing,
unreadable or foreign cache file is treated as empty (and rewritten), never as an error.
"""

from __future__ import annotations

import hashlib
import marshal
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


# Plain YAML stores at about 0.6 times its size (the 63 MB 8,192-host inventory: a 37 MB record);
# values aliases repeat store at their expanded size.
RECORD_FACTOR = 4
ENTRY_SLACK = 4096


class ParseCache:
    """Parsed values by content digest for one inventory source; `flush` writes what was used."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stored = read_records(path, FORMAT) if path is not None else {}
        self._used: dict[bytes, Any] = {}
        self._new_sizes: dict[bytes, int] = {}  # source bytes of the entries parsed this run
        self._missed = False

    @property
    def is_empty(self) -> bool:
        """Nothing stored to reuse (turned off, never written, or written empty)."""
        return not self._stored

    def parse(self, raw: bytes, text: str, parse: Callable[[str], Any]) -> Any:
        if self.path is None:
            return parse(text)
        key = hashlib.blake2b(raw, digest_size=20).digest()
        if key in self._stored:
            value = self._stored[key]
        else:
            value = parse(text)
            self._missed = True
            self._new_sizes[key] = len(raw)
        self._used[key] = value
        return value

    def flush(self) -> None:
        """Write the entries this run used, when any was parsed anew or the stored set differs."""
        if self.path is None or not (self._missed or self._used.keys() != self._stored.keys()):
            return
        kept = {
            key: value
            for key, value in self._used.items()
            if key not in self._new_sizes or _stores_within(value, self._new_sizes[key])
        }
        write_records(self.path, FORMAT, kept)


def _stores_within(value: Any, source_bytes: int) -> bool:
    try:
        return len(marshal.dumps(value)) <= RECORD_FACTOR * source_bytes + ENTRY_SLACK
    except ValueError:
        return False


def cache_for(source: Path) -> ParseCache:
    """The cache of `source` (an inventory folder or file), or an inactive one when turned off."""
    return ParseCache(cache_file("inventory", CACHE_ENV, str(source.absolute())))
