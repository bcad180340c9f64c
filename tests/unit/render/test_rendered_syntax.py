"""Every line rendered for the example inventory and the golden inventories is accepted by the
platform grammar written from the vendor documentation (src/gpunet/grammar/<platform>.yml)."""

from __future__ import annotations

import pytest

from gpunet.grammar import GrammarError, grammar_for
from gpunet.model.check import load_fabric
from gpunet.render import RenderedSwitch, render_fabric
from tests.conftest import FIXTURES_DIR, REPO_ROOT

SOURCES = [REPO_ROOT / "inventories" / "prod", *sorted((FIXTURES_DIR / "render").glob("*/hosts.yml"))]


def _rendered() -> list[tuple[str, RenderedSwitch]]:
    switches = []
    for source in SOURCES:
        for name, switch in render_fabric(load_fabric(source)).items():
            switches.append((f"{source.parent.name if source.is_file() else source.name}/{name}", switch))
    return switches


RENDERED = _rendered()


def test_every_platform_is_covered() -> None:
    assert {switch.platform for _, switch in RENDERED} == {"nxos", "eos", "cumulus", "sonic", "junos"}


@pytest.mark.parametrize(("label", "switch"), RENDERED, ids=[label for label, _ in RENDERED])
def test_every_rendered_line_is_valid_for_the_platform(label: str, switch: RenderedSwitch) -> None:
    grammar_for(switch.platform).check(switch.config)


@pytest.mark.parametrize(("label", "switch"), RENDERED[:3], ids=[label for label, _ in RENDERED[:3]])
def test_a_corrupted_config_is_caught(label: str, switch: RenderedSwitch) -> None:
    """The check above can fail: one invented line makes it fail."""
    corrupted = switch.config + "priority-flow-control everything on\n"
    with pytest.raises(GrammarError):
        grammar_for(switch.platform).check(corrupted)


def test_line_configs_end_with_one_newline_and_hold_no_blank_lines() -> None:
    for label, switch in RENDERED:
        if switch.platform == "sonic":
            continue
        assert switch.config.endswith("\n") and not switch.config.endswith("\n\n"), label
        assert "\n\n" not in switch.config, label
