# ruff: noqa: E501, W291  (recorded tool output keeps its real line lengths and trailing blanks)
"""nic_prio_tc, nic_ets and nic_cable_length, table-driven over recorded mlnx_qos captures.

The captures are a NIC setup script's `set -x` trace in the layout of
../shared/samples/mlnx_qos_att-netarbiter_1.txt (one mlnx_qos run after another; the last is the
state the NIC was left in), written here with their own values: the factory state, then the NIC as
roce_host sets it on the minimal inventory (map 0,0,0,3,0,0,6,0, ETS 50/50 with CNP strict, 3 m
cables). Each case changes the last run of gpu01's rail0 capture, or the inventory's roce_host
knobs, and states every result the three checks give for that NIC.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpunet.model.check import load_fabric
from gpunet.validate.checks import CHECKS as CHECK_CLASSES
from gpunet.validate.checks import Catalog
from gpunet.validate.collect_plan import host_commands
from gpunet.validate.judge import judge
from gpunet.validate.manifest import build_manifest
from gpunet.validate.results import Result, Status
from tests.conftest import FIXTURES_DIR, SAMPLES_DIR

MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"
CHECKS = ("nic_prio_tc", "nic_ets", "nic_cable_length")
TARGET = "gpu01:mlx5_0"  # netdev rail0

FACTORY_RUN = """$ ./roce-rail.sh rail0 mlx5_0
+ INTERFACE=rail0
+ DEVICE=mlx5_0
+ mlnx_qos -i rail0 --trust dscp
DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
        prio:0 dscp:07,06,05,04,03,02,01,00,
        prio:1 dscp:15,14,13,12,11,10,09,08,
        prio:2 dscp:23,22,21,20,19,18,17,16,
        prio:3 dscp:31,30,29,28,27,26,25,24,
        prio:4 dscp:39,38,37,36,35,34,33,32,
        prio:5 dscp:47,46,45,44,43,42,41,40,
        prio:6 dscp:55,54,53,52,51,50,49,48,
        prio:7 dscp:63,62,61,60,59,58,57,56,
Cable len: 7
PFC configuration:
        priority    0   1   2   3   4   5   6   7
        enabled     0   0   0   1   0   0   0   0   
tc: 0 ratelimit: unlimited, tsa: vendor
         priority:  1
tc: 1 ratelimit: unlimited, tsa: vendor
         priority:  0
tc: 2 ratelimit: unlimited, tsa: vendor
         priority:  2
tc: 3 ratelimit: unlimited, tsa: vendor
         priority:  3
tc: 4 ratelimit: unlimited, tsa: vendor
         priority:  4
tc: 5 ratelimit: unlimited, tsa: vendor
         priority:  5
tc: 6 ratelimit: unlimited, tsa: vendor
         priority:  6
tc: 7 ratelimit: unlimited, tsa: vendor
         priority:  7
"""

SET_RUN = """+ mlnx_qos -i rail0 --pfc 0,0,0,1,0,0,0,0 --cable_len 3 --prio_tc 0,0,0,3,0,0,6,0 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0
DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
        prio:0 dscp:07,06,05,04,03,02,01,00,
        prio:1 dscp:15,14,13,12,11,10,09,08,
        prio:2 dscp:23,22,21,20,19,18,17,16,
        prio:3 dscp:31,30,29,28,27,26,25,24,
        prio:4 dscp:39,38,37,36,35,34,33,32,
        prio:5 dscp:47,46,45,44,43,42,41,40,
        prio:6 dscp:55,54,53,52,51,50,49,48,
        prio:7 dscp:63,62,61,60,59,58,57,56,
Cable len: 3
PFC configuration:
        priority    0   1   2   3   4   5   6   7
        enabled     0   0   0   1   0   0   0   0   
tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%
         priority:  0 1 2 4 5 7
tc: 1 ratelimit: unlimited, tsa: ets, bw: 0%
tc: 2 ratelimit: unlimited, tsa: ets, bw: 0%
tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%
         priority:  3
