"""What an indented CLI configuration adds to a running one (NX-OS style, merge semantics)."""

from __future__ import annotations


def config_paths(text: str, indent: int) -> list[tuple[str, ...]]:
    """Each line as the path of lines leading to it (parents first); comments and blanks dropped."""
    paths: list[tuple[str, ...]] = []
    parents: list[str] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("!"):
            continue
        depth = (len(raw) - len(raw.lstrip(" "))) // indent
        parents = parents[:depth]
        paths.append((*parents, stripped))
        parents.append(stripped)
    return paths


def missing_lines(intended: str, running: str, indent: int = 2) -> list[str]:
    """Intended lines absent from running, each with its parent lines, as a `+` diff."""
    have = set(config_paths(running, indent))
    shown: set[tuple[str, ...]] = set()
    diff: list[str] = []
    for path in config_paths(intended, indent):
        if path in have:
            continue
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            if prefix in shown:
                continue
            shown.add(prefix)
            marker = "+" if prefix == path or prefix not in have else " "
            diff.append(f"{marker} {' ' * indent * (depth - 1)}{prefix[-1]}")
    return diff
