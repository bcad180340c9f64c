"""What every parser shares: the error type and small text helpers."""

from __future__ import annotations

import json
import re
from typing import Any


class ParseError(ValueError):
    """The text is not output of the tool it was given as; the message is one line saying why."""


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def is_number(token: str) -> bool:
    return bool(_NUMBER.match(token))


def to_number(token: str) -> int | float | None:
    """An int or float for a numeric token; None for placeholders such as N/A or -."""
    if not is_number(token):
        return None
    value = float(token)
    return int(value) if value.is_integer() and "." not in token and "e" not in token.lower() else value


def content_lines(text: str) -> list[str]:
    """Lines without trailing whitespace; empty lines kept so callers can see block ends."""
    return [line.rstrip() for line in text.splitlines()]


# The line boundaries of str.splitlines that are ASCII, other than "\n".
_OTHER_ASCII_LINE_ENDS = b"\r\x0b\x0c\x1c\x1d\x1e"


def lines_holding(text: str, markers: tuple[str, ...]) -> list[str]:
    """Of content_lines(text), at least every line that holds one of `markers` ("\nX": that starts
    with X), in order: all a parser needs of a long capture when each line it acts on holds a
    marker (nvidia-smi -q prints about 200 lines a GPU; the GPU count reads three kinds). Found by
    str.find, in C, where "\n" is the text's only line end (ASCII without the other boundaries
    splitlines knows); other text gets all its content_lines."""
    if not text.isascii() or len(text.encode("ascii").translate(None, _OTHER_ASCII_LINE_ENDS)) != len(text):
        return content_lines(text)
    starts: set[int] = set()
    for marker in markers:
        if marker.startswith("\n"):  # the line starts with the rest
            if text.startswith(marker[1:]):
                starts.add(0)
            at = text.find(marker)
            while at != -1:
                starts.add(at + 1)
                at = text.find(marker, at + 1)
            continue
        at = text.find(marker)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            starts.add(start)
            end = text.find("\n", at)
            if end == -1:
                break
            at = text.find(marker, end)  # the next line holding it
    lines = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append(text[start : end if end != -1 else len(text)].rstrip())
    return lines


class CaselessWords:
    """A case-insensitive search for error words, fast on ASCII text.

    An IGNORECASE alternation is tried at every position of the text (about 175 us for a perftest
    capture). ASCII text has no character that folds case outside ASCII, so there the pattern with
    its letters lowered, searched case-sensitively in the lowered text, finds the same matches
    about ten times faster; other text takes the IGNORECASE search itself. Escapes (`\\b`) are
    kept as they are when the pattern is lowered.

    `needles`: words of which every match holds one (each alternative of the pattern contains one
    of them, in any case). Lowered ASCII text holding none of them has no match: a few `in` tests
    answer it without trying a long alternation at every position (the nccl-tests failure words:
    about 200 us a capture, and 0.4 s for the 3 MB a 4,096-host run prints).
    """

    def __init__(self, pattern: str, needles: tuple[str, ...] = ()) -> None:
        self._caseless = re.compile(pattern, re.IGNORECASE)
        self._lowered = re.compile(re.sub(r"\\.|[A-Z]+", _lower_outside_escapes, pattern))
        self._needles = tuple(needle.lower() for needle in needles)

    def search(self, text: str) -> bool:
        if text.isascii():
            lowered = text.lower()
            if self._needles and not any(needle in lowered for needle in self._needles):
                return False
            return self._lowered.search(lowered) is not None
        return self._caseless.search(text) is not None


def _lower_outside_escapes(match: re.Match[str]) -> str:
    return match.group() if match.group().startswith("\\") else match.group().lower()


def one_json_document(text: str, what: str, opener: str = "{") -> Any:
    """The one JSON document of a capture that starts with `opener` ("{" an object, "[" an array).

    Refused, naming `what`: other text first, a cut document, a key twice in one object (a garbled
    capture: json would keep the last), and anything after the document (a second one: a doubled
    capture)."""
    noun, after = ("object", "document") if opener == "{" else ("array", "array")
    stripped = text.strip()
    if not stripped.startswith(opener):
        first = stripped.splitlines()[0] if stripped else ""
        raise ParseError(f"{what}: not a JSON {noun} (first line {first[:80]!r})")

    def refuse_repeated(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise ParseError(f"{what}: key {key!r} twice in one object (a garbled capture)")
            result[key] = value
        return result

    try:
        document, end = json.JSONDecoder(object_pairs_hook=refuse_repeated).raw_decode(stripped)
    except json.JSONDecodeError as error:
        raise ParseError(f"{what}: not JSON (a cut capture?): {error.msg} at line {error.lineno}") from None
    rest = stripped[end:].strip()
    if rest:
        second = (
            "a second document (a duplicated capture)"
            if rest.startswith(opener)
            else repr(rest.splitlines()[0][:80])
        )
        raise ParseError(f"{what}: text after the JSON {after}: {second}")
    return document
