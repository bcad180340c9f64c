"""Hostile YAML (issue 34): an alias bomb, a key given twice, a binary variables file. Each is
exit 2 with one line naming the file (and line), the same line from the fast path and from
Ansible's loader (GPUNET_INVENTORY_LOADER=ansible), and never a walk of the expanded tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from gpunet.cli import main
from gpunet.model.yaml_bounds import MAX_ALIAS_NODES, YamlRefused, check_tree
from tests.conftest import FIXTURES_DIR

BROKEN = FIXTURES_DIR / "inventories" / "broken"
CASES = ["duplicate_key", "alias_bomb", "binary_host_vars"]


@pytest.mark.parametrize("loader", ["auto", "ansible"])
@pytest.mark.parametrize("case", CASES)
def test_both_loaders_refuse_with_the_same_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: str,
    loader: str,
) -> None:
    inventory = tmp_path / case
    shutil.copytree(BROKEN / case, inventory)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUNET_INVENTORY_LOADER", loader)
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    (expected,) = yaml.safe_load((BROKEN / f"{case}.expect.yml").read_text())
    assert main(["inventory", "check", "-i", case]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"{case}/{expected['message']}", f"1 problem(s) in {case}"]


# (YAML, the refusal's words and line)
TREES = [
    ("a: 1\nb: 2\na: 3\n", "YAML parsing failed: Found duplicate mapping key 'a'.", 3),
    ("m:\n  1: x\n  0x1: y\n", "YAML parsing failed: Found duplicate mapping key 1.", 3),
    ("a: &x [1, *x]\n", "a YAML alias refers to a node that holds it", 1),
]


@pytest.mark.parametrize(("text", "words", "line"), TREES)
def test_refused_trees(text: str, words: str, line: int) -> None:
    with pytest.raises(YamlRefused) as refused:
        check_tree(yaml.compose(text, Loader=yaml.SafeLoader))
    assert (str(refused.value), refused.value.line) == (words, line)


# Trees that must pass: merge keys repeat no key, and aliases under the bound are allowed.
ALLOWED = [
    "base: &b {mtu: 9216}\nport: {<<: *b, name: swp1}\n",
    "seq: &s ["
    + ", ".join(["1"] * 1000)
    + "]\n"
    + "".join(f"k{i}: *s\n" for i in range(MAX_ALIAS_NODES // 1001)),
]


@pytest.mark.parametrize("text", ALLOWED)
def test_allowed_trees(text: str) -> None:
    check_tree(yaml.compose(text, Loader=yaml.CSafeLoader))


def test_plan_from_refuses_an_alias_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fixtures.inventories.generate import ALIAS_BOMB

    request = tmp_path / "request.yml"
    request.write_text(ALIAS_BOMB)
    assert main(["plan", "--from", str(request)]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip()
        .splitlines()[0]
        .endswith(
            f"{request}:8: YAML aliases expand to 490,329,064 nodes from 28: more than the 1,000,000 "
            "aliases may add (an alias bomb?)"
        )
    )
    assert len(err) < 1000
