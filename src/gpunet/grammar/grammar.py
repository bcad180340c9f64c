"""Load a platform grammar from its YAML file and check lines or documents against it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cache, cached_property
from importlib import resources
from typing import Any

import yaml

from gpunet.grammar.versions import parse_version
from gpunet.platforms import get_platform

TOP_MODE = "config"
# What `end` (or `exit` at the top) returns: the session has left configuration mode.
END: tuple[str, ...] = ("<exec>",)


class GrammarError(ValueError):
    """A configuration line or document the platform would reject; the message says why."""


@dataclass(frozen=True)
class Source:
    """Where a statement is documented: URL (or repository path at a commit), section, OS versions."""

    id: str
    url: str
    section: str
    versions: str
    since: str | None = None  # the first release with these statements, where the source states it


@dataclass(frozen=True)
class Command:
    pattern: re.Pattern[str]
    enter: str | None  # the sub-mode this command opens, if any
    source: Source | None = None  # every grammar entry has one; None only for derived (negated) forms
    since: str | None = None  # this entry's own first release where it is later than its source's


@dataclass(frozen=True)
class Table:
    """One config_db table of a document platform: allowed keys and fields."""

    key: re.Pattern[str]
    fields: dict[str, re.Pattern[str]]
    # Map tables (DSCP_TO_TC_MAP, ...) have data as field names: (name pattern, value pattern).
    map_fields: tuple[re.Pattern[str], re.Pattern[str]] | None = None
    source: Source | None = None


@dataclass(frozen=True)
class Grammar:
    platform: str
    kind: str  # "lines" or "document"
    sources: tuple[str, ...]  # the URLs of source_details, for reports
    modes: dict[str, tuple[Command, ...]]
    negation: str | None  # prefix that negates any valid command ("no "), if the OS has one
    tables: dict[str, Table]
    source_details: dict[str, Source] = dataclass_field(default_factory=dict)

    def source_of(self, mode_stack: tuple[str, ...], line: str) -> Source | None:
        """The source of the grammar entry that accepts `line` in `mode_stack` (or a parent mode)."""
        text = line.strip()
        for depth in range(len(mode_stack), -1, -1):
            stack = mode_stack[:depth]
            command = self._match(stack[-1] if stack else TOP_MODE, text)
            if command is not None:
                return command.source
        return None

    def accept(self, mode_stack: tuple[str, ...], line: str) -> tuple[str, ...]:
        """Return the mode stack after `line`, or raise GrammarError when the OS would reject it.

        IOS-style: a line that is not valid in the current sub-mode but valid in a parent mode
        pops back to that parent; `exit` pops one level; `end` leaves configuration mode (END).
        """
        if self.kind != "lines":
            raise GrammarError(f"{self.platform} takes a configuration document, not lines")
        if mode_stack == END:
            raise GrammarError(f"{line!r}: not in configuration mode")
        text = line.strip()
        if not text:
            return mode_stack
        if self.has_sub_modes and text == "end":
            return END
        if self.has_sub_modes and text == "exit":
            return mode_stack[:-1] if mode_stack else END
        for depth in range(len(mode_stack), -1, -1):
            stack = mode_stack[:depth]
            command = self._match(stack[-1] if stack else TOP_MODE, text)
            if command is not None:
                return (*stack, command.enter) if command.enter else stack
        where = " > ".join(mode_stack) or TOP_MODE
        raise GrammarError(f"{text!r} is not a valid command in mode {where} or its parents")

    def check_lines(self, text: str) -> None:
        """Check a whole rendered configuration, line by line from the top mode."""
        stack: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                stack = self.accept(stack, line)
            except GrammarError as error:
                raise GrammarError(f"line {number}: {error}") from None

    def check_document(self, text: str) -> None:
        """Check a config_db JSON document: known tables, keys and fields, string values."""
        if self.kind != "document":
            raise GrammarError(f"{self.platform} takes configuration lines, not a document")
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise GrammarError(f"not valid JSON: {error}") from None
        if not isinstance(document, dict):
            raise GrammarError("the document must be a JSON object of tables")
        for table_name, entries in document.items():
            table = self.tables.get(table_name)
            if table is None:
                raise GrammarError(f"unknown table {table_name!r} (known: {', '.join(sorted(self.tables))})")
            if not isinstance(entries, dict):
                raise GrammarError(f"{table_name}: must be an object of entries")
            for key, fields in entries.items():
                self._check_entry(table_name, table, key, fields)

    def check(self, text: str) -> None:
        """Check a rendered configuration whichever kind the platform takes."""
        if self.kind == "document":
            self.check_document(text)
        else:
            self.check_lines(text)

    def newer_than(self, text: str, version: tuple[int, ...]) -> list[tuple[str, str, str]]:
        """The statements of a rendered configuration that `version` lacks: (statement, first release,
        source id), one per distinct statement form (lines) or table (documents)."""
        found: dict[tuple[str, str], tuple[str, str, str]] = {}
        for statement, since, source in self.statement_floors(text):
            if since is not None and parse_version(self.platform, since) > version:
                found.setdefault((source, since), (statement, since, source))
        return list(found.values())

    def statement_floors(self, text: str) -> list[tuple[str, str | None, str]]:
        if self.kind == "document":
            floors = []
            for table_name in json.loads(text):
                table = self.tables.get(table_name)
                if table is not None and table.source is not None:
                    floors.append((table_name, table.source.since, table.source.id))
            return floors
        floors = []
        stack: tuple[str, ...] = ()
        for line in text.splitlines():
            text_line = line.strip()
            command = None
            for depth in range(len(stack), -1, -1):
                command = self._match(stack[depth - 1] if depth else TOP_MODE, text_line)
                if command is not None:
                    break
            if command is not None and command.source is not None:
                floors.append((text_line, command.since or command.source.since, command.source.id))
            stack = self.accept(stack, line) if text_line else stack
        return floors

    @cached_property  # asked once per rendered switch; grammar_for keeps one Grammar a platform
    def states_release_floors(self) -> bool:
        """Whether any source or entry states a first release: without one no release is refused."""
        return any(source.since for source in self.source_details.values()) or any(
            command.since for commands in self.modes.values() for command in commands
        )

    @property
    def has_sub_modes(self) -> bool:
        return any(command.enter for commands in self.modes.values() for command in commands)

    def _match(self, mode: str, text: str) -> Command | None:
        commands = self.modes.get(mode, ())
        for command in commands:
            if command.pattern.fullmatch(text):
                return command
        if self.negation and text.startswith(self.negation):
            rest = text[len(self.negation) :]
            for command in commands:
                if command.pattern.fullmatch(rest):
                    return Command(command.pattern, None, command.source)  # a negated command opens no mode
        return None

    @staticmethod
    def _check_entry(table_name: str, table: Table, key: str, fields: Any) -> None:
        where = f"{table_name}|{key}"
        if not table.key.fullmatch(key):
            raise GrammarError(f"{where}: key does not match {table.key.pattern}")
        if not isinstance(fields, dict):
            raise GrammarError(f"{where}: must be an object of fields")
        for field, value in fields.items():
            pattern = table.fields.get(field)
            if pattern is None and table.map_fields and table.map_fields[0].fullmatch(field):
                pattern = table.map_fields[1]
            if pattern is None:
                known = ", ".join(sorted(table.fields))
                raise GrammarError(f"{where}: unknown field {field!r} (known: {known})")
            if not isinstance(value, str):
                raise GrammarError(f"{where}.{field}: config_db values are strings, got {value!r}")
            if not pattern.fullmatch(value):
                raise GrammarError(f"{where}.{field}: {value!r} does not match {pattern.pattern}")


def known_grammars() -> list[str]:
    folder = resources.files("gpunet.grammar")
    names = (entry.name for entry in folder.iterdir())
    return sorted(name.removesuffix(".yml") for name in names if name.endswith(".yml"))


@cache
def grammar_for(platform: str) -> Grammar:
    """The grammar of `platform`; an unknown platform raises UnknownPlatformError listing the known ones."""
    get_platform(platform)
    text = resources.files("gpunet.grammar").joinpath(f"{platform}.yml").read_text()
    return _parse(platform, yaml.safe_load(text))


def _parse(platform: str, data: dict[str, Any]) -> Grammar:
    sources = _sources(platform, data.get("sources") or {})

    def source(entry: dict[str, Any], where: str) -> Source:
        name = entry.get("source")
        if name not in sources:
            raise ValueError(f"{platform}.yml: {where} has no source (or an unknown one: {name!r})")
        return sources[name]

    modes = {
        mode: tuple(
            Command(
                re.compile(entry["pattern"]),
                entry.get("enter"),
                source(entry, f"{mode}: {entry['pattern']}"),
                entry.get("since"),
            )
            for entry in (commands or [])
        )
        for mode, commands in (data.get("modes") or {}).items()
    }
    map_tables = data.get("map_tables") or {}
    tables = {
        name: Table(
            key=re.compile(spec["key"]),
            fields={field: re.compile(pattern) for field, pattern in spec["fields"].items()},
            map_fields=(
                (re.compile(map_tables[name]["field"]), re.compile(map_tables[name]["value"]))
                if name in map_tables
                else None
            ),
            source=source(spec, f"table {name}"),
        )
        for name, spec in (data.get("tables") or {}).items()
    }
    for mode, commands in modes.items():
        for command in commands:
            if command.enter and command.enter not in modes:
                raise ValueError(f"{platform}.yml: mode {mode} enters undefined mode {command.enter}")
    return Grammar(
        platform=platform,
        kind=data["kind"],
        sources=tuple(dict.fromkeys(item.url for item in sources.values())),
        modes=modes,
        negation=data.get("negation"),
        tables=tables,
        source_details=sources,
    )


def _sources(platform: str, data: dict[str, Any]) -> dict[str, Source]:
    """The grammar's sources by id; each must say URL, section and the OS versions it documents."""
    sources = {}
    for name, entry in data.items():
        missing = [key for key in ("url", "section", "versions") if not (entry or {}).get(key)]
        if missing:
            raise ValueError(f"{platform}.yml: source {name} lacks {', '.join(missing)}")
        sources[name] = Source(
            id=name,
            url=entry["url"],
            section=entry["section"],
            versions=entry["versions"],
            since=entry.get("since"),
        )
    return sources
