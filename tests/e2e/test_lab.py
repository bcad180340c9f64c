"""End to end on the lab: up, site.yml twice (the second changes nothing), validate, break one
thing on purpose and see exactly that reported, down (after the other modules: tests/e2e/conftest.py
brings up one lab for all of them). All of tests/e2e runs in `make test`: 12 min 0 s on 2 cores
under a load of 3-5 with the images built, 13 min 38 s with a lab per module (7 December 2026)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpunet.lab.paths import LABEL, LabPaths
from gpunet.lab.podman import Podman
from gpunet.lab.state import LabState
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

INVENTORY = "inventories/lab"
# The lab has four nodes: deploy them in one batch instead of the 25 % batches of a real cluster.
ALL_NODES_AT_ONCE = ("-e", "gpu_nodes_serial=100%")
NODES = ("gpu01", "gpu02", "gpu03", "gpu04")
SWITCHES = ("leaf01", "leaf02", "spine01")
LAB_REASON = "lab container: no GPU or RDMA NIC"
# Checks of what the lab really has: they must pass on every node (the rest need GPUs or RDMA NICs).
REAL_HOST_CHECKS = ("ntp_offset", "firewall_rules", "nccl_config")
# One line of leaf02's rendered configuration (intended/lab/leaf02.cfg) that the fault rejects.
REJECTED_LINE = "nv set qos congestion-control default-global traffic-class 3 ecn enable"
RECAP_LINE = re.compile(
    r"^(?P<host>\S+)\s+: ok=\d+\s+changed=(?P<changed>\d+)\s+"
    r"unreachable=(?P<unreachable>\d+)\s+failed=(?P<failed>\d+)",
    re.M,
)


def _env() -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)  # gpunet, gpunet-validate, ansible-playbook live here
    return {
        **os.environ,
        "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
        "CONTAINERS_CONF": str(REPO_ROOT / "molecule" / "containers.conf"),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_NOCOLOR": "1",
    }


def run(*command: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, cwd=REPO_ROOT, env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    print(f"$ {' '.join(command)}  (rc {done.returncode})\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}")
    return done


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP per host, summed over the plays of a run (site.yml has several)."""
    totals: dict[str, dict[str, int]] = {}
    for match in RECAP_LINE.finditer(output):
        host = totals.setdefault(match["host"], {"changed": 0, "unreachable": 0, "failed": 0})
        for key in host:
            host[key] += int(match[key])
    return totals


def test_first_deploy_succeeds(first_deploy: subprocess.CompletedProcess[str]) -> None:
    done = first_deploy
    assert done.returncode == 0
    hosts = recap(done.stdout)
    assert set(NODES) | set(SWITCHES) <= set(hosts), f"not every lab host was deployed: {sorted(hosts)}"
    assert all(h["failed"] == 0 and h["unreachable"] == 0 for h in hosts.values()), hosts


def test_second_deploy_changes_nothing(lab: LabPaths) -> None:
    done = run("ansible-playbook", "site.yml", "-i", INVENTORY, *ALL_NODES_AT_ONCE)
    assert done.returncode == 0
    hosts = recap(done.stdout)
    assert set(NODES) | set(SWITCHES) <= set(hosts)
    changed = {name: h["changed"] for name, h in hosts.items() if h["changed"]}
    assert changed == {}, f"second run changed something: {changed}"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("validate")


def validate(folder: Path, name: str, *options: str) -> tuple[int, list[dict[str, str]]]:
    """gpunet-validate on the lab: exit code and the JSON report's results."""
    report = folder / f"{name}.json"
    done = run(
        "gpunet-validate", "-i", INVENTORY, "--artifacts", str(folder / name),
        "--format", "json", "--output", str(report), "--quiet", *options,
    )  # fmt: skip
    assert report.exists(), f"gpunet-validate wrote no report (rc {done.returncode}): {done.stderr[-2000:]}"
    return done.returncode, json.loads(report.read_text())["results"]


