"""Real Slurm (Debian 12's slurm-wlm 22.05, munge) in one podman container: roles/slurm_healthcheck
installs gpunet node-check as HealthCheckProgram; stopping chrony drains the node with gpunet's
reason, starting it again resumes the node; an admin's drain is left alone. A site drop-in that lowers
slurmd's LimitMEMLOCK is overridden by the role's, and the slurmd restart that applies it leaves a
running job running. Measures the drain and resume times (printed; run with -s to see them).

    flock /tmp/gpunet-podman.lock pytest -q -s tests/integration/ops/test_slurm_healthcheck.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpunet.lab.images import IMAGES_DIR, ensure_images, image_tag
from gpunet.lab.paths import LabPaths
from gpunet.lab.podman import Podman
from tests.conftest import REPO_ROOT
from tests.playbook import run_playbook

pytestmark = [pytest.mark.podman]

HERE = Path(__file__).parent / "slurm"
CONTAINER = "gpunet-test-slurm"
NODE = "gpu03"  # a GPU host of inventories/lab: its expectations come from that inventory
INTERVAL_S = 5  # HealthCheckInterval
WAIT_S = 90.0
# What a container without GPUs/RDMA NICs and without site.yml's firewall and NCCL config can pass:
# ntp_offset really, the hardware checks as skipped for the inventory's declared reason.
CHECKS = ["ntp_offset", "nic_port_state", "roce_v2_gid", "nic_qos", "gpu_count", "nvlink"]
# A site's drop-in that lowers slurmd's locked-memory limit below its unit's infinity, and gpunet's.
SITE_DROPIN = "/etc/systemd/system/slurmd.service.d/50-site.conf"
GPUNET_DROPIN = "/etc/systemd/system/slurmd.service.d/90-gpunet-memlock.conf"


@pytest.fixture(scope="module")
def podman() -> Podman:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed")
    return Podman(LabPaths(REPO_ROOT).containers_conf)


@pytest.fixture(scope="module")
def slurm_node(podman: Podman) -> Iterator[Callable[..., str]]:
    images = ensure_images(podman, LabPaths(REPO_ROOT), lambda message: None)
    tag = image_tag("slurm")
    if not podman.exists("image", tag):
        podman.run(
            "build",
            "--quiet",
            "--build-arg",
            f"NODE_IMAGE={images.node}",
            "-t",
            tag,
            str(IMAGES_DIR / "slurm"),
        )
    if podman.exists("container", CONTAINER):
        podman.run("rm", "--force", CONTAINER)
    podman.run("run", "--detach", "--name", CONTAINER, "--hostname", NODE, tag)

    def run(*argv: str, check: bool = True) -> str:
        if check:
            return podman.run("exec", CONTAINER, *argv, timeout=60)
        done = subprocess.run(
            ["podman", "exec", CONTAINER, *argv], env=podman.env, capture_output=True, text=True
        )
        return done.stdout + done.stderr

    try:
        wait_for(lambda: "running" in run("systemctl", "is-system-running", check=False) or None, "systemd")
        podman.run("cp", str(HERE / "slurm.conf"), f"{CONTAINER}:/etc/slurm/slurm.conf")
        podman.run("cp", str(HERE / "chrony.conf"), f"{CONTAINER}:/etc/chrony/chrony.conf")
        # chronyd -x only measures (a container may not set the clock), so it needs no CAP_SYS_TIME.
        run("sh", "-c", "mkdir -p /etc/systemd/system/chrony.service.d && "
            "printf '[Unit]\\nConditionCapability=\\n' > /etc/systemd/system/chrony.service.d/lab.conf && "
            "echo 'DAEMON_OPTS=\"-x\"' > /etc/default/chrony && systemctl daemon-reload")  # fmt: skip
        run("systemctl", "start", "munge", "chrony", "slurmctld", "slurmd")
        yield run
    finally:
        podman.run("rm", "--force", "--time", "2", CONTAINER)


def wait_for(probe: Callable[[], str | None], what: str, timeout_s: float = WAIT_S) -> float:
    """Seconds until probe() returns something true; fails naming `what` after timeout_s."""
    start = time.monotonic()
    while True:
        if probe():
            return time.monotonic() - start
        if time.monotonic() - start > timeout_s:
            pytest.fail(f"{what} did not happen within {timeout_s:.0f} s")
        time.sleep(0.5)


def apply_role(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        f"all:\n  hosts:\n    {NODE}:\n      ansible_connection: containers.podman.podman\n"
        f"      ansible_host: {CONTAINER}\n      ansible_python_interpreter: /usr/bin/python3\n"
    )
    playbook = tmp_path / "play.yml"
    playbook.write_text("- hosts: all\n  gather_facts: false\n  roles:\n    - role: slurm_healthcheck\n")
    extra = {
        "slurm_healthcheck_inventory": str(REPO_ROOT / "inventories" / "lab"),
        # The role's own install: the controller-built bundle, run by Debian 12's python3 (3.11).
        "slurm_healthcheck_bundle_build": str(tmp_path / "gpunet-node-check.pyz"),
        "slurm_healthcheck_interval": INTERVAL_S,
        "slurm_healthcheck_checks": CHECKS,
    }
    return run_playbook("-i", str(inventory), str(playbook), "-e", json.dumps(extra), "--diff")


def locked_memory(run: Callable[..., str], pid: str) -> str:
    """The soft `Max locked memory` of a process, from /proc/<pid>/limits."""
    line = run("grep", "^Max locked memory", f"/proc/{pid}/limits")
    return line.split()[3]


def sinfo_reasons(run: Callable[..., str]) -> list[list[str]]:
    """`sinfo -R -h -o '%n|%T|%E'` rows: node, state, reason."""
    out = run("sinfo", "-R", "-h", "-o", "%n|%T|%E", check=False)
    return [line.split("|") for line in out.splitlines() if "|" in line]


def test_slurm_drains_and_resumes_on_gpunet_checks(slurm_node: Callable[..., str], tmp_path: Path) -> None:
    run = slurm_node
    # A site lowered slurmd's limit; a job runs while the role restarts slurmd.
    run("sh", "-c", f"mkdir -p {SITE_DROPIN.rsplit('/', 1)[0]} && "
        f"printf '[Service]\\nLimitMEMLOCK=65536\\n' > {SITE_DROPIN} && "
        "systemctl daemon-reload && systemctl restart slurmd")  # fmt: skip
    slurmd_pid = run("systemctl", "show", "--value", "--property=MainPID", "slurmd.service").strip()
    assert locked_memory(run, slurmd_pid) == "65536"
    wait_for(lambda: "idle" in run("sinfo", "-h", "-n", NODE, "-o", "%T", check=False), f"{NODE} idle")
    job = run("sbatch", "--parsable", "--output=/dev/null", "--wrap", "sleep 300").strip()
    wait_for(lambda: run("squeue", "-h", "-j", job, "-o", "%T", check=False).strip() == "RUNNING", "the job")

    first = apply_role(tmp_path)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    assert "LimitMEMLOCK=infinity" in run("cat", GPUNET_DROPIN)
    show = run("systemctl", "show", "--property=LimitMEMLOCK,LimitMEMLOCKSoft", "slurmd.service")
    assert show.split() == ["LimitMEMLOCK=infinity", "LimitMEMLOCKSoft=infinity"]
    # Restarted: the new slurmd has what systemd can grant (the container's own hard limit caps infinity).
    slurmd_pid = run("systemctl", "show", "--value", "--property=MainPID", "slurmd.service").strip()
    assert locked_memory(run, slurmd_pid) == locked_memory(run, "1")
    assert "Slurm propagates the MEMLOCK limit (PropagateResourceLimits=ALL" in first.stdout
    # The job's slurmstepd outlived slurmd's restart (KillMode=process).
    assert run("squeue", "-h", "-j", job, "-o", "%T").strip() == "RUNNING"
    run("scancel", job)

    again = apply_role(tmp_path)
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout[-3000:]
    conf = run("cat", "/etc/slurm/slurm.conf")
    assert (
        f"HealthCheckProgram=/usr/local/sbin/gpunet-healthcheck\nHealthCheckInterval={INTERVAL_S}\n" in conf
    )
    wait_for(lambda: "idle" in run("sinfo", "-h", "-n", NODE, "-o", "%T", check=False), f"{NODE} idle")

    healthy = run("/usr/local/sbin/gpunet-healthcheck", check=False)
    assert healthy.startswith("gpunet: healthy (1 passed, 8 skipped)"), healthy

    run("systemctl", "stop", "chrony")
    drain_s = wait_for(lambda: sinfo_reasons(run), "the drain")
    [(node, state, reason)] = sinfo_reasons(run)
    assert node == NODE and state in ("drained", "draining")
    assert reason == f"gpunet: ntp_offset {NODE} could not run: 506 Cannot talk to daemon"

    run("systemctl", "start", "chrony")
    resume_s = wait_for(lambda: not sinfo_reasons(run), "the resume")
    # slurmctld and slurmd share one container here: a ping may be late ("idle*") for a moment.
    wait_for(lambda: run("sinfo", "-h", "-n", NODE, "-o", "%T").strip() == "idle", f"{NODE} idle again")
    print(f"\nslurm health check (HealthCheckInterval={INTERVAL_S}): drained {drain_s:.1f} s after chrony "
          f"stopped, resumed {resume_s:.1f} s after it started")  # fmt: skip

    # An admin's drain stays, through healthy checks.
    run("scontrol", "update", f"NodeName={NODE}", "State=DRAIN", "Reason=admin: replacing DIMM B2")
    time.sleep(3 * INTERVAL_S)
    assert sinfo_reasons(run) == [[NODE, "drained", "admin: replacing DIMM B2"]]
