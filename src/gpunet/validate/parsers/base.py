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
