"""One stable spelling of a JSON document, so unchanged content never shows up as a diff.

The spelling is the standard library's `json.dumps(document, indent=2, sort_keys=True)` plus a
newline; it is what every rendered SONiC file in `intended/` holds. With `indent` the standard
library's encoder runs in pure Python: at 2,560 SONiC switches that was a third of `gpunet render`.
orjson (https://github.com/ijl/orjson, README "OPT_INDENT_2", "OPT_SORT_KEYS") writes the same
text about thirty times faster for the documents gpunet renders: ASCII strings without escapes,
integers, booleans and null. Where the two spell things differently (non-ASCII text, which the
standard library escapes; string escapes; floats, whose exponent forms differ; NaN and Infinity;
integers beyond 64 bits) the standard library writes the document, so the output never changes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_ORJSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


class _Unusual(Exception):
    """The document holds a value whose spelling orjson and the standard library may not share."""


def _refuse(_: str) -> Any:
    raise _Unusual


def canonical_json(text: str) -> str:
    """`text` (a JSON document) re-spelled with sorted keys and a 2-space indent."""
    if text.isascii() and "\\" not in text:
        try:
            document = json.loads(text, parse_float=_refuse, parse_constant=_refuse)
            return orjson.dumps(document, option=_ORJSON_OPTIONS).decode() + "\n"
        except (_Unusual, orjson.JSONEncodeError):
            pass
    return standard_canonical_json(text)


def standard_canonical_json(text: str) -> str:
    """The reference spelling, with the standard library alone."""
    return json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
