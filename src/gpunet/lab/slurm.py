"""Slurm in the lab: slurmctld on a controller container, slurmd on every node, munge for auth.

Debian 12's slurm-wlm (22.05) comes with the node image. `gpunet lab up` writes one slurm.conf and
one munge key to every Slurm container and starts the daemons; the controller container carries
the lab label, so `gpunet lab down` removes it with the rest. The slurm.conf is the lab's own
(like a site's Slurm configuration management): roles/slurm_healthcheck installs the health check
program and, in the lab, leaves slurm.conf's health check lines to this module
(slurm_healthcheck_manage_slurm_conf: false in inventories/lab).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from gpunet.lab.errors import LabError
from gpunet.lab.nodes import ensure_container
from gpunet.lab.paths import NAME_PREFIX
from gpunet.lab.plan import LabPlan
from gpunet.lab.podman import Podman

CONTROLLER_HOST = "slurmctl"
CONTROLLER_CONTAINER = f"{NAME_PREFIX}-{CONTROLLER_HOST}"
SLURM_CONF = "/etc/slurm/slurm.conf"
MUNGE_KEY = "/etc/munge/munge.key"
# roles/firewall opens srun's range from the cluster networks (firewall_slurm_srun_port_range);
# slurm.conf must pin srun to it, or srun listens on ephemeral ports no firewall can open.
SRUN_PORT_RANGE = (60001, 63000)
HEALTH_CHECK_PROGRAM = "/usr/local/sbin/gpunet-healthcheck"
HEALTH_CHECK_INTERVAL_S = 10
BOOT_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class SlurmNode:
    host: str
    address: str


def slurm_conf(controller_address: str, nodes: list[SlurmNode]) -> str:
    """The lab cluster's slurm.conf: one partition over every node, no cgroups (containers)."""
    lines = [
        "# Written by `gpunet lab up` (src/gpunet/lab/slurm.py); rewritten on every bring-up.",
        "ClusterName=gpunet-lab",
        f"SlurmctldHost={CONTROLLER_HOST}({controller_address})",
        "AuthType=auth/munge",
        "SlurmUser=slurm",
        "StateSaveLocation=/var/lib/slurm/slurmctld",
        "SlurmdSpoolDir=/var/lib/slurm/slurmd",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres",
        # A node that was DOWN for not responding comes back by itself; drains stay (gpunet's own
        # health check resumes what it drained).
        "ReturnToService=2",
        "SlurmdTimeout=30",
        f"SrunPortRange={SRUN_PORT_RANGE[0]}-{SRUN_PORT_RANGE[1]}",
        f"HealthCheckProgram={HEALTH_CHECK_PROGRAM}",
        f"HealthCheckInterval={HEALTH_CHECK_INTERVAL_S}",
        "HealthCheckNodeState=ANY",
    ]
    lines += [f"NodeName={node.host} NodeAddr={node.address} CPUs=1 State=UNKNOWN" for node in nodes]
    names = ",".join(node.host for node in nodes)
    lines.append(f"PartitionName=gpu Nodes={names} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def ensure_munge_key(path: Path) -> bytes:
    """The lab's munge key, made once per lab (1024 random bytes, as `mungekey` makes)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(secrets.token_bytes(1024))
        path.chmod(0o600)
    return path.read_bytes()


def ensure_controller(podman: Podman, plan: LabPlan, image: str) -> None:
    ensure_container(
        podman,
        CONTROLLER_CONTAINER,
        ["--hostname", CONTROLLER_HOST, "--network", plan.mgmt.name, image],
    )


def start_cluster(podman: Podman, plan: LabPlan, node_addresses: dict[str, str], key_file: Path) -> str:
    """Write slurm.conf and the munge key everywhere, (re)start the daemons; returns the controller
    address."""
    _wait_for_systemd(podman, CONTROLLER_CONTAINER)
    controller = podman.container_address(CONTROLLER_CONTAINER, plan.mgmt.name)
    conf = slurm_conf(controller, [SlurmNode(node.host, node_addresses[node.host]) for node in plan.nodes])
    ensure_munge_key(key_file)
    daemons = {CONTROLLER_CONTAINER: "slurmctld", **{node.container: "slurmd" for node in plan.nodes}}
    for container, daemon in daemons.items():
        _install(podman, container, conf, key_file)
        podman.run("exec", container, "systemctl", "restart", "munge", daemon, timeout=120)
    return controller


def _install(podman: Podman, container: str, conf: str, key_file: Path) -> None:
    podman.run("cp", str(key_file), f"{container}:{MUNGE_KEY}")
    script = (
        f"cat > {SLURM_CONF} && chmod 0644 {SLURM_CONF} && "
        f"chown munge:munge {MUNGE_KEY} && chmod 0400 {MUNGE_KEY}"
    )
    podman.run("exec", "-i", container, "sh", "-c", script, input_text=conf)


def _wait_for_systemd(podman: Podman, container: str, timeout_s: float = BOOT_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            podman.run("exec", container, "systemctl", "is-system-running", "--wait", timeout=30)
            return
        except LabError as error:
            if "degraded" in str(error) or "running" in str(error):
                return  # a unit the lab does not need failed; systemd itself is up
            if time.monotonic() > deadline:
                raise LabError(
                    f"{container}: systemd did not start within {timeout_s:.0f} s ({error})"
                ) from None
        time.sleep(1)
