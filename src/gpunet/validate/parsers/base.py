"""What every parser shares: the error type and small text helpers."""

from __future__ import annotations

import re


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


class CaselessWords:
    """A case-insensitive search for error words, fast on ASCII text.

    An IGNORECASE alternation is tried at every position of the text (about 175 us for a perftest
    capture). ASCII text has no character that folds case outside ASCII, so there the pattern with
    its letters lowered, searched case-sensitively in the lowered text, finds the same matches
    about ten times faster; other text takes the IGNORECASE search itself. Escapes (`\\b`) are
    kept as they are when the pattern is lowered.
    """

    def __init__(self, pattern: str) -> None:
        self._caseless = re.compile(pattern, re.IGNORECASE)
        self._lowered = re.compile(re.sub(r"\\.|[A-Z]+", _lower_outside_escapes, pattern))

    def search(self, text: str) -> bool:
        if text.isascii():
            return self._lowered.search(text.lower()) is not None
        return self._caseless.search(text) is not None


def _lower_outside_escapes(match: re.Match[str]) -> str:
    return match.group() if match.group().startswith("\\") else match.group().lower()
