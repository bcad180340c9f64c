"""canonical_json takes orjson's fast path only where it spells exactly what the standard library
spells; every row must equal the reference spelling, and the rows cover both paths."""

from __future__ import annotations

import pytest

from gpunet.render import canonical
from gpunet.render.canonical import canonical_json, standard_canonical_json

DOCUMENTS = {
    "sonic-like tables": '{"PORT": {"Ethernet8": {"mtu": "9100"}, "Ethernet0": {"mtu": "9100"}}, "A": []}',
    "empty containers": '{"b": {}, "a": [], "c": [{}, []]}',
    "ints, bools, null": '{"x": [0, -1, 9223372036854775807, true, false, null]}',
    "top-level list": "[3, 1, 2]",
    "non-ASCII text (escaped by the stdlib)": '{"name": "Zürich", "ü": 1}',
    "string escapes": '{"s": "tab\\there \\"quoted\\" \\\\ \\u0001"}',
    "floats": '{"f": [0.5, 1e16, 1e-05, 100.0, 2.5e-7]}',
    "NaN and Infinity": '{"n": NaN, "i": -Infinity}',
    "integer beyond 64 bits": '{"big": 123456789012345678901234567890}',
    "duplicate keys (last wins)": '{"a": 1, "a": 2}',
    "whitespace everywhere": ' {\n "z" :\t1 ,"y":[ 1 ,2 ] }\n',
}
FAST = {
    "sonic-like tables",
    "empty containers",
    "ints, bools, null",
    "top-level list",
    "duplicate keys (last wins)",
    "whitespace everywhere",
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_same_spelling_as_the_standard_library(name: str) -> None:
    assert canonical_json(DOCUMENTS[name]) == standard_canonical_json(DOCUMENTS[name])


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_fast_path_taken_only_where_safe(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = canonical.standard_canonical_json
    monkeypatch.setattr(
        canonical, "standard_canonical_json", lambda text: calls.append(text) or original(text)
    )
    canonical.canonical_json(DOCUMENTS[name])
    assert (not calls) == (name in FAST)


def test_invalid_json_still_raises() -> None:
    with pytest.raises(ValueError):
        canonical_json('{"a": }')
