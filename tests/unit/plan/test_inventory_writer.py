"""The planner's fast YAML writers (block_yaml, the dumper that keeps resolver answers) and its forked
host_vars writing give the same bytes as PyYAML's safe dumper in one process."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpunet.plan import inventory
from gpunet.plan.fattree import build_topology
from gpunet.plan.inventory import InventoryOptions, build_skeleton, write_skeleton
from gpunet.plan.request import build_request
from gpunet.plan.yaml_text import block_yaml
from gpunet.platforms import known_platforms

SHARED = {"speed_gbps": 400}

# Values whose spelling depends on the resolver (quoted or plain) or on alias bookkeeping.
DOCUMENTS = [
    {"plain": "Ethernet0", "slash": "Ethernet1/1", "colon": "gpu0001:mlx5_0", "v6": "2001:db8:f::1/64"},
    {"yes": "yes", "no": "No", "on": "on", "null": "null", "tilde": "~", "empty": "", "space": " x"},
    {"int": "123", "octal": "0o17", "float": "1e3", "dot": ".5", "inf": ".inf", "date": "2026-12-04"},
    {"numbers": [0, -1, 2**40], "bools": [True, False], "none": None, "nested": {"a": [{"b": "c"}]}},
    {"indicator": "- x", "hash": "a #b", "colon space": "a: b", "quote": "'q'", "star": "*x", "amp": "&y"},
    {"same dict twice": [SHARED, SHARED], "same list twice": [[1], [1]]},
    {"unicode": "caf\u00e9", "long": "x" * 200, "newline": "a\nb"},
]


# Shapes block_yaml spells itself (True) or leaves to PyYAML (False: None).
BLOCK_CASES = [
    ({"a": 1, "b": {"c": [1, "x"], "d": {"e": None}}, "f": [{"g": True, "h": "gpu1:mlx5_0"}]}, True),
    ({"ip": "2001:db8:f::1/64", "port": "et-0/0/1", "v4": "198.51.100.1/31", "neg": -3}, True),
    ({"hosts": {"gpu0001": None, "gpu0002": None}}, True),
    ({"int text": "400"}, False),
    ({"bool text": "yes"}, False),
    ({"sexagesimal": "1:20"}, False),
    ({"trailing colon": "a:"}, False),
    ({"space": "a b"}, False),
    ({"float": 1.5}, False),
    ({"empty list": []}, False),
    ({"empty dict": {}}, False),
    ({"nested list": [[1]]}, False),
    ({"list in list item": [{"a": [1]}]}, False),
    ({"k" * 128: 1}, False),
    ({"unicode": "caf\u00e9"}, False),
    ({1: "int key"}, False),
]


@pytest.mark.parametrize(("document", "spelled"), BLOCK_CASES, ids=[str(i) for i in range(len(BLOCK_CASES))])
def test_block_yaml_is_pyyaml_or_declines(document: dict, spelled: bool) -> None:
    text = block_yaml(document)
    assert (text is not None) == spelled
    if text is not None:
        assert text == yaml.dump(document, Dumper=yaml.SafeDumper, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(i) for i in range(len(DOCUMENTS))])
def test_plan_dumper_spells_like_the_safe_dumper(document: dict) -> None:
    options = {"sort_keys": False, "default_flow_style": False}
    expected = yaml.dump(document, Dumper=inventory.SAFE_DUMPER, **options)
    assert yaml.dump(document, Dumper=inventory._PlanDumper, **options) == expected
    # again, now from the kept resolver answers
    assert yaml.dump(document, Dumper=inventory._PlanDumper, **options) == expected


def _files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*.yml"))}


@pytest.mark.parametrize("pool", [None, "2001:db8:f::/48"])
@pytest.mark.parametrize("platform", known_platforms())
def test_forked_write_gives_the_files_of_the_safe_dumper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, platform: str, pool: str | None
) -> None:
    topology = build_topology(build_request({"gpus": 256, "switch_radix": 16}), 3, True)
    skeleton = build_skeleton(topology, InventoryOptions(platform=platform, fabric_pool=pool))
    with monkeypatch.context() as patched:
        patched.setattr(inventory, "_PlanDumper", inventory.SAFE_DUMPER)
        patched.setattr(inventory, "block_yaml", lambda document: None)
        patched.setattr(inventory, "FORK_FROM_DEVICES", 10**9)
        reference = write_skeleton(skeleton, tmp_path / "reference")
    monkeypatch.setattr(inventory, "FORK_FROM_DEVICES", 1)
    monkeypatch.setattr(inventory, "WRITE_PIECE", 7)  # several pieces, the last one short
    monkeypatch.setattr(inventory, "worker_count", lambda jobs, pieces, worth_forking: 2)
    written = write_skeleton(skeleton, tmp_path / "forked")
    assert [p.relative_to(tmp_path / "forked") for p in written] == [
        p.relative_to(tmp_path / "reference") for p in reference
    ]
    assert _files(tmp_path / "forked") == _files(tmp_path / "reference")
    assert len(written) == len(skeleton.hostvars) + 3
