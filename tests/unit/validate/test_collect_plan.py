"""The collection plan the verify roles loop over: commands, perftest rounds, iperf3, nccl-tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpunet.validate.collect_plan import (
    LSPCI_ACS_SCRIPT,
    MSTCONFIG_LLDP_PARAMETERS,
    MSTCONFIG_LLDP_SCRIPT,
    PERFTEST_BASE_PORT,
    host_commands,
    iperf3_rounds,
    nccl_jobs,
    pair_rounds,
    raw_output,
)
from gpunet.validate.parsers import PARSERS, parse


def nics(host_number: int, rails: int = 2) -> list[dict[str, Any]]:
    return [
        {"name": f"mlx5_{rail}", "netdev": f"rail{rail}", "rail": rail, "ip": f"10.{rail}.0.{host_number}/24"}
        for rail in range(rails)
    ]


def test_every_host_command_saves_a_file_gpunet_can_parse() -> None:
    commands = host_commands(nics(1))
    stems = [command["file"] for command in commands]
    assert len(stems) == 10 + 2 * 5 and len(set(stems)) == len(stems)
    assert {"file": "lldpctl-json", "argv": ["lldpctl", "-f", "json"]} in commands
    assert {stem.split(".")[0] for stem in stems} <= set(PARSERS)
    assert {"file": "mlnx_qos.rail1", "argv": ["mlnx_qos", "-i", "rail1"]} in commands


def test_pair_rounds_match_the_manifest_schedule_and_keep_hosts_in_step() -> None:
    by_host = {f"gpu0{i}": nics(i) for i in range(1, 5)}
    plans = {host: pair_rounds(by_host, host, "ib_write_bw", ["--report_gbits"]) for host in by_host}
    assert {len(plan) for plan in plans.values()} == {2}
    first = plans["gpu01"][0]
    # Round 0 of a 4-host ring: gpu01 -> gpu02 on both rails, one port per rail.
    assert [c["file"] for c in first["clients"]] == [
        "pairs/0/gpu01__gpu02__mlx5_0.ib_write_bw.txt",
        "pairs/0/gpu01__gpu02__mlx5_1.ib_write_bw.txt",
    ]
    assert first["clients"][1]["argv"] == [
        "ib_write_bw", "-d", "mlx5_1", "-p", str(PERFTEST_BASE_PORT + 1), "--report_gbits", "10.1.0.2",
    ]  # fmt: skip
    assert [s["port"] for s in plans["gpu02"][0]["servers"]] == [PERFTEST_BASE_PORT, PERFTEST_BASE_PORT + 1]
    clients = sum(len(r["clients"]) for plan in plans.values() for r in plan)
    servers = sum(len(r["servers"]) for plan in plans.values() for r in plan)
    assert clients == servers == 4 * 2  # four ring pairs per rail


def test_iperf3_rounds_use_the_host_network_address() -> None:
    addresses = {"a": "192.0.2.1", "b": "192.0.2.2", "c": "192.0.2.3"}
    plan = iperf3_rounds(addresses, "c", 5201, 3)
    assert len(plan) == 3
    clients = [client for round_ in plan for client in round_["clients"]]
    assert clients == [
        {
            "argv": ["iperf3", "-c", "192.0.2.1", "-p", "5201", "-t", "3", "-J"],
            "peer_ip": "192.0.2.1",
            "port": 5201,
            "file": "pairs/iperf3/c__a.iperf3.txt",
        }
    ]


@pytest.mark.parametrize(
    ("launcher", "prefix"),
    [
        ("mpirun", ["mpirun", "-np", "16", "-H", "gpu01:8,gpu02:8"]),
        ("srun", ["srun", "-N", "2", "-n", "16", "--nodelist", "gpu01,gpu02"]),
    ],
)
def test_nccl_jobs(launcher: str, prefix: list[str]) -> None:
    gpus = {"gpu01": 8, "gpu02": 8}
    first = nccl_jobs(gpus, "gpu01", launcher, "all_reduce_perf", ["-b", "8"])
    assert first[0] == {"file": "nccl/single-gpu01.txt", "argv": ["all_reduce_perf", "-g", "8", "-b", "8"]}
    assert first[1]["file"] == "nccl/all-nodes.txt"
    assert first[1]["argv"][: len(prefix)] == prefix
    assert first[1]["argv"][-4:] == ["-g", "1", "-b", "8"]
    assert [job["file"] for job in nccl_jobs(gpus, "gpu02", launcher, "all_reduce_perf", [])] == [
        "nccl/single-gpu02.txt"
    ]


@pytest.mark.parametrize(
    ("result", "text"),
    [
        ({"stdout": "CA 'mlx5_0'", "stderr": "", "rc": 0}, "CA 'mlx5_0'\n"),
        ({"stdout": "out\n", "stderr": "warning", "rc": 0}, "out\nwarning\n"),
        (
            {"stdout": "", "stderr": "", "rc": 2, "cmd": ["ibstat"], "msg": "Error executing command."},
            "gpunet verify: `ibstat` exited 2: Error executing command.\n",
        ),
        (
            {
                "stdout": "",
                "stderr": "timeout: failed to run command",
                "rc": 127,
                "cmd": ["timeout", "60", "x"],
            },
            "timeout: failed to run command\ngpunet verify: `timeout 60 x` exited 127: no message\n",
        ),
    ],
)
def test_raw_output_keeps_what_the_command_printed_and_why_it_failed(
    result: dict[str, Any], text: str
) -> None:
    assert raw_output(result) == text


# `lspci -vvv` as it prints two devices (a switch downstream port with ACS, a GPU without), with
# the capability lines the collection leaves out; a second ACS-capable bridge with redirect on.
FULL_LSPCI = """\
17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])
\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx+
\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-
\tLatency: 0, Cache Line Size: 64 bytes
\tBus: primary=17, secondary=18, subordinate=18, sec-latency=0
\tCapabilities: [40] Power Management version 3
\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0+,D1-,D2-,D3hot+,D3cold+)
\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x16
\tCapabilities: [200 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-
\tKernel driver in use: pcieport

18:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)
\tSubsystem: NVIDIA Corporation Device 16c1
\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx+
\tCapabilities: [60] Power Management version 3
\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)
\tKernel driver in use: nvidia
\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia

19:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])
\tCapabilities: [200 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
"""


def _run_lspci_acs(tmp_path: Path, lspci: str | None) -> subprocess.CompletedProcess[str]:
    """LSPCI_ACS_SCRIPT with `lspci` a stand-in printing FULL_LSPCI (or with no lspci at all)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if lspci is not None:
        fake = bin_dir / "lspci"
        fake.write_text(f"#!/bin/sh\n[ \"$1\" = -vvv ] || exit 64\ncat <<'EOF'\n{lspci}EOF\n")
        fake.chmod(0o755)
    environment = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    return subprocess.run(["sh", "-c", LSPCI_ACS_SCRIPT], capture_output=True, text=True, env=environment)


def test_lspci_acs_keeps_device_lines_and_acs_control_only(tmp_path: Path) -> None:
    done = _run_lspci_acs(tmp_path, FULL_LSPCI)
    assert done.returncode == 0
    kept = done.stdout.splitlines()
    assert kept == [line for line in FULL_LSPCI.splitlines() if line[:1].isalnum() or "ACSCtl:" in line]
    assert len(kept) == 5
    assert parse("lspci-acs", done.stdout) == parse("lspci-acs", FULL_LSPCI)
    assert [d["acs_control"]["ReqRedir"] for d in parse("lspci-acs", done.stdout)["devices"]] == [False, True]


def test_lspci_acs_keeps_lspcis_failure(tmp_path: Path) -> None:
    missing = _run_lspci_acs(tmp_path, None)
    assert missing.returncode == 127 and not missing.stdout
    assert "lspci" in missing.stderr


# A stand-in for mstflint's mstconfig: the `query` table of the named parameters for the device
# 0000:c1:00.0 (ports P1 .. P$PORTS), and for a parameter of a port it lacks the `-E-` line after
# the header that the real one prints (mstflint b9d9e84 mlxcfg_ui.cpp queryDevCfg), exit 3.
FAKE_MSTCONFIG = r"""#!/bin/sh
[ "$1" = -d ] && [ "$3" = query ] || exit 64
[ "$2" = 0000:c1:00.0 ] || { echo "-E- Failed to open the device"; exit 1; }
shift 3
printf '\nDevice #1:\n----------\n\nDevice type:        ConnectX7\nDevice:             %s\n\n' 0000:c1:00.0
printf 'Configurations:                                          Next Boot\n'
for p in "$@"; do
  case "$p" in
    *_P2) [ "$PORTS" = 2 ] || { echo "-E- The Device doesn't support $p parameter"; exit 3; } ;;
  esac
  printf '         %-48s%s\n' "$p" "$VALUE"
done
"""


def _run_mstconfig_lldp(tmp_path: Path, *, ports: int, mstconfig: bool = True, linked: bool = True):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("readlink", "awk"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    if mstconfig:
        (bin_dir / "mstconfig").write_text(FAKE_MSTCONFIG)
        (bin_dir / "mstconfig").chmod(0o755)
    sysfs = tmp_path / "infiniband"
    (sysfs / "mlx5_0").mkdir(parents=True)
    function = tmp_path / "devices" / "pci0000:c0" / "0000:c1:00.0"
    function.mkdir(parents=True)
    if linked:
        (sysfs / "mlx5_0" / "device").symlink_to(function)
    environment = {"PATH": str(bin_dir), "PORTS": str(ports), "VALUE": "ALL(2)"}
    argv = ["/bin/sh", "-c", MSTCONFIG_LLDP_SCRIPT, "sh", "mlx5_0", str(sysfs)]
    return subprocess.run(argv, capture_output=True, text=True, env=environment)


@pytest.mark.parametrize(
    ("case", "ports", "mstconfig", "linked", "rc", "parameters", "stderr"),
    [
        ("dual port", 2, True, True, 0, [f"{p}_P{n}" for n in (1, 2) for p in MSTCONFIG_LLDP_PARAMETERS], ""),
        ("single port", 1, True, True, 0, [f"{p}_P1" for p in MSTCONFIG_LLDP_PARAMETERS], ""),
        ("no mstconfig", 1, False, True, 127, None, "mstconfig"),
        ("no PCI device", 1, True, False, 1, None, "no PCI device"),
    ],
)
def test_mstconfig_lldp_capture(
    tmp_path: Path,
    case: str,
    ports: int,
    mstconfig: bool,
    linked: bool,
    rc: int,
    parameters: list[str] | None,
    stderr: str,
) -> None:
    done = _run_mstconfig_lldp(tmp_path, ports=ports, mstconfig=mstconfig, linked=linked)
    assert done.returncode == rc, case
    assert stderr in done.stderr
    if parameters is None:
        assert not done.stdout
        return
    assert "-E-" not in done.stdout
    device = parse("mstconfig-lldp", done.stdout)["devices"]
    assert [d["device"] for d in device] == ["0000:c1:00.0"]
    assert list(device[0]["parameters"]) == parameters
    assert {value["next_boot"] for value in device[0]["parameters"].values()} == {"ALL(2)"}


def test_every_nic_gets_an_mstconfig_lldp_capture() -> None:
    commands = {command["file"]: command["argv"] for command in host_commands(nics(1))}
    assert [file for file in commands if file.startswith("mstconfig-lldp.")] == [
        "mstconfig-lldp.mlx5_0",
        "mstconfig-lldp.mlx5_1",
    ]
    assert commands["mstconfig-lldp.mlx5_1"] == ["sh", "-c", MSTCONFIG_LLDP_SCRIPT, "sh", "mlx5_1"]


def test_every_netdev_gets_an_ip_link_capture() -> None:
    commands = {command["file"]: command["argv"] for command in host_commands(nics(1))}
    assert {file: argv for file, argv in commands.items() if file.startswith("ip-link-json.")} == {
        "ip-link-json.rail0": ["ip", "-j", "link", "show", "dev", "rail0"],
        "ip-link-json.rail1": ["ip", "-j", "link", "show", "dev", "rail1"],
    }
