"""The simulator's SONiC show commands against the real sonic-utilities outputs in ../shared/samples."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from gpunet.lab.switchsim.personalities import showpfc
from gpunet.lab.switchsim.state import SwitchState
from tests.conftest import sample_files


def sample_body(path: Path) -> list[str]:
    """The sample's output lines: without the source comment and the prompt line."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "$ show" in line or "$ nv show" in line)
    return lines[start + 1 :]


def state_with(counters: dict[str, tuple[int, int]]) -> SwitchState:
    ports = ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
    state = SwitchState(platform="sonic", hostname="leaf07", ports=ports)
    for port, (rx, tx) in counters.items():
        state.counters[port]["rx_pfc"][3] = rx
        state.counters[port]["tx_pfc"][3] = tx
    return state


@pytest.mark.parametrize("sample", sample_files("switch_sonic_show-pfc-counters_*.txt"), ids=lambda p: p.name)
def test_show_pfc_counters_with_zero_counters_equals_the_real_output(sample):
    assert showpfc.sonic_pfc_counters(state_with({})).splitlines() == sample_body(sample)


def test_show_pfc_counters_reports_the_counters_tests_set():
    lines = showpfc.sonic_pfc_counters(state_with({"Ethernet4": (1520, 37)})).splitlines()
    rx_row = next(line for line in lines[:6] if line.strip().startswith("Ethernet4"))
    tx_row = next(line for line in lines[7:] if line.strip().startswith("Ethernet4"))
    assert rx_row.split()[1:] == ["0", "0", "0", "1520", "0", "0", "0", "0"]
    assert tx_row.split()[1:] == ["0", "0", "0", "37", "0", "0", "0", "0"]


@pytest.mark.parametrize(
    "sample", sample_files("switch_sonic_show-queue-counters_*.txt"), ids=lambda p: p.name
)
def test_show_queue_counters_header_and_rows_match_the_real_output(sample):
    real = sample_body(sample)
    simulated = showpfc.sonic_queue_counters(state_with({})).splitlines()
    assert simulated[:2] == real[:2]
    assert simulated[2:10] == real[2:10]  # Ethernet0 UC0..UC7, all zero


@pytest.mark.parametrize("sample", sample_files("switch_sonic_show-pfc-priority_*.txt"), ids=lambda p: p.name)
def test_show_pfc_priority_header_matches_the_real_output(sample):
    state = state_with({})
    state.config["PORT_QOS_MAP"] = {"Ethernet0": {"pfc_enable": "3,4"}}
    simulated = showpfc.sonic_pfc_priority(state).splitlines()
    real = sample_body(sample)
    assert simulated[:4] == real[:4]


@pytest.mark.parametrize("sample", sample_files("switch_sonic_show-ecn_*.txt"), ids=lambda p: p.name)
def test_show_ecn_block_layout_matches_the_real_output(sample):
    # The sample comes from a Markdown document that wraps profile names in ** markers.
    real = [line.replace("**", "") for line in sample_body(sample)]
    first_block = real[: real.index("")]
    fields = {}
    for line in first_block[2:-1]:
        key, value = line.split()
        fields[key] = value
    state = state_with({})
    state.config["WRED_PROFILE"] = {"AZURE_LOSSLESS": fields}
    assert showpfc.sonic_ecn(state).splitlines() == first_block


def cumulus_roce_defaults() -> list[str]:
    """nv set lines equivalent to what Cumulus's `nv show qos roce` sample reports."""
    lines = [
        "nv set qos mapping default-global trust both",
        "nv set qos pfc default-global switch-priority 3",
        "nv set qos pfc default-global cable-length 100",
        "nv set qos pfc default-global rx enable",
        "nv set qos pfc default-global tx enable",
        "nv set qos egress-scheduler default-global traffic-class 0 mode dwrr",
        "nv set qos egress-scheduler default-global traffic-class 0 bw-percent 50",
        "nv set qos egress-scheduler default-global traffic-class 3 mode dwrr",
        "nv set qos egress-scheduler default-global traffic-class 3 bw-percent 50",
        "nv set qos egress-scheduler default-global traffic-class 6 mode strict",
    ]
    for tc in (0, 3):
        prefix = f"nv set qos congestion-control default-global traffic-class {tc}"
        lines += [f"{prefix} ecn enable", f"{prefix} min-threshold 150000", f"{prefix} max-threshold 1500000"]
        lines.append(f"{prefix} probability 100")
    lines += [f"nv set qos mapping default-global dscp {d} switch-priority {d // 8}" for d in range(64)]
    for prio in range(8):
        tc = prio if prio in (3, 6) else 0
        lines.append(
            f"nv set qos egress-queue-mapping default-global switch-priority {prio} traffic-class {tc}"
        )
    return lines


