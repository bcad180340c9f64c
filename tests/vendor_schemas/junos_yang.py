"""Load Juniper's Junos configuration YANG (with its CLI extensions) into libyang.

Data: ../shared/vendor-schemas/junos-yang (Juniper/yang 2a696d62, 24.4/24.4R1-EVO and
24.4/24.4R1 junos-qfx, conf-with-extensions). The files are YANG 1.0 with `\\*`-style escapes inside
double-quoted strings, which YANG 1.1 parsers refuse; a backslash not starting `\\n \\t \\" \\\\` is
doubled in memory before parsing (what pyang's --lax-quote-checks tolerates). The files stay as
Juniper published them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libyang
from _libyang import ffi, lib
from libyang.util import str2c

# A double-quoted string, a single-quoted one, or a comment: only the first gets its escapes fixed.
YANG_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|//[^\n]*|/\*.*?\*/', re.S)
ESCAPE = re.compile(r"\\(.)", re.S)

# Load order: each module after the ones it imports.
MODULE_ORDER = (
    "common-ddl-extensions",
    "common-types",
    "conf-root",
    "conf-interfaces",
    "conf-class-of-service",
)


def load_junos_context(release_dir: Path) -> libyang.Context:
    context = libyang.Context(str(release_dir))
    files = sorted(release_dir.glob("*.yang"))
    for suffix in MODULE_ORDER:
        (path,) = [f for f in files if f.name.split("@")[0].endswith(suffix)]
        context.parse_module_str(strict_escapes(path.read_text()))
    return context


def strict_escapes(text: str) -> str:
    """The module text with every backslash of a double-quoted string that YANG 1.1 would refuse
    (`\\*`, `\\.`) doubled, so it means what the YANG 1.0 author meant: a literal backslash."""

    def fix_string(match: re.Match[str]) -> str:
        token = match.group(0)
        if not token.startswith('"'):
            return token
        return ESCAPE.sub(lambda e: e.group(0) if e.group(1) in 'nt"\\' else "\\\\" + e.group(1), token)

    return YANG_STRING_OR_COMMENT.sub(fix_string, text)


# POSIX bracket classes, which Python's re lacks, as the ranges they stand for in the C locale.
POSIX_CLASSES = {
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:alnum:]": "a-zA-Z0-9",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:space:]": r" \t\n\r\f\v",
}


@dataclass(frozen=True)
class PosixPattern:
    """A junos:posix-pattern: a POSIX extended regex, searched (not anchored unless it says so);
    a leading `!` means the value must not match (Juniper's convention for reserved names)."""

    text: str
    regex: re.Pattern[str]
    negated: bool

    @classmethod
    def of(cls, text: str) -> PosixPattern:
        negated = text.startswith("!")
        body = text[1:] if negated else text
        for posix, python in POSIX_CLASSES.items():
            body = body.replace(posix, python)
        return cls(text, re.compile(body), negated)

    def accepts(self, value: str) -> bool:
        return (self.regex.search(value) is None) == self.negated


@dataclass(frozen=True)
class Child:
    """What the Junos CLI needs to know about one schema node, read once."""

    name: str
    kind: str  # container, leaf, leaf-list, list
    nokeyword: bool
    empty: bool  # a leaf of type empty: the keyword alone
    keys: tuple[Child, ...]
    patterns: tuple[PosixPattern, ...]  # junos:posix-pattern of the type
    node: Any


@dataclass
class JunosSchema:
    """Resolve `set` lines against one release's configuration schema."""

    release: str
    context: libyang.Context
    root: Any
    other_top_level: frozenset[str]  # statements of release modules not bundled here
    _children: dict[str, list[Child]] = field(default_factory=dict)

    @classmethod
    def load(cls, release_dir: Path) -> JunosSchema:
        libyang.configure_logging(True)
        context = load_junos_context(release_dir)
        (root_module,) = [m.name() for m in context if m.name().endswith("conf-root")]
        root = next(context.find_path(f"/{root_module}:configuration"))
        listed = (release_dir / "release-conf-modules.txt").read_text().split()
        # junos-conf-system@2024-01-01.yang -> system; the root's own children are the bundled ones
        others = {re.sub(r"^junos(-qfx)?-conf-", "", name.split("@")[0]) for name in listed}
        return cls(release_dir.name, context, root, frozenset(others))

    def children(self, node: Any) -> list[Child]:
        key = node.schema_path()
        if key not in self._children:
            # A list's keys are read by _keys when the entry is named, not as statements inside it.
            self._children[key] = [
                self._child(c) for c in node.children() if not (c.keyword() == "leaf" and c.is_key())
            ]
        return self._children[key]

    def _child(self, node: Any) -> Child:
        kind = node.keyword()
        nokeyword = any(e.name() == "cli-feature" and e.argument() == "nokeyword" for e in node.extensions())
        empty = kind == "leaf" and node.type().base() == libyang.Type.EMPTY
        patterns: tuple[PosixPattern, ...] = ()
        if kind in ("leaf", "leaf-list"):
            patterns = tuple(
                PosixPattern.of(e.argument()) for e in node.type().extensions() if e.name() == "posix-pattern"
            )
        keys = tuple(self._child(k) for k in node.keys()) if kind == "list" else ()  # noqa: SIM118
        return Child(node.name(), kind, nokeyword, empty, keys, patterns, node)

    def value_error(self, child: Child, value: str) -> str | None:
        """Why `value` is not valid for the leaf, or None: the YANG type (libyang) and Juniper's
        junos:posix-pattern (Python re, close enough to POSIX ERE for these patterns)."""
        ret = lib.lyd_value_validate(
            self.context.cdata,
            child.node.cdata,
            str2c(value),
            len(value.encode()),
            ffi.NULL,
            ffi.NULL,
            ffi.NULL,
        )
        if ret not in (lib.LY_SUCCESS, lib.LY_EINCOMPLETE):
            error = self.context.error("invalid value")
            return f"{value!r} is not a valid {child.name}: {error}"
        for pattern in child.patterns:
            if not pattern.accepts(value):
                return f"{value!r} breaks {child.name}'s junos:posix-pattern {pattern.text!r}"
        return None

    def judge(self, line: str) -> str | None:
        """None when the `set` line resolves to a path with valid values, else why not."""
        tokens = shlex.split(line)
        if tokens[:1] != ["set"] or len(tokens) < 2:
            return "not a `set` line"
        if tokens[1] in self.other_top_level and tokens[1] not in {c.name for c in self.children(self.root)}:
            return None  # a statement of a module of this release that is not bundled here
        failure = Failure()
        if self._context(self.root, tokens, 1, failure):
            return None
        return failure.message(tokens)

    def _context(
        self, node: Any, tokens: list[str], i: int, failure: Failure, used: frozenset[str] = frozenset()
    ) -> bool:
        """Can tokens[i:] be read as statements inside `node`? Backtracks over the ways to read it.
        As the Junos CLI does, a token that names a statement here is that keyword, never the value
        of a keyword-less leaf; and a leaf takes one value per line (`used`)."""
        if i == len(tokens):
            return True
        token = tokens[i]
        children = [c for c in self.children(node) if c.name not in used]
        keywords = {c.name for c in children if not c.nokeyword}
        for child in children:
            if (
                child.nokeyword
                and token not in keywords
                and self._nokeyword(child, node, tokens, i, failure, used)
            ):
                return True
            if child.name != token or child.nokeyword:
                continue
            if child.kind == "container":
                if self._context(child.node, tokens, i + 1, failure):
                    return True
            elif child.kind == "list":
                j = self._keys(child, tokens, i + 1, failure)
                if j is not None and self._context(child.node, tokens, j, failure):
                    return True
            elif child.kind == "leaf" and child.empty:
                if self._context(node, tokens, i + 1, failure, used | {child.name}):
                    return True
            elif child.kind == "leaf":
                if self._value(child, tokens, i + 1, failure) and self._context(
                    node, tokens, i + 2, failure, used | {child.name}
                ):
                    return True
            elif child.kind == "leaf-list":
                j = self._leaf_list(child, tokens, i + 1, failure)
                if j is not None and self._context(node, tokens, j, failure, used | {child.name}):
                    return True
        failure.note(i, f"no statement {token!r} under {_where(node)}")
        return False

    def _nokeyword(
        self, child: Child, node: Any, tokens: list[str], i: int, failure: Failure, used: frozenset[str]
    ) -> bool:
        """tokens[i] read as the key of a keyword-less list or the value of a keyword-less leaf."""
        if child.kind == "list":
            j = self._keys(child, tokens, i, failure)
            return j is not None and self._context(child.node, tokens, j, failure)
        if child.kind == "leaf" and not child.empty:
            return self._value(child, tokens, i, failure) and self._context(
                node, tokens, i + 1, failure, used | {child.name}
            )
        return False

    def _value(self, child: Child, tokens: list[str], i: int, failure: Failure) -> bool:
        if i >= len(tokens):
            failure.note(i, f"{child.name} needs a value")
            return False
        error = self.value_error(child, tokens[i])
        if error:
            failure.note(i, error, value=True)
        return error is None

    def _keys(self, child: Child, tokens: list[str], i: int, failure: Failure) -> int | None:
        for key in child.keys:
            if not key.nokeyword:
                if i >= len(tokens) or tokens[i] != key.name:
                    failure.note(i, f"{child.name} wants its key {key.name}")
                    return None
                i += 1
            if not self._value(key, tokens, i, failure):
                return None
            i += 1
        return i

    def _leaf_list(self, child: Child, tokens: list[str], i: int, failure: Failure) -> int | None:
        if i < len(tokens) and tokens[i] == "[":
            try:
                end = tokens.index("]", i)
            except ValueError:
                failure.note(i, f"{child.name}: `[` without `]`")
                return None
            values = tokens[i + 1 : end]
            i = end + 1
        else:
            values = tokens[i : i + 1]
            i += 1
        if not values:
            failure.note(i, f"{child.name} needs a value")
            return None
        errors = [error for value in values if (error := self.value_error(child, value))]
        if errors:
            failure.note(i - 1, errors[0], value=True)
            return None
        return i


@dataclass
class Failure:
    """The furthest token any reading reached before it failed, and why: the most useful message."""

    position: int = -1
    reason: str = ""
    is_value: bool = False

    def note(self, position: int, reason: str, *, value: bool = False) -> None:
        if position > self.position or (position == self.position and value and not self.is_value):
            self.position, self.reason, self.is_value = position, reason, value

    def message(self, tokens: list[str]) -> str:
        return f"at token {self.position} ({' '.join(tokens[: self.position + 1])} ...): {self.reason}"


def _where(node: Any) -> str:
    path = node.schema_path()
    return re.sub(r"/[\w-]+:", "/", path) or "/"
