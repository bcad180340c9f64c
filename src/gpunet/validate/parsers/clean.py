"""The input-cleaning step every parser's text goes through first.

Captures reach us through terminals, `script`, CI logs, chat and markdown: colour and cursor
codes, NUL padding, CRLF line ends and byte-order marks are artefacts of the transport, never
part of the tool's output, so they are removed before any parser sees the text. A capture that
holds the same output twice (pasted or collected twice) is refused: counting its devices or
rows twice would be a wrong verdict.
"""

from __future__ import annotations

import re

from gpunet.validate.parsers.base import ParseError

# ECMA-48: CSI sequences (colour, cursor movement, erase), OSC strings (window titles,
# hyperlinks) and the two-byte escapes; then the C0 controls other than tab and newline.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[@-Z\\-_]"  # two-byte escapes (ESC c, ESC M, ...)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BOM = "\ufeff"
# Any character the passes below would change: every escape starts with ESC (\x1b) or 8-bit CSI
# (\x9b), and CR, the BOM and the other controls are removed or rewritten. Almost every capture has
# none, and one search is far cheaper than three substitutions over 200,000 files.
# The line boundaries of str.splitlines.
_LINE_END = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_ANY_ARTEFACT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b\ufeff]")


# The same characters for ASCII text (the other two are not ASCII), deleted by bytes.translate:
# one C pass, six times faster than searching a character class (0.07 against 0.48 ms for an
# 80 KB SONiC queue table; every capture of a fabric goes through here).
_ASCII_ARTEFACTS = bytes(range(0x00, 0x09)) + bytes(range(0x0B, 0x20)) + b"\x7f"


def has_artefacts(text: str) -> bool:
    """Whether clean_text would change `text`."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _ASCII_ARTEFACTS)) != len(text)
    return _ANY_ARTEFACT.search(text) is not None


def clean_text(text: str) -> str:
    """The text without transport artefacts; CR and CRLF become LF."""
    if not has_artefacts(text):
        return text
    text = text.replace(_BOM, "")
    text = _ESCAPES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", text)


def refuse_doubled_capture(text: str, min_lines: int = 1) -> None:
    """ParseError when the capture is one block of output printed twice in a row."""
    # A doubled capture holds its first line twice; most captures do not, and counting is one
    # pass in C where splitting and stripping every line is not.
    rest = text.lstrip()
    first = rest[: _LINE_END.search(rest + "\n").start()].strip()
    # Each copy holds the first line as often as the other, and no occurrence spans the two copies
    # (the line has no line end): an odd count rules the doubling out (perftest's rule lines).
    occurrences = text.count(first)
    if occurrences < 2 or occurrences % 2:
        return
    # The same holds for the next line: perftest's first line is a rule it prints four times, its
    # second the title it prints once.
    after_first = rest[len(first) :].lstrip()
    second = after_first[: _LINE_END.search(after_first + "\n").start()].strip()
    if second and text.count(second) % 2:
        return
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    half, odd = divmod(len(lines), 2)
    if odd or half < min_lines:
        return
    if lines[:half] == lines[half:]:
        raise ParseError(f"the capture holds the same {half} lines twice (a duplicated capture)")
