"""The lab's podman networks and containers: GPU nodes reachable over real SSH, and the NTP server."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable
from ipaddress import ip_network
from pathlib import Path

from gpunet.lab.errors import LabError
from gpunet.lab.images import LabImages
from gpunet.lab.paths import LABEL
from gpunet.lab.plan import LabNetwork, LabNode, LabPlan
from gpunet.lab.podman import Podman
from gpunet.lab.traffic_folder import MOUNT

SSH_USER = "ops"
# host -> NIC netdev -> its veth end here: what `gpunet switchsim --lldp-wires` reads
Wires = dict[str, dict[str, str]]
BOOT_TIMEOUT_S = 90.0


def ensure_networks(podman: Podman, plan: LabPlan) -> None:
    for network in plan.networks:
        if podman.exists("network", network.name):
            _require_same_network(podman, network)
            continue
        options = ["--opt", f"mtu={network.mtu}"] if network.mtu else []
        options += ["--internal"] if network.internal else []
        podman.run(
            "network", "create", "--label", LABEL, "--subnet", str(network.subnet), *options, network.name
        )


def _require_same_network(podman: Podman, network: LabNetwork) -> None:
    found = podman.run(
        "network", "inspect", "--format", "{{.Internal}} {{range .Subnets}}{{.Subnet}} {{end}}", network.name
    ).split()
    internal, subnets = found[0] == "true", {ip_network(s) for s in found[1:]}
    if network.subnet not in subnets or internal != network.internal:
        raise LabError(
            f"podman network {network.name} exists as {' '.join(found[1:]) or 'no subnet'} "
            f"(internal: {internal}); the lab wants {network.subnet} (internal: {network.internal}): "
            "run `gpunet lab down` first"
        )


def ensure_ntp_server(podman: Podman, plan: LabPlan, image: str) -> None:
    ensure_container(
        podman,
        plan.ntp_container,
        ["--hostname", "ntp", "--network", f"{plan.mgmt.name}:ip={plan.ntp_address}", image],
    )


def ensure_node(podman: Podman, plan: LabPlan, node: LabNode, images: LabImages, traffic_dir: Path) -> None:
    """`traffic_dir`: bind-mounted at traffic_folder.MOUNT, the lab's incast SIMULATION folder."""
    networks = ["--network", plan.mgmt.name]
    for interface in node.interfaces:
        networks += [
            "--network",
            f"{interface.network}:ip={interface.address},interface_name={interface.netdev}",
        ]
    ensure_container(
        podman,
        node.container,
        # NET_ADMIN so the firewall role really loads nftables rules (in the container's own netns);
        # /proc/sys writable so nccl_env sets the netns-scoped port range, as in Molecule.
        [
            "--hostname",
            node.host,
            "--cap-add",
            "NET_ADMIN",
            "--security-opt",
            "unmask=/proc/sys",
            "--volume",
            f"{traffic_dir}:{MOUNT}",
            *networks,
            images.node,
        ],
    )


def ensure_container(podman: Podman, name: str, run_args: list[str]) -> None:
    """The lab container `name` running: left alone if it runs, started if stopped, else created."""
    state = podman.container_state(name)
    if state == "running":
        return
    if state != "absent":
        podman.run("start", name)
        return
    podman.run("run", "--detach", "--name", name, "--label", LABEL, *run_args)


def wait_for_sshd(podman: Podman, node: LabNode, timeout_s: float = BOOT_TIMEOUT_S) -> str:
    """Wait until the node's sshd runs; return its ed25519 host public key ("type base64").

    A container that stops while booting (seen once in CI: systemd exited under load) is started
    again once; if it stops a second time the error gives its exit code and last log lines.
    """
    deadline = time.monotonic() + timeout_s
    restarts_left = 1
    while True:
        try:
            podman.run("exec", node.container, "systemctl", "is-active", "--quiet", "ssh.service")
            key = podman.run("exec", node.container, "cat", "/etc/ssh/ssh_host_ed25519_key.pub")
            return " ".join(key.split()[:2])
        except LabError as error:
            state = podman.container_state(node.container)
            if state not in ("running", "absent") and restarts_left:
                restarts_left -= 1
                podman.run("start", node.container)
                deadline = time.monotonic() + timeout_s
            elif state != "running":
                raise LabError(
                    f"{node.container} stopped while booting: {_stopped(podman, node.container)}"
                ) from None
            elif time.monotonic() > deadline:
                raise LabError(
                    f"{node.container}: sshd did not start within {timeout_s:.0f} s ({error})"
                ) from None
        time.sleep(1)


