"""Read the artifacts folder: raw outputs by path, parsed on first use.

Layout (written by playbooks/verify.yml):
    manifest.json
    hosts/<host>/<tool>.txt                     e.g. ibstat.txt, mlnx_qos.<netdev>.txt
    pairs/<round>/<client>__<server>__<nic>.<tool>.txt   tool: ib_write_bw, ib_read_lat
    pairs/iperf3/<client>__<server>.iperf3.txt
    nccl/<run>.txt
    switches/<switch>/<before|after>/<tool>.txt
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from gpunet.validate.manifest import Manifest, read_manifest
from gpunet.validate.parsers import ParseError, parse


class InputError(Exception):
    """A check's input is missing or unreadable; the message says which file and why."""


class Artifacts:
    def __init__(self, root: Path, manifest: Manifest | None = None) -> None:
        self.root = root
        self.manifest = manifest or read_manifest(root)
        self.last_read: str | None = None  # named by the error result of a check that crashes

    def parsed(self, relative: str, tool: str) -> dict[str, Any]:
        self.last_read = relative
        path = self.root / relative
        try:
            status = path.stat()
            version: tuple[int, int] | None = (status.st_mtime_ns, status.st_size)
        except OSError:
            version = None
        # The file's version is part of the cache key: a file rewritten between two judgements
        # (a test, a re-collection) is parsed again.
        return _parse_file(path, tool, relative, version)

    def host(self, host: str, tool: str, qualifier: str = "") -> dict[str, Any]:
        name = f"{tool}.{qualifier}" if qualifier else tool
        return self.parsed(f"hosts/{host}/{name}.txt", tool)

    def pair_file(self, round_index: int, client: str, server: str, nic: str, tool: str) -> str:
        return f"pairs/{round_index}/{client}__{server}__{nic}.{tool}.txt"

    def switch(self, switch: str, phase: str, tool: str) -> dict[str, Any]:
        try:
            return self.parsed(f"switches/{switch}/{phase}/{tool}.txt", tool)
        except InputError as error:
            # The collection leaves the reason a whole switch could not be read (unreachable, host key).
            reason_file = self.root / "switches" / switch / phase / "collection-error.txt"
            if reason_file.is_file():
                raise InputError(f"{error}: {reason_file.read_text().strip()}") from None
            raise


@cache
def _parse_file(path: Path, tool: str, relative: str, version: tuple[int, int] | None) -> dict[str, Any]:
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        raise InputError(f"{relative} was not collected") from None
    except OSError as error:
        raise InputError(f"{relative}: {error.strerror}") from None
    try:
        return parse(tool, text)
    except ParseError as error:
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), "empty file")
        raise InputError(f"{relative}: {error} (output starts: {first_line[:120]!r})") from None
