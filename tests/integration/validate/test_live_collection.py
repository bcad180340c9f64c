"""gpunet-validate -i: the ansible-runner driven collection, end to end, against this machine only.

The minimal fixture inventory is copied with every GPU host on a local connection and every
switch on 127.0.0.1 with host key checking on and no known_hosts file, so nothing leaves this
machine: the switch collection stops before connecting, and the host commands are read-only.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from gpunet.validate.cli import main
from tests.conftest import FIXTURES_DIR

MINIMAL = FIXTURES_DIR / "inventories" / "valid" / "minimal"
REASON = "test machine: no GPU or RDMA NIC"


def local_inventory(tmp_path: Path) -> Path:
    inventory = tmp_path / "inventory"
    shutil.copytree(MINIMAL, inventory)
    for number, host_file in enumerate(sorted((inventory / "host_vars").glob("*.yml"))):
        host = yaml.safe_load(host_file.read_text())
        # Management addresses must be unique: switches get a port each on 127.0.0.1 (never
        # dialled), GPU hosts a loopback address each (local connection; iperf3 stays on loopback).
        host.update(ansible_host="127.0.0.1", ansible_port=10_000 + number)
        if host_file.stem.startswith("gpu"):
            host.update(
                ansible_host=f"127.0.0.{11 + number}",
                ansible_connection="local",
                # The controller's own Python, as every local-connection play should use.
                ansible_python_interpreter=sys.executable,
                verify_traffic_install_iperf3=False,
                verify_traffic_server_start_s=0,
                verify_traffic_iperf3_seconds=1,
            )
            if host_file.stem == "gpu01":
                # gpu01 declares no GPUs; RDMA NICs are declared nowhere, so perftest really
                # runs (and fails: no perftest or RDMA here) and its inputs are errors.
                host["gpunet_hardware"] = {"gpus": False, "reason": REASON}
        else:
            host.update(gpunet_ssh_host_key_checking=True)
        host_file.write_text(yaml.safe_dump(host))
    # NCCL would bootstrap over the loopback addresses: the firewall policy must open it from there.
    all_vars = inventory / "group_vars" / "all.yml"
    fabric_vars = yaml.safe_load(all_vars.read_text())
    fabric_vars["gpunet_fabric"]["firewall"]["nccl_socket_cidrs"] = ["127.0.0.0/8"]
    all_vars.write_text(yaml.safe_dump(fabric_vars))
    (inventory / "group_vars" / "switches.yml").write_text(
        yaml.safe_dump(
            {"ansible_user": "admin", "verify_switch_known_hosts": str(tmp_path / "no_known_hosts")}
        )
    )
    return inventory


def test_collects_through_ansible_runner_and_judges(tmp_path: Path) -> None:
    artifacts = tmp_path / "artifacts"
    report = tmp_path / "report.json"
    code = main(
        ["-i", str(local_inventory(tmp_path)), "--artifacts", str(artifacts), "--format", "json",
         "--output", str(report), "--quiet"]
    )  # fmt: skip
    document = json.loads(report.read_text())
    assert code == document["exit_code"] and code in (3, 4)  # what fails depends on this machine's tools
    collected = json.loads((artifacts / "manifest.json").read_text())["collected"]
    assert "hosts/gpu02/ibstat.txt" in collected["files"] and isinstance(collected["playbook_rc"], int)
    assert sorted(p.name for p in (artifacts / "hosts" / "gpu01").glob("*.txt")) == sorted(
        ["ibstat.txt", "ibv_devinfo.txt", "nvidia-smi-q.txt", "nvidia-smi-topo.txt", "chronyc-tracking.txt",
         "nft-ruleset.txt", "nccl-conf.txt", "lsmod.txt", "lspci-acs.txt", "lldpctl-json.txt",
         "mlnx_qos.rail0.txt", "mlnx_qos.rail1.txt", "traffic-class.mlx5_0.txt", "traffic-class.mlx5_1.txt",
         "ip-link-json.rail0.txt", "ip-link-json.rail1.txt",
         "roce-gids.mlx5_0.txt", "roce-gids.mlx5_1.txt",
         "mstconfig-lldp.mlx5_0.txt", "mstconfig-lldp.mlx5_1.txt"]
    )  # fmt: skip
    by_check: dict[str, list[dict[str, str]]] = {}
    for result in document["results"]:
        by_check.setdefault(result["check"], []).append(result)
    statuses = {(r["check"], r["target"]): (r["status"], r["message"]) for r in document["results"]}
    assert statuses[("gpu_count", "gpu01")] == ("skipped", f"gpu01: {REASON}")
    assert statuses[("gpu_count", "gpu02")][0] == "error"
    assert {r["status"] for r in by_check["nic_port_state"]} == {"error"}
    # A run including gpu01 is skipped with its reason (none was started); gpu02 alone is an error.
    assert statuses[("nccl_busbw", "nccl:all-nodes")] == ("skipped", f"gpu01: {REASON}")
    assert statuses[("nccl_busbw", "nccl:single-gpu02")][0] == "error"
    assert not (artifacts / "nccl" / "single-gpu02.txt").exists()
    # perftest ran per rail (ring of two hosts: one pair per rail) and its failure is an error.
    for rail in (0, 1):
        assert (artifacts / "pairs" / "0" / f"gpu01__gpu02__mlx5_{rail}.ib_write_bw.txt").is_file()
        assert (artifacts / "pairs" / "0" / f"gpu01__gpu02__mlx5_{rail}.ib_read_lat.txt").is_file()
    assert {r["status"] for r in by_check["pair_bandwidth"]} == {"error"}
    assert len(by_check["pair_bandwidth"]) == 2
    assert [r["status"] for r in by_check["fault_localisation"]] == ["error"]
    # The switches were never contacted: no known_hosts file, so their checks say so (switch_pfc
    # reads every OS, EOS leaf01 included).
    switch_errors = [r for r in by_check["switch_pfc"] if r["status"] == "error"]
    assert {r["target"] for r in switch_errors} == {"leaf01", "leaf02", "spine01"}
    assert all("known_hosts" in r["message"] for r in switch_errors)
    ibstat = (artifacts / "hosts" / "gpu02" / "ibstat.txt").read_text()
    assert "gpunet verify: `ibstat` exited" in ibstat or "CA '" in ibstat
    assert {r["status"] for r in by_check["iperf3_throughput"]} <= {"pass", "fail", "error"}


@pytest.fixture(autouse=True)
def _isolated_runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # ansible-runner writes its job folders under the artifacts folder; keep HOME tidy as well.
    monkeypatch.setenv("ANSIBLE_LOCAL_TEMP", str(tmp_path / "ansible-tmp"))
