"""Issue 26, OS versions: a switch's gpunet_os_version against the first release of each statement its
config holds (grammar sources' `since`). The prod inventory of 7f59434 had no versions, so nothing
refused a Cumulus switch below 5.6 (no NVUE pfc-watchdog paths)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.grammar import grammar_for
from gpunet.grammar.versions import FORMS, VersionError, parse_version
from gpunet.model.check import load_fabric
from gpunet.render import render_fabric
from gpunet.render.versions import os_version_problems
from tests.conftest import REPO_ROOT

PROD = REPO_ROOT / "inventories" / "prod"


def test_every_prod_switch_names_its_release_and_it_has_every_statement() -> None:
    fabric = load_fabric(PROD)
    assert all(switch.os_version for switch in fabric.switches.values())
    assert os_version_problems(fabric, render_fabric(fabric)) == []


def _prod_with(tmp_path: Path, switch: str, version: str) -> Path:
    copy = tmp_path / "prod"
    shutil.copytree(PROD, copy, ignore=shutil.ignore_patterns("vault.yml"))
    host_vars = copy / "host_vars" / f"{switch}.yml"
    lines = [
        f"gpunet_os_version: {version!r}" if line.startswith("gpunet_os_version:") else line
        for line in host_vars.read_text().splitlines()
    ]
    host_vars.write_text("\n".join(lines) + "\n")
    return copy


@pytest.mark.parametrize(
    ("switch", "version", "statement"),
    [
        ("leaf05", "5.5.0", "pfc-watchdog"),  # NVUE pfc-watchdog paths from Cumulus 5.6.0
        ("leaf05", "5.3.2", "link breakout"),  # NVUE link breakout from 5.4.0
        ("leaf06", "201911", "BREAKOUT_CFG"),  # SONiC dynamic port breakout (BREAKOUT_CFG) from 202012
    ],
)
def test_a_release_without_a_needed_statement_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], switch: str, version: str, statement: str
) -> None:
    inventory = _prod_with(tmp_path, switch, version)
    out = tmp_path / "out"
    code = main(["render", "-i", str(inventory), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{switch}.gpunet_os_version: lacks a statement the intent needs" in err and statement in err
    assert not out.exists()  # nothing written


@pytest.mark.parametrize(
    ("platform", "text", "parsed"),
    [
        ("cumulus", "5.10.1", (5, 10, 1)),
        ("sonic", "202405", (202405,)),
        ("sonic", "202411.2", (202411, 2)),
        ("eos", "4.32.2F", (4, 32, 2)),
        ("nxos", "10.4(3)F", (10, 4, 3)),
        ("nxos", "9.3(10)", (9, 3, 10)),
        ("junos", "24.4R1-EVO", (24, 4, 1)),
        ("junos", "23.4R2-S3", (23, 4, 2, 3)),
    ],
)
def test_release_forms(platform: str, text: str, parsed: tuple[int, ...]) -> None:
    assert parse_version(platform, text) == parsed


@pytest.mark.parametrize(("platform", "text"), [("cumulus", "5.10"), ("nxos", "10.4.3"), ("sonic", "master")])
def test_a_release_not_in_the_vendor_form_is_refused(platform: str, text: str) -> None:
    with pytest.raises(VersionError, match=f"not a {platform} release"):
        parse_version(platform, text)


def test_inventory_check_names_a_malformed_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inventory = _prod_with(tmp_path, "leaf05", "5.10")
    assert main(["inventory", "check", "-i", str(inventory)]) == 2
    assert "leaf05.gpunet_os_version: not a cumulus release" in capsys.readouterr().err


def test_the_summary_says_when_the_release_is_not_checked() -> None:
    fabric = load_fabric(PROD)
    rendered = render_fabric(fabric)["leaf05"]
    assert "OS release 5.10.1: every statement" in rendered.summary
    assert grammar_for("cumulus").newer_than(rendered.config, (5, 5, 0))


def test_the_summary_claims_a_checked_release_only_where_the_grammar_states_floors() -> None:
    """NX-OS, EOS and Junos grammars state no first release: their summaries must not say every
    statement exists in the release, only that it was not checked."""
    fabric = load_fabric(PROD)
    rendered = render_fabric(fabric)
    floors = {platform: grammar_for(platform).states_release_floors for platform in FORMS}
    assert {platform for platform, stated in floors.items() if stated} == {"cumulus", "sonic"}
    for name, switch in fabric.switches.items():
        line = f"OS release {switch.os_version}: "
        summary, checked = rendered[name].summary, floors[switch.platform]
        assert (line + "every statement" in summary) == checked, name
        assert (line + "not checked statement by statement" in summary) != checked, name
