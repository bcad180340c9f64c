"""Report text that came from artifacts, made inert for each format.

Checks quote what they read (a capture's first line, a parser's complaint), and an artifacts folder
may come from anywhere: a control character must not move a terminal's cursor or make an XML
report unreadable (XML 1.0 allows no C0 character but tab and line ends), and text must never
become rich markup, an emoji code, HTML or Markdown structure.
"""

from __future__ import annotations

import re

# C0 controls but tab and line feed, DEL, C1 controls, and the two code points XML 1.0 forbids.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
# What XML 1.0 cannot hold, and the rest of what moves a terminal's cursor (ESC, CSI); a carriage
# return is kept (XML's escaping writes it as &#13; in an attribute).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
# What Markdown (GitHub's flavour) reads as structure inside a table cell; an underscore only at
# a word's edge (nic_qos is never emphasis).
# Each is written with a backslash (CommonMark escapes any ASCII punctuation that way): `\<` opens
# no HTML tag and `\&` no entity, and the raw text stays readable (`>=`, `<->` are common).
_MARKDOWN_SPECIALS = re.compile(r"[\\`*\[\]<&|~\n]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MARKDOWN_ENTITIES = {"\n": " "}


def visible(text: str) -> str:
    """`text` with every control character written as a Python escape (`\\x1b`)."""
    if _INVISIBLE.search(text) is None:  # nearly every text: one search
        return text
    return _INVISIBLE.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def xml_visible(text: str) -> str:
    """`text` with what XML 1.0 cannot hold (and the terminal controls) written as escapes."""
    if _NOT_XML.search(text) is None:
        return text
    return _NOT_XML.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def markdown_text(text: str) -> str:
    """`text` for a Markdown table cell: structure characters escaped, on one line."""
    text = visible(text)
    if _MARKDOWN_SPECIALS.search(text) is None:
        return text
    return _MARKDOWN_SPECIALS.sub(
        lambda match: _MARKDOWN_ENTITIES.get(match.group(), "\\" + match.group()), text
    )


def markdown_code(text: str) -> str:
    """`text` as an inline code span in a table cell: a backtick inside lengthens the fence."""
    text = visible(text).replace("\n", " ").replace("|", "\\|")
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"
