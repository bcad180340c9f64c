"""Judge rendered Cumulus Linux `nv set` lines against NVIDIA's own NVUE reference.

Paths: `nv-set-commands-5.10.txt`, every `nv set` heading of NVIDIA's NVUE command reference
(CumulusNetworks/docs content/nvue-reference/Set-and-Unset-Commands, via plumbis/cl-docs c31961d4).
A `<...>` token matches any one token; a leaf command the pages give no `<value>` for (one that no
other command extends) takes one trailing value.
Values: `nvue-openapi-5.3.0.json` (static/cumulus-linux-53/api/openapi.json, same commit), walked from
the root PATCH schema through `properties`, `allOf`/`anyOf`/`oneOf` and `$ref`, with mappings
(`additionalProperties` + `x-propertyNames`) for keyed collections; a leaf's `type`, `enum`,
`minimum`/`maximum` and, for ids, `format: integer` with `x-cue-minimum`/`x-cue-maximum`.
An attribute added after 5.3 is reported as not covered by the spec, not as wrong.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Tokens = tuple[str, ...]


@dataclass
class NvueCommands:
    commands: set[Tokens]
    by_length: dict[int, list[Tokens]] = field(default_factory=dict)
    valueless_leaves: set[Tokens] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path) -> NvueCommands:
        commands = {tuple(line.split()) for line in path.read_text().splitlines() if line.strip()}
        extended = {command[:n] for command in commands for n in range(1, len(command))}
        reference = cls(commands)
        for command in commands:
            reference.by_length.setdefault(len(command), []).append(command)
        reference.valueless_leaves = {c for c in commands if c not in extended and c[-1] != "<value>"}
        return reference

    def match(self, tokens: Tokens) -> Tokens | None:
        """The reference command a rendered line is an instance of, or None."""
        for command in self.by_length.get(len(tokens), []):
            if _fits(command, tokens):
                return command
        for command in self.by_length.get(len(tokens) - 1, []):
            if command in self.valueless_leaves and _fits(command, tokens[:-1]):
                return (*command, "<value>")
        return None


def _fits(command: Tokens, tokens: Tokens) -> bool:
    return all(
        c == t or (c.startswith("<") and c.endswith(">")) for c, t in zip(command, tokens, strict=True)
    )


class NvueOpenApi:
    """Value rules of NVUE's OpenAPI spec, walked along the tokens of an `nv set` line."""

    def __init__(self, path: Path) -> None:
        self.spec: dict[str, Any] = json.loads(path.read_text())
        self.defs: dict[str, Any] = self.spec["x-defs"]
        body = self._resolve(self.spec["paths"]["/"]["patch"]["requestBody"])
        self.root = self._resolve(body["content"]["application/json"]["schema"])

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def _branches(self, schema: dict[str, Any]) -> list[dict[str, Any]]:
        """The schema and every schema its allOf/anyOf/oneOf bring in, resolved."""
        found = [self._resolve(schema)]
        for part in list(found):
            for combiner in ("allOf", "anyOf", "oneOf"):
                for sub in part.get(combiner, []):
                    found += self._branches(sub)
        return found

    def problems(self, tokens: Tokens) -> tuple[list[str], bool]:
        """(value errors, covered): the errors for the line's keys and value; covered is False
        when the spec has no such attribute (added after 5.3.0)."""
        errors: list[str] = []
        schemas = [self.root]
        for index, token in enumerate(tokens):
            branches = [b for s in schemas for b in self._branches(s)]
            children = [b["properties"][token] for b in branches if token in b.get("properties", {})]
            if children:
                schemas = children
                continue
            mappings = [b for b in branches if isinstance(b.get("additionalProperties"), dict)]
            if mappings:
                key_rules = [m["x-propertyNames"] for m in mappings if "x-propertyNames" in m]
                errors += self._failures(key_rules, token, "key")
                schemas = [m["additionalProperties"] for m in mappings]
                continue
            if index == len(tokens) - 1 and any(RULE_KEYS & b.keys() for b in branches):
                errors += self._failures(schemas, token, "value")
                return errors, True
            return errors, False
        return errors, True

    def _failures(self, candidates: list[dict[str, Any]], value: str, what: str) -> list[str]:
        """No error when the value satisfies one of the candidate schemas."""
        failures = [self._check(candidate, value) for candidate in candidates]
        if not candidates or any(failure is None for failure in failures):
            return []
        return [f"{what} {value!r}: " + "; ".join(sorted({f for f in failures if f}))]

    def _check(self, schema: dict[str, Any], value: str) -> str | None:
        """JSON Schema semantics: the schema's own rule, every allOf, and one of anyOf/oneOf."""
        schema = self._resolve(schema)
        if RULE_KEYS & schema.keys():
            failure = _rule_failure(schema, value)
            if failure:
                return failure
        for sub in schema.get("allOf", []):
            failure = self._check(sub, value)
            if failure:
                return failure
        alternatives = schema.get("anyOf", []) + schema.get("oneOf", [])
        if alternatives:
            failures = [self._check(sub, value) for sub in alternatives]
            if all(failures):
                return " or ".join(sorted({f for f in failures if f}))
        return None


RULE_KEYS = {"type", "enum", "format", "minimum", "maximum", "x-cue-minimum", "x-cue-maximum"}


def _rule_failure(schema: dict[str, Any], value: str) -> str | None:
    enum = schema.get("enum")
    if enum is not None:
        allowed = [e for e in enum if e is not None]
        return None if value in allowed else f"not one of {allowed}"
    kind = schema.get("type")
    if kind == "object" and not ({"minimum", "maximum", "format"} & schema.keys()):
        return None  # an object-valued attribute (a presence node): its children are other lines
    if kind == "integer" or schema.get("format") == "integer":
        try:
            number = int(value)
        except ValueError:
            return "not an integer"
        low = schema.get("minimum", schema.get("x-cue-minimum"))
        high = schema.get("maximum", schema.get("x-cue-maximum"))
        if low is not None and number < low:
            return f"below the minimum {low}"
        if high is not None and number > high:
            return f"above the maximum {high}"
        return None
    if kind == "number":
        try:
            float(value)
        except ValueError:
            return "not a number"
        return None
    if kind == "boolean":
        return None if value in ("true", "false", "on", "off", "enabled", "disabled") else "not a boolean"
    return None


@dataclass(frozen=True)
class NvueProblem:
    line_number: int
    line: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line_number}: `{self.line}`: {self.message}"


def judge_nv_set_lines(text: str, commands: NvueCommands, spec: NvueOpenApi) -> tuple[list[NvueProblem], int]:
    """(problems, lines not covered by the 5.3.0 value rules) of a rendered NVUE config."""
    problems: list[NvueProblem] = []
    uncovered = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        tokens = tuple(shlex.split(line))
        if tokens[:2] != ("nv", "set"):
            problems.append(NvueProblem(number, line, "not an `nv set` command"))
            continue
        command = commands.match(tokens)
        if command is None:
            problems.append(NvueProblem(number, line, "no command of NVIDIA's NVUE reference (5.10) matches"))
            continue
        errors, covered = spec.problems(tokens[2:])
        uncovered += not covered
        problems += [NvueProblem(number, line, f"{e} (NVUE OpenAPI 5.3.0)") for e in errors]
    return problems, uncovered
