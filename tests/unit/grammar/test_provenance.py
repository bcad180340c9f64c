"""Every statement the grammar accepts carries its own source, and every rendered line is one of them."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from gpunet.grammar import grammar_for, known_grammars
from gpunet.grammar.grammar import _parse
from gpunet.model.check import load_fabric
from gpunet.render import render_fabric
from tests.conftest import REPO_ROOT

LINE_PLATFORMS = [name for name in known_grammars() if grammar_for(name).kind == "lines"]


def _raw(platform: str) -> dict:
    return yaml.safe_load(resources.files("gpunet.grammar").joinpath(f"{platform}.yml").read_text())


@pytest.mark.parametrize("platform", known_grammars())
def test_every_entry_names_a_source_with_url_section_and_versions(platform: str) -> None:
    grammar = grammar_for(platform)
    entries = [command.source for commands in grammar.modes.values() for command in commands]
    entries += [table.source for table in grammar.tables.values()]
    assert entries, "a grammar with no statements checks nothing"
    for source in entries:
        assert source is not None
        assert source.url and source.section and source.versions


@pytest.mark.parametrize("platform", known_grammars())
def test_an_entry_without_a_source_is_refused(platform: str) -> None:
    data = _raw(platform)
    if data["kind"] == "lines":
        first_mode = next(iter(data["modes"]))
        data["modes"][first_mode][0].pop("source")
    else:
        next(iter(data["tables"].values())).pop("source")
    with pytest.raises(ValueError, match="has no source"):
        _parse(platform, data)


@pytest.mark.parametrize("platform", known_grammars())
def test_a_source_without_versions_is_refused(platform: str) -> None:
    data = _raw(platform)
    next(iter(data["sources"].values())).pop("versions")
    with pytest.raises(ValueError, match="lacks versions"):
        _parse(platform, data)


def test_every_rendered_prod_line_has_a_sourced_statement() -> None:
    rendered = render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))
    checked = 0
    for switch in rendered.values():
        grammar = grammar_for(switch.platform)
        if grammar.kind != "lines":
            continue
        stack: tuple[str, ...] = ()
        for line in switch.config.splitlines():
            source = grammar.source_of(stack, line)
            assert source is not None, f"{switch.name}: {line!r} has no sourced statement"
            stack = grammar.accept(stack, line)
            checked += 1
    assert checked > 1000
