"""Column tables as printed by Python's tabulate (SONiC) and NVUE: a header, a dashed rule, rows."""

from __future__ import annotations

import re

_RULE = re.compile(r"^\s*-+(\s+-+)+\s*$")


def is_rule(line: str) -> bool:
    return bool(_RULE.match(line))


def column_spans(rule: str) -> list[tuple[int, int]]:
    """Character spans of the dashed runs; a cell is read from its span's start to the next span."""
    starts = [m.start() for m in re.finditer(r"-+", rule)]
    return [(start, starts[i + 1] if i + 1 < len(starts) else 10_000) for i, start in enumerate(starts)]


def cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """Split a row by the spans, tolerating right-aligned cells that reach left of their dashes."""
    tokens = line.split()
    if len(tokens) == len(spans):
        return tokens
    values = [line[start:end].strip() for start, end in spans]
    return values


def number(text: str) -> int | None:
    cleaned = text.replace(",", "")
    return int(cleaned) if cleaned.isdigit() else None
