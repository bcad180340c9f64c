"""The roce_host knobs the verify side judges the NICs by: read from the inventory by both loaders
(the fast folder path and Ansible's), converted as roce_host's argument spec converts them, and
refused, naming the host and knob, where roce_host would refuse them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpunet.model.build import roce_host_knobs
from gpunet.model.check import load_fabric
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.loader import LOADER_ENV
from gpunet.validate.manifest import build_manifest, read_manifest
from tests.conftest import FIXTURES_DIR

MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"


def _inventory(tmp_path: Path, gpu_group_vars: dict[str, Any]) -> Path:
    folder = tmp_path / "inventory"
    shutil.copytree(MINIMAL, folder)
    (folder / "group_vars" / "gpu_nodes.yml").write_text(yaml.safe_dump(gpu_group_vars))
    return folder


# (case, knobs in group_vars/gpu_nodes.yml, what every GPU host's roce_host_knobs holds)
LOADED = [
    ("none set: roce_host's defaults apply", {}, {}),
    ("map off", {"roce_host_prio_tc": []}, {"roce_host_prio_tc": []}),
    (
        "ETS given as comma-separated strings",
        {"roce_host_tc_tsa": "ets,ets,ets,ets,ets,ets,strict,ets", "roce_host_tc_bw": "50,0,0,50,0,0,0,0"},
        {
            "roce_host_tc_tsa": ["ets"] * 6 + ["strict", "ets"],
            "roce_host_tc_bw": [50, 0, 0, 50, 0, 0, 0, 0],
        },
    ),
    (
        "cable length off, as a YAML string",
        {"roce_host_set_cable_length": "no"},
        {"roce_host_set_cable_length": False},
    ),
    (
        "lengths by netdev",
        {"roce_host_cable_length_m": {"rail0": "5"}},
        {"roce_host_cable_length_m": {"rail0": 5}},
    ),
    ("the MTU, as a YAML string", {"roce_host_mtu": "4200"}, {"roce_host_mtu": 4200}),
    ("the MTU left alone", {"roce_host_mtu": 0}, {"roce_host_mtu": 0}),
    ("another role's variable is not read", {"roce_host_dcqcn": False}, {}),
]


@pytest.mark.parametrize("loader", ["auto", "ansible"])
@pytest.mark.parametrize(("case", "group_vars", "expected"), LOADED, ids=[c[0] for c in LOADED])
def test_both_loaders_read_the_knobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: str, case: str, group_vars: dict, expected: dict
) -> None:
    monkeypatch.setenv(LOADER_ENV, loader)
    fabric = load_fabric(_inventory(tmp_path, group_vars))
    assert fabric.hosts, case
    assert {name: host.roce_host_knobs for name, host in fabric.hosts.items()} == {
        name: expected for name in fabric.hosts
    }


# (case, knob, value roce_host would refuse)
REFUSED = [
    ("seven classes", "roce_host_prio_tc", [0, 0, 0, 3, 0, 0, 6]),
    ("a class above 7", "roce_host_prio_tc", [0, 0, 0, 8, 0, 0, 6, 0]),
    ("an unknown TSA", "roce_host_tc_tsa", ["ets"] * 7 + ["wfq"]),
    ("a share above 100", "roce_host_tc_bw", [150, 0, 0, 50, 0, 0, 0, 0]),
    ("a share that is no number", "roce_host_tc_bw", ["half", 0, 0, 50, 0, 0, 0, 0]),
    ("not a boolean", "roce_host_set_cable_length", "sometimes"),
    ("lengths as a list", "roce_host_cable_length_m", [3]),
    ("a length of 0 m", "roce_host_cable_length_m", {"rail0": 0}),
    ("an MTU that is no number", "roce_host_mtu", "jumbo"),
    ("a negative MTU", "roce_host_mtu", -1),
    ("an MTU as a boolean", "roce_host_mtu", True),
]


@pytest.mark.parametrize(("case", "knob", "value"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_value_roce_host_refuses_is_a_problem_naming_host_and_knob(
    case: str, knob: str, value: Any
) -> None:
    knobs, problems = roce_host_knobs("gpu01", {knob: value})
    assert knobs == {}, case
    assert [problem.path for problem in problems] == [f"gpu01.{knob}"]


def test_the_inventory_check_refuses_it(tmp_path: Path) -> None:
    with pytest.raises(InventoryInvalidError) as raised:
        load_fabric(_inventory(tmp_path, {"roce_host_prio_tc": [0, 0, 0, 3]}))
    assert {problem.path for problem in raised.value.problems} == {
        f"{host}.roce_host_prio_tc" for host in ("gpu01", "gpu02")
    }


@pytest.mark.parametrize("loader", ["auto", "ansible"])
def test_the_preflight_plugins_view_reads_them_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: str
) -> None:
    """The action plugins' RawInventory (the play's hostvars or the fast path) holds the same knobs."""
    from gpunet.model.build import build_fabric
    from gpunet.model.play_inventory import play_raw_inventory
    from tests.unit.inventory_load.test_play_inventory import _play_view

    monkeypatch.setenv(LOADER_ENV, loader)
    source = _inventory(tmp_path, {"roce_host_prio_tc": [], "roce_host_set_cable_length": False})
    task_vars, play_loader = _play_view(source, None, {})
    fabric = build_fabric(play_raw_inventory(task_vars, play_loader))
    assert {name: host.roce_host_knobs for name, host in fabric.hosts.items()} == {
        name: {"roce_host_prio_tc": [], "roce_host_set_cable_length": False} for name in ("gpu01", "gpu02")
    }


# (case, ETS knobs set, whether roce_host refuses the pair: [] leaves ETS alone only with both [])
ETS_PAIRS = [
    ("both off", {"roce_host_tc_tsa": [], "roce_host_tc_bw": []}, False),
    ("TSA off, shares from the queues", {"roce_host_tc_tsa": []}, True),
    ("shares off, TSA given", {"roce_host_tc_tsa": ["ets"] * 8, "roce_host_tc_bw": []}, True),
    ("both given", {"roce_host_tc_tsa": ["ets"] * 8, "roce_host_tc_bw": [100] + [0] * 7}, False),
]


@pytest.mark.parametrize(("case", "given", "refused"), ETS_PAIRS, ids=[c[0] for c in ETS_PAIRS])
def test_tsa_and_shares_go_off_together(case: str, given: dict[str, Any], refused: bool) -> None:
    knobs, problems = roce_host_knobs("gpu01", given)
    assert [problem.path for problem in problems] == (["gpu01.roce_host_tc_tsa"] if refused else []), case
    assert knobs == given


# (case, gpu01's roce_host_mtu, the problems' paths): minimal's leaf ports are at the fabric MTU.
HOST_MTU = [
    ("within the leaf port's MTU", 4200, set()),
    ("left alone", 0, set()),
    ("above the leaf port's MTU", 9300, {"gpu01.roce_host_mtu"}),
]


@pytest.mark.parametrize(("case", "mtu", "paths"), HOST_MTU, ids=[c[0] for c in HOST_MTU])
def test_a_hosts_mtu_must_fit_its_leaf_ports(tmp_path: Path, case: str, mtu: int, paths: set[str]) -> None:
    folder = _inventory(tmp_path, {})
    host_vars = folder / "host_vars" / "gpu01.yml"
    host_vars.write_text(yaml.safe_dump({**yaml.safe_load(host_vars.read_text()), "roce_host_mtu": mtu}))
    if not paths:
        fabric = load_fabric(folder)
        assert fabric.hosts["gpu01"].roce_host_knobs == {"roce_host_mtu": mtu}, case
        # gpunet-validate's manifest holds each host's MTU through a write and a read.
        build_manifest(fabric).write(tmp_path / "artifacts")
        manifest = read_manifest(tmp_path / "artifacts")
        assert (manifest.hosts["gpu01"].mtu, manifest.hosts["gpu02"].mtu) == (mtu, fabric.host_mtu), case
        return
    with pytest.raises(InventoryInvalidError) as raised:
        load_fabric(folder)
    assert {problem.path for problem in raised.value.problems} == paths, case
