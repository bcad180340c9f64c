"""The first release gpunet's Cumulus grammar gives each rendered `nv set` line (`since` in
src/gpunet/grammar/cumulus.yml) is no earlier than the release NVIDIA's command reference says the
command was introduced in (`nv-set-commands-5.10.tsv`, column introduced_in). A vendor source outranks
our grammar: an earlier floor would let a switch through that refuses the line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpunet.grammar import grammar_for
from gpunet.grammar.versions import parse_version
from tests.vendor_schemas.corpus import RenderedConfig, configs_of
from tests.vendor_schemas.schemas import NVUE_DIR, require

CUMULUS_CONFIGS = configs_of("cumulus")


def _introduced(path: Path) -> dict[tuple[str, ...], str]:
    with path.open(newline="") as table:
        rows = csv.DictReader(table, delimiter="\t")
        return {tuple(row["command"].split()): row["introduced_in"] for row in rows if row["introduced_in"]}


def _fits(command: tuple[str, ...], tokens: tuple[str, ...]) -> bool:
    if len(command) != len(tokens):
        return False
    return all(
        c == t or (c.startswith("<") and c.endswith(">")) for c, t in zip(command, tokens, strict=True)
    )


@pytest.mark.parametrize("config", CUMULUS_CONFIGS, ids=[c.label for c in CUMULUS_CONFIGS])
def test_grammar_floor_is_not_below_nvidias_introduced_in(config: RenderedConfig) -> None:
    require(NVUE_DIR)
    introduced = _introduced(NVUE_DIR / "nv-set-commands-5.10.tsv")
    grammar = grammar_for("cumulus")
    checked, problems = 0, []
    for statement, since, source in grammar.statement_floors(config.text):
        tokens = tuple(statement.split())
        releases = [release for command, release in introduced.items() if _fits(command, tokens)]
        if not releases or since is None:
            continue
        checked += 1
        vendor = max(releases, key=lambda release: parse_version("cumulus", release))
        if parse_version("cumulus", since) < parse_version("cumulus", vendor):
            problems.append(f"{statement!r}: grammar source {source} says {since}, NVIDIA {vendor}")
    assert checked, "no rendered line matched a command with a release in the reference"
    assert problems == [], "\n".join(sorted(set(problems)))
