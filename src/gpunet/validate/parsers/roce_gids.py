"""The RoCE GID table of one NIC port, read from sysfs by `roles/verify_host`:
one line per entry `<index> <gid> <type> <netdev>` from
`/sys/class/infiniband/<dev>/ports/<port>/gids/<n>`, `gid_attrs/types/<n>` (spaces as `_`: `RoCE_v2`,
`IB/RoCE_v1`) and `gid_attrs/ndevs/<n>`. Unused entries (all-zero GID, no type) are dropped.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines

_ENTRY = re.compile(
    r"^(?P<index>\d+)\s+(?P<gid>[0-9a-fA-F:]{39})(?:\s+(?P<type>\S+))?(?:\s+(?P<ndev>\S+))?\s*$"
)


def parse_roce_gids(text: str) -> dict[str, Any]:
    gids: list[dict[str, Any]] = []
    seen: set[int] = set()
    matched = False
    for number_, line in enumerate(content_lines(text), 1):
        match = _ENTRY.match(line.strip())
        if match is None:
            # An index alone: the entry's gid file could not be read (the script's cat failed).
            if not line.strip() or line.strip().isdigit():
                continue
            raise ParseError(
                f"line {number_}: expected '<index> <gid: 8 groups of 4 hex digits> [<type> <netdev>]', "
                f"got {line.strip()[:80]!r} (a cut or damaged line)"
            )
        matched = True
        index = int(match["index"])
        if index in seen:
            raise ParseError(f"GID index {index} is listed twice (a duplicated capture)")
        seen.add(index)
        gid = match["gid"].lower()
        if set(gid) <= {"0", ":"} or not match["type"]:
            continue
        gids.append(
            {"index": index, "gid": gid, "type": match["type"].replace("_", " "), "ndev": match["ndev"]}
        )
    if not matched:
        raise ParseError("no '<index> <gid> <type> <netdev>' line: not a sysfs GID table listing")
    return {"gids": sorted(gids, key=lambda entry: entry["index"])}
