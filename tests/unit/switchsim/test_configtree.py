"""Where the simulator files each configuration line, decided by the platform grammar."""

from __future__ import annotations

import pytest

from gpunet.grammar import GrammarError, grammar_for
from gpunet.lab.switchsim.configtree import ConfigEditor, ConfigTree, place_line
from gpunet.render import render_fabric

PMAP, PCLASS = "policy-map-qos", "policy-class-qos"


@pytest.mark.parametrize(
    ("stack", "line", "expected"),
    [
        ((), "policy-map type qos GPUNET-QOS-IN", (0, (PMAP,))),
        ((PMAP,), "class GPUNET-ROCE", (1, (PMAP, PCLASS))),
        ((PMAP, PCLASS), "set qos-group 3", (2, (PMAP, PCLASS))),
        ((PMAP, PCLASS), "class GPUNET-CNP", (1, (PMAP, PCLASS))),
        # Re-entering a mode of the same kind from below: a new top-level block, not a child.
        ((PMAP, PCLASS), "policy-map type qos OTHER", (0, (PMAP,))),
        ((PMAP, PCLASS), "interface Ethernet1/1", (0, ("interface",))),
    ],
)
def test_place_line_finds_the_level_the_os_would_use(stack, line, expected):
    assert place_line(grammar_for("nxos"), stack, line) == expected


def test_invalid_line_raises_the_grammar_error():
    with pytest.raises(GrammarError):
        place_line(grammar_for("nxos"), (), "set qos-group 3")


@pytest.fixture(scope="module")
def rendered(request):
    from gpunet.model.check import load_fabric
    from tests.conftest import REPO_ROOT

    inventory = REPO_ROOT / "inventories" / "prod"
    return render_fabric(load_fabric(inventory, inventory / "vault-password.txt"))


@pytest.mark.parametrize(("switch", "indent"), [("leaf01", 2), ("spine02", 2), ("leaf03", 3), ("spine01", 3)])
def test_feeding_a_rendered_config_rebuilds_it_line_for_line(rendered, switch, indent):
    config = rendered[switch]
    tree = ConfigTree(indent)
    editor = ConfigEditor(grammar_for(config.platform), tree)
    for line in config.config.splitlines():
        editor.feed(line.strip())
    expected = [line for line in config.config.splitlines() if not line.strip().startswith("no ")]
    assert tree.to_lines() == expected


def test_feeding_the_same_lines_twice_changes_nothing(rendered):
    tree = ConfigTree(2)
    for _ in range(2):
        editor = ConfigEditor(grammar_for("nxos"), tree)
        for line in rendered["leaf01"].config.splitlines():
            editor.feed(line.strip())
    assert tree.to_lines() == rendered["leaf01"].config.splitlines()


def test_no_line_removes_the_negated_line():
    tree = ConfigTree.from_lines(["interface Ethernet1/1", "  mtu 9216", "  priority-flow-control mode on"])
    editor = ConfigEditor(grammar_for("nxos"), tree)
    editor.feed("interface Ethernet1/1")
    editor.feed("no priority-flow-control mode on")
    assert tree.to_lines() == ["interface Ethernet1/1", "  mtu 9216"]
