"""SONiC's templates write JSON separators with the `commas` filter instead of Jinja's `loop.last`
(issue 33: the look-ahead was half of printing a SONiC config). The filter must give what
`loop.last` gave, for a single loop and for the nested QUEUE loop, and printing a SONiC switch
must no longer go through a LoopContext."""

from __future__ import annotations

from typing import Any

import jinja2
import jinja2.runtime
import pytest

from gpunet.design import design_switch
from gpunet.model.check import check_raw
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton
from gpunet.plan.request import build_request
from gpunet.render.renderer import _environment, render_switch

# (the template with the filter, the same with loop.last as the SONiC templates had it)
PAIRS = [
    (
        '{% for x, comma in items | commas %}"{{ x }}"{{ comma }}\n{% endfor %}',
        '{% for x in items %}"{{ x }}"{{ "," if not loop.last }}\n{% endfor %}',
    ),
    (
        "{% for a, a_comma in items | commas %}{% for b, b_comma in others | commas %}"
        "{{ a }}|{{ b }}{{ b_comma or a_comma }}\n{% endfor %}{% endfor %}",
        "{% for a in items %}{% set last_a = loop.last %}{% for b in others %}"
        '{{ a }}|{{ b }}{{ "," if not (last_a and loop.last) }}\n{% endfor %}{% endfor %}',
    ),
]
LISTS = [[], ["a"], ["a", "b"], ["a", "b", "c", "d", "e"], list(range(7))]


def _stock() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


@pytest.mark.parametrize(("ours", "stock"), PAIRS)
@pytest.mark.parametrize("items", LISTS, ids=len)
@pytest.mark.parametrize("others", [[], [0], [0, 3, 6]], ids=len)
def test_commas_as_loop_last(ours: str, stock: str, items: list[Any], others: list[int]) -> None:
    context = {"items": (i for i in items), "others": others}  # any iterable, as a for loop takes
    expected = _stock().from_string(stock).render({"items": items, "others": others})
    assert _environment().from_string(ours).render(context) == expected


def test_a_sonic_switch_prints_without_a_loop_context(monkeypatch: pytest.MonkeyPatch) -> None:
    topology = build_topology(build_request({"gpus": 128, "switch_radix": 32}), 2, True)
    fabric = check_raw(build_skeleton(topology, InventoryOptions(platform="sonic")).raw()).fabric
    assert fabric is not None
    switch = next(iter(fabric.switches.values()))
    assert len(design_switch(fabric, switch)["ports"]) > 1
    turns: list[int] = []
    original = jinja2.runtime.LoopContext.__next__

    def counting(self: Any) -> Any:
        turns.append(1)
        return original(self)

    monkeypatch.setattr(jinja2.runtime.LoopContext, "__next__", counting)
    rendered = render_switch(fabric, switch)
    assert rendered.config.startswith("{") and '"QUEUE"' in rendered.config
    assert turns == []
