"""The lab's real Slurm with gpunet's health check: `gpunet lab up` (slurmctld + slurmd + munge),
playbooks/base.yml (chrony from the lab NTP server, the nftables firewall with its drop policy
and Slurm openings, NCCL config), then roles/slurm_healthcheck. Stopping chrony on gpu03 drains
exactly gpu03 with gpunet's reason; starting it resumes gpu03. Prints the drain and resume times.

    flock /tmp/gpunet-podman.lock pytest -q -s tests/e2e/test_lab_slurm.py
"""

from __future__ import annotations

import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.lab.slurm import CONTROLLER_CONTAINER, HEALTH_CHECK_INTERVAL_S
from tests.conftest import REPO_ROOT
from tests.e2e.test_lab import INVENTORY, NODES, recap, run

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

FAULTY = "gpu03"
WAIT_S = 180.0
# The lab image carries no gpunet: this checkout, run by Debian's Python with Debian's libraries
# (the role's slurm_healthcheck_install: false case).
PLAY = """
- name: gpunet on the lab nodes, as an image would carry it
  hosts: gpu_nodes
  become: true
  gather_facts: false
  tasks:
    - name: Python libraries of gpunet node-check
      ansible.builtin.apt:
        name: [python3-yaml, python3-prometheus-client, python3-rich]
        update_cache: true
    - name: Folder
      ansible.builtin.file: {path: /opt/gpunet-src, state: directory, mode: "0755"}
    - name: This checkout's gpunet package
      ansible.builtin.unarchive: {src: "{{ gpunet_tarball }}", dest: /opt/gpunet-src}
    - name: The node check command
      ansible.builtin.copy:
        dest: /usr/local/bin/gpunet-node-check
        mode: "0755"
        content: |
          #!/bin/sh
          PYTHONPATH=/opt/gpunet-src exec python3 -m gpunet.nodecheck "$@"
- name: Slurm health check
  hosts: gpu_nodes
  become: true
  gather_facts: false
  roles:
    - role: slurm_healthcheck
      slurm_healthcheck_install: false
      slurm_healthcheck_node_command: /usr/local/bin/gpunet-node-check
"""


def sinfo(*args: str) -> str:
    return run("podman", "exec", CONTROLLER_CONTAINER, "sinfo", *args, timeout=30).stdout


def reasons() -> list[list[str]]:
    return [line.split("|") for line in sinfo("-R", "-h", "-o", "%n|%T|%E").splitlines() if "|" in line]


def wait_for(probe: Callable[[], object], what: str) -> float:
    start = time.monotonic()
    while not probe():
        if time.monotonic() - start > WAIT_S:
            pytest.fail(f"{what} did not happen within {WAIT_S:.0f} s: sinfo -R: {reasons()}")
        time.sleep(1)
    return time.monotonic() - start


def all_idle() -> bool:
    states = sinfo("-h", "-N", "-o", "%N %T").split()
    return not reasons() and states == [word for node in NODES for word in (node, "idle")]


def test_slurm_drains_and_resumes_the_node_gpunet_judges(lab, tmp_path: Path) -> None:
    base = run("ansible-playbook", "playbooks/base.yml", "-i", INVENTORY)
    assert base.returncode == 0
    tarball = tmp_path / "gpunet.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(REPO_ROOT / "src" / "gpunet", arcname="gpunet")
    playbook = tmp_path / "healthcheck.yml"
    playbook.write_text(PLAY)
    extra = json.dumps({"gpunet_tarball": str(tarball)})
    installed = run("ansible-playbook", str(playbook), "-i", INVENTORY, "-e", extra)
    assert installed.returncode == 0
    assert all(host["failed"] == 0 for host in recap(installed.stdout).values())

    # Nodes chrony had not synchronised yet may be drained by gpunet at first; it resumes them.
    wait_for(all_idle, "every node idle with no drain reason")

    run("podman", "exec", f"gpunet-lab-{FAULTY}", "systemctl", "stop", "chrony")
    drain_s = wait_for(reasons, f"the drain of {FAULTY}")
    assert reasons() == [
        [FAULTY, reasons()[0][1], f"gpunet: ntp_offset {FAULTY} could not run: 506 Cannot talk to daemon"]
    ]
    assert reasons()[0][1] in ("drained", "draining")

    run("podman", "exec", f"gpunet-lab-{FAULTY}", "systemctl", "start", "chrony")
    resume_s = wait_for(all_idle, f"the resume of {FAULTY}")
    print(
        f"\nlab Slurm (HealthCheckInterval={HEALTH_CHECK_INTERVAL_S}): {FAULTY} drained {drain_s:.1f} s "
        f"after chrony stopped, resumed {resume_s:.1f} s after it started"
    )