tc: 4 ratelimit: unlimited, tsa: ets, bw: 0%
tc: 5 ratelimit: unlimited, tsa: ets, bw: 0%
tc: 6 ratelimit: unlimited, tsa: strict
         priority:  6
tc: 7 ratelimit: unlimited, tsa: ets, bw: 0%
"""

SET = "prio->TC 0,0,0,3,0,0,6,0"
SET_ETS = "ETS 0:ets 50%, 3:ets 50%, 6:strict"
ALL_OFF = {
    "roce_host_prio_tc": [],
    "roce_host_tc_tsa": [],
    "roce_host_tc_bw": [],
    "roce_host_set_cable_length": False,
}


def _swap(old: str, new: str) -> str:
    assert old in SET_RUN, old
    return FACTORY_RUN + SET_RUN.replace(old, new)


# (case, roce_host knobs in the inventory, gpu01 rail0's capture,
#  {check: (status, text its `actual` holds, texts its `message` holds)})
CASES: list[tuple[str, dict[str, Any], str, dict[str, tuple[Status, str, tuple[str, ...]]]]] = [
    (
        "all as roce_host sets them",
        {},
        FACTORY_RUN + SET_RUN,
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (Status.PASS, SET_ETS, ()),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "wrong priority map (priority 0 on TC 1)",
        {},
        _swap(
            "priority:  0 1 2 4 5 7\ntc: 1 ratelimit: unlimited, tsa: ets, bw: 0%\n",
            "priority:  1 2 4 5 7\ntc: 1 ratelimit: unlimited, tsa: ets, bw: 0%\n         priority:  0\n",
        ),
        {
            "nic_prio_tc": (
                Status.FAIL,
                "prio->TC 1,0,0,3,0,0,6,0",
                ("gpu01:rail0", "roce_host", "roce_host_prio_tc"),
            ),
            "nic_ets": (Status.PASS, SET_ETS, ()),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "wrong TSA (CNP class left vendor)",
        {},
        _swap("tc: 6 ratelimit: unlimited, tsa: strict", "tc: 6 ratelimit: unlimited, tsa: vendor"),
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (
                Status.FAIL,
                "ETS 0:ets 50%, 3:ets 50%, 6:vendor",
                ("gpu01:rail0", "roce_host_tc_tsa"),
            ),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "wrong bandwidth shares",
        {},
        _swap("bw: 50%\n         priority:  0 1", "bw: 70%\n         priority:  0 1").replace(
            "bw: 50%\n         priority:  3", "bw: 30%\n         priority:  3"
        ),
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (
                Status.FAIL,
                "ETS 0:ets 70%, 3:ets 30%, 6:strict",
                ("gpu01:rail0", "roce_host_tc_bw"),
            ),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "wrong cable length (the mlx5 default)",
        {},
        _swap("Cable len: 3", "Cable len: 7"),
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (Status.PASS, SET_ETS, ()),
            "nic_cable_length": (
                Status.FAIL,
                "cable length 7 m",
                ("gpu01:rail0", "leaf01:Ethernet1/1", "cable_length_m", "roce_host_set_cable_length"),
            ),
        },
    ),
    (
        "the operator's own shares are what roce_host set",
        {"roce_host_tc_bw": [70, 0, 0, 30, 0, 0, 0, 0]},
        _swap("bw: 50%\n         priority:  0 1", "bw: 70%\n         priority:  0 1").replace(
            "bw: 50%\n         priority:  3", "bw: 30%\n         priority:  3"
        ),
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (Status.PASS, "ETS 0:ets 70%, 3:ets 30%, 6:strict", ()),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "every knob off: the factory state is not judged",
        ALL_OFF,
        FACTORY_RUN,
        {
            "nic_prio_tc": (Status.SKIPPED, "not run", ("roce_host_prio_tc is []",)),
            "nic_ets": (Status.SKIPPED, "not run", ("roce_host_tc_tsa is []",)),
            "nic_cable_length": (Status.SKIPPED, "not run", ("roce_host_set_cable_length is false",)),
        },
    ),
    (
        "map off: ETS is judged on the classes of the NIC's own map",
        {"roce_host_prio_tc": []},
        FACTORY_RUN,
        {
            "nic_prio_tc": (Status.SKIPPED, "not run", ("roce_host_prio_tc is []",)),
            "nic_ets": (
                Status.FAIL,
                "ETS 0:vendor, 1:vendor, 2:vendor, 3:vendor, 4:vendor, 5:vendor, 6:vendor, 7:vendor",
                ("gpu01:rail0",),
            ),
            "nic_cable_length": (Status.FAIL, "cable length 7 m", ("gpu01:rail0",)),
        },
    ),
    (
        "the capture has no ETS section",
        {},
        FACTORY_RUN + SET_RUN[: SET_RUN.index("tc: 0 ratelimit")],
        {
            "nic_prio_tc": (Status.ERROR, "no traffic class section", ("mlnx_qos.rail0.txt",)),
            "nic_ets": (Status.ERROR, "no traffic class section", ("mlnx_qos.rail0.txt",)),
            "nic_cable_length": (Status.PASS, "cable length 3 m", ()),
        },
    ),
    (
        "the capture is cut inside the class list (refused by the parser)",
        {},
        FACTORY_RUN + SET_RUN[: SET_RUN.index("tc: 6 ratelimit")],
        {
            "nic_prio_tc": (Status.ERROR, "no input", ("incomplete mlnx_qos capture",)),
            "nic_ets": (Status.ERROR, "no input", ("incomplete mlnx_qos capture",)),
            "nic_cable_length": (Status.ERROR, "no input", ("incomplete mlnx_qos capture",)),
        },
    ),
    (
        "the NIC reports no cable length (no port buffer control)",
        {},
        _swap("Cable len: 3", "Cable len: 0"),
        {
            "nic_prio_tc": (Status.PASS, SET, ()),
            "nic_ets": (Status.PASS, SET_ETS, ()),
            "nic_cable_length": (Status.SKIPPED, "not run", ("Cable len: 0", "NOT APPLIED")),
        },
    ),
]


# What each failing result expected: roce_host's value for the field, over the classes judged.
EXPECTED = {
    "nic_prio_tc": SET,
    "nic_ets": SET_ETS,
    "nic_cable_length": "cable length 3 m",
}
EXPECTED_MAP_OFF_ETS = "ETS " + ", ".join(
    ["0:ets 50%", "1:ets 0%", "2:ets 0%", "3:ets 50%", "4:ets 0%", "5:ets 0%", "6:strict", "7:ets 0%"]
)

# The other NICs' statuses (nic_prio_tc, nic_ets, nic_cable_length) where not all pass.
OTHERS: dict[str, tuple[Status, Status, Status]] = {
    "the operator's own shares are what roce_host set": (Status.PASS, Status.FAIL, Status.PASS),
    "every knob off: the factory state is not judged": (Status.SKIPPED,) * 3,
    "map off: ETS is judged on the classes of the NIC's own map": (Status.SKIPPED, Status.PASS, Status.PASS),
}


def _artifacts(tmp_path: Path, knobs: dict[str, Any], capture: str) -> Path:
    inventory = tmp_path / "inventory"
    shutil.copytree(MINIMAL, inventory)
    (inventory / "group_vars" / "gpu_nodes.yml").write_text(yaml.safe_dump(knobs))
    manifest = build_manifest(load_fabric(inventory))
    folder = tmp_path / "artifacts"
    manifest.write(folder)
    for host in manifest.hosts.values():
        for nic in host.nics:
            text = capture if f"{host.name}:{nic.name}" == TARGET else FACTORY_RUN + SET_RUN
            path = folder / "hosts" / host.name / f"mlnx_qos.{nic.netdev}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.replace("rail0", nic.netdev))
    return folder


def _results(folder: Path) -> list[Result]:
    return judge(folder, Catalog(list(CHECKS), {}, "test")).results


@pytest.mark.parametrize(("case", "knobs", "capture", "verdicts"), CASES, ids=[c[0] for c in CASES])
def test_nic_ets_checks(
    tmp_path: Path,
    case: str,
    knobs: dict[str, Any],
    capture: str,
    verdicts: dict[str, tuple[Status, str, tuple[str, ...]]],
) -> None:
    results = _results(_artifacts(tmp_path, knobs, capture))
    mine = {r.check: r for r in results if r.target == TARGET}
    assert set(mine) == set(CHECKS), case
    assert len([r for r in results if r.check in CHECKS]) == 4 * len(CHECKS)  # 2 hosts x 2 NICs
    for check, (status, actual, message_parts) in verdicts.items():
        result = mine[check]
        assert result.status == status, (check, result)
        assert actual in result.actual, (check, result)
        for part in message_parts:
            assert part in result.message, (check, part, result.message)
        if status == Status.FAIL:  # a mismatch says what roce_host would have set
            map_off = knobs.get("roce_host_prio_tc") == [] and check == "nic_ets"
            assert result.expected == (EXPECTED_MAP_OFF_ETS if map_off else EXPECTED[check]), (check, result)
    # The other three NICs carry roce_host's default state (50/50), judged by the same knobs.
    others = {(r.check, r.status) for r in results if r.target != TARGET and r.check in CHECKS}
    assert others == set(zip(CHECKS, OTHERS.get(case, (Status.PASS,) * 3), strict=True)), case


def test_a_manifest_without_the_expectations_is_an_error_not_a_pass(tmp_path: Path) -> None:
    folder = _artifacts(tmp_path, {}, FACTORY_RUN + SET_RUN)
    path = folder / "manifest.json"
    document = json.loads(path.read_text())
    for host in document["hosts"].values():
        for nic in host["nics"]:
            for key in ("prio_tc", "tc_tsa", "tc_bw", "cable_length_m", "left_alone"):
                del nic[key]
    path.write_text(json.dumps(document))
    results = [r for r in _results(folder) if r.check in CHECKS]
    assert len(results) == 4 * len(CHECKS)
    assert {r.status for r in results} == {Status.ERROR}
    assert all("re-collect" in r.message for r in results)


@pytest.mark.skipif(not SAMPLES_DIR.is_dir(), reason="../shared/samples is not present")
def test_the_factory_state_of_the_shared_sample_fails_each_field(tmp_path: Path) -> None:
    """A public capture of a NIC nobody gave ETS or a cable length: each field fails with its value."""
    sample = SAMPLES_DIR / "mlnx_qos_att-netarbiter_1.txt"
    if not sample.is_file():
        pytest.skip(f"{sample} is not present")
    results = _results(_artifacts(tmp_path, {}, sample.read_text().replace("eth4", "rail0")))
    mine = {r.check: (r.status, r.actual) for r in results if r.target == TARGET}
    assert mine == {
        "nic_prio_tc": (Status.FAIL, "prio->TC 1,0,2,3,4,5,6,7"),
        "nic_ets": (Status.FAIL, "ETS 0:vendor, 3:vendor, 6:vendor"),
        "nic_cable_length": (Status.FAIL, "cable length 7 m"),
    }


def test_the_collection_saves_the_capture_each_check_reads() -> None:
    """verify_host runs collect_plan.host_commands: `mlnx_qos -i <netdev>` for every NIC, saved as the
    mlnx_qos.<netdev>.txt these checks read."""
    nics = [{"name": f"mlx5_{rail}", "netdev": f"rail{rail}"} for rail in range(2)]
    saved = {command["file"]: command["argv"] for command in host_commands(nics)}
    for check in CHECKS:
        assert CHECK_CLASSES[check].inputs() == {"mlnx_qos"}
    for nic in nics:
        assert saved[f"mlnx_qos.{nic['netdev']}"] == ["mlnx_qos", "-i", nic["netdev"]]