def not_passed(results: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    quiet = ("pass", "skipped", "not checked")
    return [(r["check"], r["target"], r["status"]) for r in results if r["status"] not in quiet]


def test_lab_validates(lab: LabPaths, reports: Path) -> None:
    rc, results = validate(reports, "healthy")
    assert not_passed(results) == []
    assert rc == 0
    skipped = [r for r in results if r["status"] == "skipped"]
    assert skipped, "the lab has no GPU or RDMA NIC: their checks must say skipped"
    assert all(r["message"].endswith(LAB_REASON) for r in skipped), skipped
    passed = {(r["check"], r["target"]) for r in results if r["status"] == "pass"}
    missing = [(check, node) for check in REAL_HOST_CHECKS for node in NODES if (check, node) not in passed]
    assert missing == [], f"real checks that did not pass: {missing}"


def heard_by(podman: Podman, node: str, netdev: str) -> list[tuple[str, str]]:
    """(SysName, port id) of every neighbour the node's real lldpd holds on `netdev`."""
    raw = json.loads(podman.run("exec", f"gpunet-lab-{node}", "lldpctl", "-f", "json"))
    interfaces = raw.get("lldp", {}).get("interface", [])
    entries = interfaces if isinstance(interfaces, list) else [interfaces]  # lldpctl's one-or-many
    return sorted(
        (next(iter(body["chassis"])), body["port"]["id"]["value"])
        for entry in entries
        for name, body in entry.items()
        if name == netdev
    )


def wait_heard(podman: Podman, node: str, netdev: str, expected: list[tuple[str, str]]) -> None:
    # The simulator sends every 4 s with a 12 s TTL (gpunet.lab.switchsim.lldp_wire).
    deadline = time.monotonic() + 40
    while (seen := heard_by(podman, node, netdev)) != expected and time.monotonic() < deadline:
        time.sleep(2)
    assert seen == expected, f"{node} {netdev}: lldpd holds {seen}, expected {expected}"


def test_cabling_is_read_from_the_hosts_real_lldpd_and_a_swap_is_named(lab: LabPaths, reports: Path) -> None:
    podman = Podman(lab.containers_conf)
    # gpu01 rail0 is cabled to leaf01 Ethernet1/1, gpu02 rail0 to Ethernet1/2 (inventories/lab)
    wait_heard(podman, "gpu01", "rail0", [("leaf01", "Ethernet1/1")])
    wait_heard(podman, "gpu02", "rail0", [("leaf01", "Ethernet1/2")])
    rc, results = validate(reports, "cabling", "--checks", "cabling")
    cabling = [r for r in results if r["check"] == "cabling"]
    assert cabling, "no cabling result"
    assert not_passed(cabling) == []
    # No host link judged from the switch end alone: each host's lldpd saw its leaf port.
    one_end = [(r["target"], r["message"]) for r in cabling if r["target"].startswith("gpu") and r["message"]]
    assert one_end == []
    assert rc == 0

    swap = run("gpunet", "lab", "fault", "leaf01", "--lldp-swap", "Ethernet1/1,Ethernet1/2")
    assert swap.returncode == 0
    try:
        wait_heard(podman, "gpu01", "rail0", [("leaf01", "Ethernet1/2")])
        rc, results = validate(reports, "cabling-swapped", "--checks", "cabling")
    finally:
        assert run("gpunet", "lab", "fault", "leaf01").returncode == 0
    failed = [r for r in results if r["check"] == "cabling" and r["status"] == "fail"]
    assert len(failed) == 1, failed
    (swapped,) = failed
    assert swapped["actual"].startswith("swapped: two cables swapped"), swapped
    ends = ("gpu01:", "gpu02:", "leaf01:Ethernet1/1", "leaf01:Ethernet1/2")
    assert all(end in swapped["target"] for end in ends), swapped["target"]
    assert swapped["message"].startswith("fix: swap the cables"), swapped
    assert "seen from" not in swapped["message"], swapped["message"]
    assert rc == 4
    wait_heard(podman, "gpu01", "rail0", [("leaf01", "Ethernet1/1")])


def test_stopped_chrony_is_reported_on_that_host_only(lab: LabPaths, reports: Path) -> None:
    podman = Podman(lab.containers_conf)
    podman.run("exec", "gpunet-lab-gpu03", "systemctl", "stop", "chrony.service")
    try:
        rc, results = validate(reports, "chrony-stopped")
    finally:
        podman.run("exec", "gpunet-lab-gpu03", "systemctl", "start", "chrony.service")
    assert not_passed(results) == [("ntp_offset", "gpu03", "error")]  # could not run: no daemon
    reported = next(r for r in results if r["status"] == "error")
    assert "Cannot talk to daemon" in reported["message"]  # chronyc's own words, as collected
    assert rc == 3


def test_rejected_switch_line_fails_the_push_and_leaves_the_switch_unchanged(lab: LabPaths) -> None:
    fault = run("gpunet", "lab", "fault", "leaf02", "--factory-reset", "--reject", re.escape(REJECTED_LINE))
    assert fault.returncode == 0
    state = LabState.load(lab.state_file)
    assert state is not None
    leaf02_state = Path(state.switches["leaf02"].state_file)
    before = json.loads(leaf02_state.read_text())["config"]
    done = run("ansible-playbook", "site.yml", "-i", INVENTORY, *ALL_NODES_AT_ONCE)
    assert done.returncode != 0
    hosts = recap(done.stdout)
    assert {name for name, h in hosts.items() if h["failed"]} == {"leaf02"}
    assert REJECTED_LINE in " ".join(done.stdout.split())  # Ansible's YAML output folds long lines
    assert json.loads(leaf02_state.read_text())["config"] == before, "leaf02 was not left as it was"
    healthy = run("gpunet", "lab", "fault", "leaf02")
    assert healthy.returncode == 0


def test_down_removes_everything(lab: LabPaths) -> None:
    done = run("gpunet", "lab", "down", timeout=300)
    assert done.returncode == 0
    podman = Podman(lab.containers_conf)
    assert podman.labelled("container", LABEL) == []
    assert podman.labelled("network", LABEL) == []
    assert not lab.generated.exists()
    assert not lab.state_dir.exists()
    status = run("gpunet", "lab", "status")
    assert status.returncode == 3
    assert "lab is down" in status.stdout