def _stopped(podman: Podman, name: str) -> str:
    """A stopped container's exit code and its last log lines, for the error that reports it."""
    try:
        code = podman.run("inspect", "--format", "{{.State.ExitCode}}", name).strip()
        logs = podman.run("logs", "--tail", "20", name).strip()
    except LabError as error:
        return f"state unreadable ({error}); `podman logs {name}` may say why"
    tail = logs or "(none)"
    return f"exit code {code}; last log lines:\n{tail}\nRun `gpunet lab down`, then `gpunet lab up` again."


def authorize_key(podman: Podman, node: LabNode, public_key: str) -> None:
    script = (
        f"install -d -m 0700 -o {SSH_USER} -g {SSH_USER} /home/{SSH_USER}/.ssh && "
        f"cat > /home/{SSH_USER}/.ssh/authorized_keys && "
        f"chown {SSH_USER}: /home/{SSH_USER}/.ssh/authorized_keys && "
        f"chmod 0600 /home/{SSH_USER}/.ssh/authorized_keys"
    )
    podman.run("exec", "-i", node.container, "sh", "-c", script, input_text=public_key)


def ensure_ssh_key(key: Path) -> str:
    """The lab's own SSH key pair (made once per lab); returns the public key."""
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gpunet-lab", "-f", str(key)],
            check=True,
            capture_output=True,
        )
    return key.with_suffix(".pub").read_text().strip()


def ssh_command(address: str, key: Path, known_hosts: Path, *remote: str) -> list[str]:
    """ssh exactly as Ansible will connect: the lab key, strict host key checking, no prompts."""
    return [
        "ssh",
        "-i", str(key),
        "-o", f"UserKnownHostsFile={known_hosts}",
        "-o", "StrictHostKeyChecking=yes",
        "-o", "BatchMode=yes",
        "-o", "ConnectTimeout=5",
        f"{SSH_USER}@{address}",
        *remote,
    ]  # fmt: skip


def check_ssh(address: str, key: Path, known_hosts: Path, retries: int = 10) -> str | None:
    """None when `ssh ops@address sudo -n true` works; else the last error."""
    error = ""
    for _ in range(retries):
        done = subprocess.run(
            ssh_command(address, key, known_hosts, "sudo", "-n", "true"),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0:
            return None
        error = done.stderr.strip()
        time.sleep(1)
    return error or "ssh failed"


def remove_lab_containers(podman: Podman, say: Callable[[str], None]) -> None:
    names = podman.labelled("container", LABEL)
    if names:
        say(f"removing containers: {', '.join(sorted(names))}")
        podman.run("rm", "--force", "--time", "2", *names)
    networks = podman.labelled("network", LABEL)
    if networks:
        say(f"removing networks: {', '.join(sorted(networks))}")
        podman.run("network", "rm", "--force", *networks)


def host_link_devices(podman: Podman, plan: LabPlan, sys_class_net: Path = Path("/sys/class/net")) -> Wires:
    """host -> NIC netdev -> the veth end of that NIC in this machine's namespace (on the rail bridge).

    A veth's `iflink` is its peer's ifindex. The peer is found here only with rootful podman;
    rootless podman keeps it in its own namespace, and the NIC is then left out (no LLDP frames).
    """
    by_index: dict[str, str] = {}
    for device in sys_class_net.iterdir():
        with contextlib.suppress(OSError):
            by_index[(device / "ifindex").read_text().strip()] = device.name
    wires: Wires = {}
    for node in plan.nodes:
        for interface in node.interfaces:
            peer = podman.run("exec", node.container, "cat", f"/sys/class/net/{interface.netdev}/iflink")
            device = by_index.get(peer.strip())
            if device is not None:
                wires.setdefault(node.host, {})[interface.netdev] = device
    return wires
