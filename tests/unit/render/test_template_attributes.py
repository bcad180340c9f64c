"""The renderer's Jinja environment resolves `a.b` on plain dicts without raising AttributeError
first; the answers must stay Jinja's own, which these rows compare against a stock environment."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jinja2
import pytest

from gpunet.render.renderer import _environment

ROWS: list[tuple[str, dict[str, Any]]] = [
    ("{{ port.name }}", {"port": {"name": "Ethernet0"}}),
    ("{{ d.items() | list | length }}", {"d": {"a": 1}}),  # dict's own method, not a key
    ("{{ d.items }}", {"d": {"items": "key named items"}}),  # the attribute still wins, as in Jinja
    ("{{ d.get('a') }}", {"d": {"a": 7}}),
    ("{{ o.name }}", {"o": OrderedDict(name="subclass of dict")}),
    ("{{ s.upper() }}", {"s": "text"}),
    ("{{ n.real }}", {"n": 5}),
]


def _stock() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined)


@pytest.mark.parametrize(("source", "context"), ROWS)
def test_same_answer_as_stock_jinja(source: str, context: dict[str, Any]) -> None:
    ours = _environment().from_string(source).render(context)
    assert ours == _stock().from_string(source).render(context)


@pytest.mark.parametrize("source", ["{{ d.missing }}", "{{ d.missing.deeper }}"])
def test_missing_key_is_still_an_undefined_error(source: str) -> None:
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        _environment().from_string(source).render(d={"a": 1})