@pytest.mark.parametrize(
    "sample", sample_files("switch_cumulus_nv-show-qos-roce_*.txt"), ids=lambda p: p.name
)
def test_nv_show_qos_roce_matches_the_real_output_for_the_same_settings(sample):
    state = SwitchState(platform="cumulus", hostname="leaf05")
    state.config += cumulus_roce_defaults()
    simulated = showpfc.cumulus_qos_roce(state).splitlines()
    real = sample_body(sample)
    # The simulator reports mode "lossless" (no buffer-pool modes) and omits the pool table.
    assert simulated[:3] == real[:3]
    assert simulated[4:21] == real[4:21]
    tables = "RoCE PCP/DSCP->SP mapping configurations"
    real_tables = real[real.index(tables) : real.index("RoCE pool config")]
    assert simulated[simulated.index(tables) : simulated.index("Exception List")] == real_tables


def test_sonic_db_cli_prints_a_hash_as_json_with_j_and_as_redis_py_prints_it_without():
    """sonic-swss-common redisreply.cpp at 85a39d8: `-j` dumps HGETALL as one line of JSON
    (to_json_string); without it, formatDictReply's `{'field': 'value', ...}`."""
    state = state_with({"Ethernet4": (1520, 37)})
    name_map = json.loads(
        showpfc.sonic_db_cli(state, ["-j", "COUNTERS_DB", "HGETALL", "COUNTERS_PORT_NAME_MAP"])
    )
    assert list(name_map) == state.ports
    key = f"COUNTERS:{name_map['Ethernet4']}"
    as_json = showpfc.sonic_db_cli(state, ["-j", "COUNTERS_DB", "HGETALL", key])
    as_dict = showpfc.sonic_db_cli(state, ["COUNTERS_DB", "HGETALL", key])
    assert "\n" not in as_json and ": " not in as_json
    assert as_dict.startswith("{'SAI_PORT_STAT_PFC_0_RX_PKTS': '0', 'SAI_PORT_STAT_PFC_1_RX_PKTS': '0', ")
    assert json.loads(as_json) == ast.literal_eval(as_dict)
    assert json.loads(as_json)["SAI_PORT_STAT_PFC_3_RX_PKTS"] == "1520"
    assert json.loads(as_json)["SAI_PORT_STAT_PFC_3_TX_PKTS"] == "37"
    for arguments in (["-j", "COUNTERS_DB", "HGETALL", "COUNTERS:oid:0x99"], ["COUNTERS_DB", "HGETALL", "x"]):
        assert showpfc.sonic_db_cli(state, arguments) == "{}"  # no such key: an empty hash


@pytest.mark.parametrize(
    ("release", "refused"), [(None, False), ("202611", False), ("202605", True), ("202411.3", True)]
)
def test_sonic_db_cli_refuses_j_on_releases_whose_swss_common_lacks_it(release, refused):
    """swss-common PR #1205 (85a39d8) is on master only: sonic-buildimage 202605 pins 240a31a."""
    state = state_with({})
    state.os_version = release
    answer = showpfc.sonic_db_cli(state, ["-j", "COUNTERS_DB", "HGETALL", "COUNTERS_PORT_NAME_MAP"])
    if refused:
        assert answer.splitlines() == [
            "Command Line Error: Unknown argument:COUNTERS_DB",
            "usage: sonic-db-cli [-h] [-s] [-n NAMESPACE] db_or_op [cmd [cmd ...]]",
        ]
    else:
        assert list(json.loads(answer)) == state.ports
    plain = showpfc.sonic_db_cli(state, ["COUNTERS_DB", "HGETALL", "COUNTERS_PORT_NAME_MAP"])
    assert list(ast.literal_eval(plain)) == state.ports  # the dict form: every release
