"""A switch's running configuration as a tree of CLI lines (sub-mode lines under their parent).

LAB EQUIPMENT: part of gpunet's switch simulator, not a switch OS.
Where a line belongs is decided by the platform grammar (gpunet.grammar), never by indentation
guesses: see `place_line`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from gpunet.lab.switchsim.storage import StorageRules


class LineGrammar(Protocol):
    def accept(self, mode_stack: tuple[str, ...], line: str) -> tuple[str, ...]: ...


@dataclass
class Node:
    line: str
    children: list[Node] = field(default_factory=list)

    def child(self, line: str) -> Node | None:
        return next((c for c in self.children if c.line == line), None)


def place_line(grammar: LineGrammar, stack: tuple[str, ...], line: str) -> tuple[int, tuple[str, ...]]:
    """Where `line`, typed in mode `stack`, lands: (depth of the line, the new mode stack).

    The grammar says which mode stack results; the shallowest level of `stack` that yields the
    same result is where the line sits (a line valid in a parent mode pops back to it). Raises
    the grammar's error for an invalid line.
    """
    result = grammar.accept(stack, line)
    for depth in range(len(stack) + 1):
        try:
            if grammar.accept(stack[:depth], line) == result:
                return depth, result
        except ValueError:
            continue
    return len(stack), result


class ConfigTree:
    """Ordered, de-duplicated tree of configuration lines, stored as the OS stores them: a
    statement with one value replaces its previous value (`rules`: the simulator's own data,
    gpunet.lab.switchsim.storage)."""

    def __init__(self, indent: int = 2, rules: StorageRules | None = None) -> None:
        self.root = Node("")
        self.indent = indent
        self.rules = rules

    @classmethod
    def from_lines(cls, lines: list[str], indent: int = 2, rules: StorageRules | None = None) -> ConfigTree:
        tree = cls(indent, rules)
        path: list[Node] = [tree.root]
        for raw in lines:
            if not raw.strip() or raw.strip() == "!":
                continue
            depth = (len(raw) - len(raw.lstrip(" "))) // indent
            del path[depth + 1 :]
            parent = path[min(depth, len(path) - 1)]
            node = parent.child(raw.strip()) or _append(parent, raw.strip())
            path.append(node)
        return tree

    def to_lines(self) -> list[str]:
        lines: list[str] = []

        def walk(node: Node, depth: int) -> None:
            for child in node.children:
                lines.append(" " * (self.indent * depth) + child.line)
                walk(child, depth + 1)

        walk(self.root, 0)
        return lines

    def apply(self, parents: list[str], line: str) -> None:
        """Add `line` under the context `parents` (or remove it for a `no ...` line)."""
        node = self.root
        for parent in parents:
            node = node.child(parent) or _append(node, parent)
        key = self.rules.replace_key(line) if self.rules else None
        if line.startswith("no ") and not (self.rules and self.rules.shown_negated(line)):
            target = line[3:]
            node.children = [
                c for c in node.children if c.line != target and not (key == target and self._key(c) == key)
            ]
            return
        if key is not None:  # set again: the new value replaces the old one
            node.children = [c for c in node.children if c.line == line or self._key(c) != key]
        if node.child(line) is None:
            _append(node, line)

    def _key(self, node: Node) -> str | None:
        return self.rules.replace_key(node.line) if self.rules else None

    def copy(self) -> ConfigTree:
        return ConfigTree.from_lines(self.to_lines(), self.indent, self.rules)


def _append(parent: Node, line: str) -> Node:
    node = Node(line)
    parent.children.append(node)
    return node


class ConfigEditor:
    """Feeds CLI lines typed in configuration mode into a tree, tracking the mode stack."""

    def __init__(self, grammar: LineGrammar, tree: ConfigTree) -> None:
        self.grammar = grammar
        self.tree = tree
        self.stack: tuple[str, ...] = ()
        self.context: list[str] = []  # the lines that opened the modes in `stack`

    def feed(self, line: str) -> None:
        """Apply one line; raises the grammar's error (a ValueError) when the OS would reject it."""
        if line == "exit":
            self.stack, self.context = self.stack[:-1], self.context[:-1]
            return
        depth, new_stack = place_line(self.grammar, self.stack, line)
        parents = self.context[:depth]
        self.tree.apply(parents, line)
        self.context = [*parents, line] if len(new_stack) > depth else parents
        self.stack = new_stack
