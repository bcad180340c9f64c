"""YAML that may be read: aliases under a bound, no duplicate keys, no alias that contains itself.

An alias is a second name for a node, so a 404-byte file of nine anchors, each a list of nine
aliases of the one before, is a tree of 9**9 nodes once walked: every reader that walks values
(to plain Python, into the parse cache, into a JSON Schema check, into an error message) walks it
all. A file's composed node tree is measured here, each distinct node once, before anything
walks it.

A key given twice in one mapping is an error naming the file and line, worded as Ansible's loader
words it with DUPLICATE_YAML_DICT_KEY=error; gpunet checks the files Ansible's loader reads the
same way (`loader_errors.refuse_unreadable`), so both paths report the same line. A key beside a
merge key (`<<: *base`) overrides the merged one, as YAML's merge type says: not a duplicate.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# Nodes aliases may add to one file's tree. Inventories repeat a port or NIC block through an
# anchor a few hundred times (a few thousand nodes); the bomb above adds 387 million.
MAX_ALIAS_NODES = 1_000_000
MERGE_TAG = "tag:yaml.org,2002:merge"


# Where an alias may start: a node begins after a line start, blank, `[`, `{` or `,`. Text with
# no match has no alias (a `*` inside a word, `Ethernet*` or `10.0.*`, is none): the tree walk is
# skipped (it costs about a third of composing).
MAY_HOLD_ALIAS = re.compile(r"(?:^|[\s\[{,])\*")


class YamlRefused(ValueError):
    """The YAML is well formed but not read; `line` (1-based) where one is known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def check_tree(root: Node) -> None:
    """Raise YamlRefused when `root`'s aliases expand past MAX_ALIAS_NODES (at the line of the
    largest node an alias repeats), an alias holds its own node, or a mapping holds a key twice.
    Linear in the distinct nodes, and iterative: a deep tree needs no recursion."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    largest_repeated: tuple[int, Node | None] = (0, None)
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            continue
        if key in sizes:  # reached again: an alias
            if sizes[key] > largest_repeated[0]:
                largest_repeated = (sizes[key], node)
            continue
        if key in open_nodes:
            raise YamlRefused("a YAML alias refers to a node that holds it", _line(node))
        open_nodes.add(key)
        if type(node) is MappingNode:
            _check_keys(node)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))
    added = sizes[id(root)] - len(sizes)
    if added > MAX_ALIAS_NODES:
        raise YamlRefused(
            f"YAML aliases expand to {sizes[id(root)]:,} nodes from {len(sizes):,}: more than the "
            f"{MAX_ALIAS_NODES:,} aliases may add (an alias bomb?)",
            _line(largest_repeated[1] or root),
        )


def duplicate_key_message(key_node: Node) -> str:
    """Ansible's words for a key given twice (ansible/_internal/_yaml/_constructor.py)."""
    return f"YAML parsing failed: Found duplicate mapping key {_key(key_node)!r}."


def _children(node: Node) -> list[Node]:
    if type(node) is MappingNode:
        return [part for pair in node.value for part in pair]
    if type(node) is SequenceNode:
        return list(node.value)
    return []


def _check_keys(node: MappingNode) -> None:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if type(key_node) is not ScalarNode or key_node.tag == MERGE_TAG:
            continue
        key = _key(key_node)
        if key in seen:
            raise YamlRefused(duplicate_key_message(key_node), _line(key_node))
        seen.add(key)


_SCALARS = SafeConstructor()


def _key(node: Node) -> Any:
    """The key's value as SafeLoader constructs it (`1` and `0x1` are one key), else its text."""
    try:
        value = _SCALARS.construct_object(node, deep=False)
        hash(value)
        return value
    except (ConstructorError, TypeError, ValueError):
        return node.value


def _line(node: Node) -> int | None:
    mark = getattr(node, "start_mark", None)
    return mark.line + 1 if mark is not None else None


def safe_load(text: str) -> Any:
    """yaml.safe_load, after check_tree: for the small YAML files gpunet reads whole (planner
    requests), where parsing twice costs nothing."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    node = yaml.compose(text, Loader=loader)
    if node is None:
        return None
    check_tree(node)
    try:
        return yaml.load(text, Loader=loader)
    except RecursionError:
        raise YamlRefused("YAML nested too deeply to read") from None
