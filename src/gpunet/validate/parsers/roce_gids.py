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
    for line in content_lines(text):
        match = _ENTRY.match(line.strip())
        if match is None:
            continue
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
