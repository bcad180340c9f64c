"""`gpunet node-check` end to end on this machine, with the host tools replaced by scripts that
print recorded output (or fail, hang, or are missing), and Slurm's scontrol by a recorder."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.model.check import load_fabric
from gpunet.nodecheck.expectations import node_expectations
from tests.conftest import REPO_ROOT
from tests.unit.ops.conftest import RECORDED, UNSYNCHRONISED, fake_tool

NTP = "gpunet: ntp_offset gpu01"
CHRONYC_CASES = [
    # (chronyc script, exit code, first words of the line)
    (f"cat {RECORDED / 'chronyc-tracking.txt'}", 0, "gpunet: healthy (10 passed, 0 skipped)"),
    (
        "echo '506 Cannot talk to daemon' >&2; exit 1",
        3,
        f"{NTP} could not run: 506 Cannot talk to daemon",
    ),
    (f"cat <<'END'\n{UNSYNCHRONISED}END", 4, f"{NTP} Not synchronised, offset 0.000 ms"),
    (
        "sleep 30",
        3,
        f"{NTP} could not run: `chronyc tracking` exited None: timed out after 1 s",
    ),
]


@pytest.mark.parametrize(("script", "code", "line"), CHRONYC_CASES)
def test_one_line_and_exit_code_per_chrony_state(
    node: Path, script: str, code: int, line: str, capsys
) -> None:
    fake_tool(node / "bin", "chronyc", script)
    argv = ["node-check", "--expectations", str(node / "expect.json"), "--timeout", "1"]
    assert main([*argv, "--checks", "ntp_offset,firewall_rules,nic_port_state"]) == code
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(line), out


def test_a_hanging_command_is_cut_at_its_timeout(node: Path, capsys) -> None:
    fake_tool(node / "bin", "chronyc", "sleep 30")
    argv = [
        "node-check",
        "--expectations",
        str(node / "expect.json"),
        "--timeout",
        "0.5",
        "--checks",
        "ntp_offset",
    ]
    assert main(argv) == 3
    assert "timed out after 0.5 s" in capsys.readouterr().out


def test_hardware_checks_are_skipped_for_the_declared_reason(node: Path, capsys) -> None:
    document = json.loads((node / "expect.json").read_text())
    document["hosts"]["gpu01"].update(has_gpus=False, has_rdma_nics=False, hardware_reason="lab container")
    (node / "expect.json").write_text(json.dumps(document))
    (node / "bin" / "ibstat").unlink()  # as in a container: no RDMA tools at all
    argv = ["node-check", "--expectations", str(node / "expect.json"), "--format", "prometheus"]
    assert main([*argv, "--checks", "nic_port_state,roce_v2_gid,nic_qos,gpu_count,nvlink"]) == 0
    text = capsys.readouterr().out
    assert 'gpunet_checks{source="node-check",status="skipped"} 26.0' in text
    assert 'gpunet_checks{source="node-check",status="fail"} 0.0' in text


def test_the_textfile_is_written_beside_the_line(node: Path, capsys) -> None:
    fake_tool(node / "bin", "chronyc", "exit 1")
    textfile = node / "textfile" / "gpunet-node.prom"
    argv = ["node-check", "--expectations", str(node / "expect.json"), "--checks", "ntp_offset"]
    assert main([*argv, "--textfile", str(textfile)]) == 3
    assert 'source="node-check",status="error",switch="",target="gpu01"} 1.0' in textfile.read_text()
    assert 'check="ntp_offset",host="gpu01"' in textfile.read_text()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ('{"version": 1}', "missing field 'hosts'"),
    ],
)
def test_an_unusable_expectations_file_is_a_usage_error(tmp_path: Path, content, message, capsys) -> None:
    path = tmp_path / "expect.json"
    if content is not None:
        path.write_text(content)
    assert main(["node-check", "--expectations", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err


def test_expectations_come_from_the_inventory_for_one_host(capsys) -> None:
    assert main(["node-expectations", "-i", str(REPO_ROOT / "inventories" / "lab"), "--host", "gpu03"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document["hosts"]) == ["gpu03"]
    assert [nic["switch_port"] for nic in document["hosts"]["gpu03"]["nics"]] == ["Ethernet1/3", "swp3"]
    assert document["switches"] == {} and document["pair_rounds"] == []


def test_an_unknown_host_names_the_known_ones(capsys) -> None:
    fabric = load_fabric(str(REPO_ROOT / "inventories" / "lab"))
    with pytest.raises(ValueError, match="gpu01, gpu02, gpu03, gpu04"):
        node_expectations(fabric, "gpu09")
    assert main(["node-expectations", "-i", str(REPO_ROOT / "inventories" / "lab"), "--host", "gpu09"]) == 2


# mlnx_qos as recorded on gpu01, with one setting roce_host makes changed on one NIC: the node check's
# default set judges it, so the drift drains the node.
NIC_SETTING_DRIFT = [
    # (sed expression on enp24s0np0's capture, the check the line names)
    ("s/Cable len: 3/Cable len: 7/", "nic_cable_length"),
    ("s/tsa: ets, bw: 60%/tsa: ets, bw: 50%/; s/tsa: ets, bw: 40%/tsa: ets, bw: 50%/", "nic_ets"),
    ("/priority:  4$/d; s/^\\( *priority:  3\\)$/\\1\\n         priority:  4/", "nic_prio_tc"),
]


@pytest.mark.parametrize(("edit", "check"), NIC_SETTING_DRIFT)
def test_the_default_checks_catch_nic_settings_that_drifted(
    node: Path, edit: str, check: str, capsys
) -> None:
    fake_tool(
        node / "bin",
        "mlnx_qos",
        f'if [ "$2" = enp24s0np0 ]; then sed -e {shlex.quote(edit)} {RECORDED}/mlnx_qos.$2.txt;'
        f" else cat {RECORDED}/mlnx_qos.$2.txt; fi",
    )
    assert main(["node-check", "--expectations", str(node / "expect.json"), "--timeout", "2"]) == 4
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(f"gpunet: {check} gpu01:"), out
