"""`up`, `down` and `status` of the lab. Every step of `up` checks before it acts, so running it
again repairs what is missing and leaves what runs alone."""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.lab import nodes, slurm, switches, traffic_folder
from gpunet.lab.errors import LabError
from gpunet.lab.images import ensure_images
from gpunet.lab.inventory import remove_generated_inventory, write_generated_inventory
from gpunet.lab.paths import LabPaths
from gpunet.lab.plan import LabPlan, plan_lab
from gpunet.lab.podman import Podman
from gpunet.lab.state import LabState
from gpunet.model.check import check_inventory
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.fabric import Fabric

Say = Callable[[str], None]
# Committed in inventories/lab/group_vars/switches/connection.yml; the simulators accept it.
SWITCH_USERNAME = "admin"


def load_fabric(paths: LabPaths) -> Fabric:
    result = check_inventory(paths.inventory)
    if result.fabric is None:
        raise LabError(
            f"the lab inventory {paths.inventory} is invalid:\n" + "\n".join(str(p) for p in result.problems)
        )
    return result.fabric


def load_plan(paths: LabPaths) -> LabPlan:
    return plan_lab(load_fabric(paths))


def up(paths: LabPaths, say: Say) -> LabState:
    # The previous run's values are rewritten below; a stale or broken file must not block reading.
    remove_generated_inventory(paths)
    # Containers may be new ones with the old names: the first site.yml gathers their facts again.
    shutil.rmtree(paths.fact_cache, ignore_errors=True)
    fabric = load_fabric(paths)
    plan = plan_lab(fabric)
    podman = Podman(paths.containers_conf)
    images = ensure_images(podman, paths, say)
    public_key = nodes.ensure_ssh_key(paths.ssh_key)
    state = LabState.load(paths.state_file) or LabState(
        fabric=plan.fabric, switch_username=SWITCH_USERNAME, switch_password=secrets.token_urlsafe(12)
    )

    say(f"networks: {', '.join(f'{n.name} {n.subnet}' for n in plan.networks)}")
    nodes.ensure_networks(podman, plan)
    say(f"NTP server {plan.ntp_container} at {plan.ntp_address}")
    nodes.ensure_ntp_server(podman, plan, images.ntp)
    state.ntp_address = str(plan.ntp_address)
    # Before the nodes (their bind mount) and the simulators (they serve it): the incast SIMULATION.
    traffic_folder.prepare(paths.traffic_dir, fabric)
    for node in plan.nodes:
        nodes.ensure_node(podman, plan, node, images, paths.traffic_dir)
    for node in plan.nodes:
        host_key = nodes.wait_for_sshd(podman, node)
        nodes.authorize_key(podman, node, public_key)
        address = podman.container_address(node.container, plan.mgmt.name)
        state.nodes[node.host] = address
        state.host_keys[node.host] = f"{address} {host_key}"
        say(f"node {node.host}: {node.container} at {address}")
    slurm.ensure_controller(podman, plan, images.node)
    controller = slurm.start_cluster(podman, plan, state.nodes, paths.state_dir / "munge.key")
    say(f"Slurm: slurmctld on {slurm.CONTROLLER_CONTAINER} at {controller}, slurmd on every node")

    wires = nodes.host_link_devices(podman, plan)
    linked = sum(len(nics) for nics in wires.values())
    planned = sum(len(node.interfaces) for node in plan.nodes)
    say(
        f"LLDP: the simulators send real frames to {linked} of {planned} host NICs"
        + ("" if linked == planned else " (the others' veths are not in this namespace: rootless podman?)")
    )
    paths.switch_dir.mkdir(parents=True, exist_ok=True)
    wires_file = paths.switch_dir / switches.LLDP_WIRES_FILE
    text = json.dumps(wires, indent=1, sort_keys=True) + "\n"
    if not wires_file.is_file() or wires_file.read_text() != text:
        wires_file.write_text(text)
    code = switches.simulator_code_digest(paths.switch_dir)
    for name in sorted(set(state.switches) - {s.name for s in plan.switches}):
        say(f"switch {name} left the inventory: stopping its simulator")
        switches.stop_switch(state.switches.pop(name))
        state.host_keys.pop(name, None)
    for switch in plan.switches:
        running = state.switches.get(switch.name)
        if running is not None and running.code != code and switches.is_simulator(running.pid):
            say(f"switch {switch.name}: simulator code changed since it started: restarting it")
            switches.stop_switch(running)
        if running is None or not switches.is_up(running):
            running = switches.start_switch(
                switch,
                paths.switch_dir,
                state.switch_username,
                state.switch_password,
                running.port if running else None,
                traffic_dir=paths.traffic_dir,
            )
        state.switches[switch.name] = running
        state.host_keys[switch.name] = switches.host_key(running.port)
        say(
            f"switch {switch.name}: {switch.platform} simulator on "
            f"127.0.0.1:{running.port} (pid {running.pid})"
        )
        state.save(paths.state_file)  # a simulator started is a simulator `down` must find

    _write_files(paths, state)
    _verify(paths, state)
    say(f"fabric {plan.fabric} is up: inventory {paths.inventory} (per-run values in {paths.generated})")
    return state


def _write_files(paths: LabPaths, state: LabState) -> None:
    paths.known_hosts.write_text("\n".join(state.host_keys[name] for name in sorted(state.host_keys)) + "\n")
    state.save(paths.state_file)
    write_generated_inventory(state, paths)


def set_switch_faults(
    paths: LabPaths, name: str, faults: list[str], factory_reset: bool, say: Say
) -> switches.RunningSwitch:
    """Restart one simulator with switchsim fault options (none: a healthy switch again).

    factory_reset drops its configuration, so the next deploy has something to push (and to fail).
    The simulator makes a new host key on every start: known_hosts is rewritten.
    """
    state = LabState.load(paths.state_file)
    plan = load_plan(paths)
    switch = next((s for s in plan.switches if s.name == name), None)
    if state is None or switch is None or name not in state.switches:
        known = ", ".join(s.name for s in plan.switches)
        raise LabError(f"no running lab switch {name!r} (lab switches: {known}; is the lab up?)")
    old = state.switches[name]
    switches.stop_switch(old)
    if factory_reset:
        Path(old.state_file).unlink(missing_ok=True)
    running = switches.start_switch(
        switch,
        paths.switch_dir,
        state.switch_username,
        state.switch_password,
        old.port,
        faults,
        traffic_dir=paths.traffic_dir,
    )
    state.switches[name] = running
    state.host_keys[name] = switches.host_key(running.port)
    _write_files(paths, state)
    say(
        f"switch {name}: restarted on 127.0.0.1:{running.port}"
        + (f" with {' '.join(faults)}" if faults else "")
    )
    return running


def _verify(paths: LabPaths, state: LabState) -> None:
    """Prove the lab is usable the way Ansible will use it."""
    for host, address in state.nodes.items():
        error = nodes.check_ssh(address, paths.ssh_key, paths.known_hosts)
        if error:
            raise LabError(f"{host}: ssh ops@{address} with the lab key failed: {error}")
    try:
        result = check_inventory(paths.inventory)
    except InventoryInvalidError as error:  # pragma: no cover - check_inventory returns problems
        raise LabError(str(error)) from None
    if not result.ok:
        raise LabError(
            "the lab inventory with its generated values fails `gpunet inventory check`:\n"
            + "\n".join(str(p) for p in result.problems)
        )


def down(paths: LabPaths, say: Say) -> None:
    """Remove everything `up` made except the images (a reusable build cache)."""
    state = LabState.load(paths.state_file)
    if state:
        for running in state.switches.values():
            if switches.is_simulator(running.pid):
                say(f"stopping simulator {running.name} (pid {running.pid})")
                switches.stop_switch(running)
    nodes.remove_lab_containers(Podman(paths.containers_conf), say)
    for folder in (paths.generated, paths.state_dir, paths.fact_cache):
        if folder.exists():
            say(f"removing {folder.relative_to(paths.root)}/")
            shutil.rmtree(folder)
    say("lab is down (images kept for the next `gpunet lab up`)")


@dataclass
class Component:
    kind: str  # node, ntp, switch, inventory
    name: str
    detail: str
    running: bool


@dataclass
class LabStatus:
    components: list[Component] = field(default_factory=list)

    @property
    def state(self) -> str:
        """up (all running), down (nothing running) or degraded."""
        running = [c.running for c in self.components]
        if running and all(running):
            return "up"
        return "degraded" if any(running) else "down"


def status(paths: LabPaths) -> LabStatus:
    report = LabStatus()
    state = LabState.load(paths.state_file)
    try:
        plan = load_plan(paths)
    except LabError as error:
        report.components.append(Component("inventory", str(paths.inventory), str(error), False))
        return report
    podman = Podman(paths.containers_conf)
    ntp_state = podman.container_state(plan.ntp_container)
    report.components.append(
        Component("ntp", plan.ntp_container, f"{ntp_state} at {plan.ntp_address}", ntp_state == "running")
    )
    for node in plan.nodes:
        container_state = podman.container_state(node.container)
        address = state.nodes.get(node.host, "") if state else ""
        report.components.append(
            Component(
                "node",
                node.host,
                f"{node.container} {container_state} {address}".strip(),
                container_state == "running",
            )
        )
    slurm_state = podman.container_state(slurm.CONTROLLER_CONTAINER)
    report.components.append(
        Component(
            "slurm",
            slurm.CONTROLLER_HOST,
            f"slurmctld in {slurm.CONTROLLER_CONTAINER} {slurm_state}",
            slurm_state == "running",
        )
    )
    for switch in plan.switches:
        running = state.switches.get(switch.name) if state else None
        alive = running is not None and switches.is_up(running)
        detail = (
            f"{switch.platform} simulator on 127.0.0.1:{running.port} pid {running.pid} "
            + ("serving SSH" if alive else "not running")
            + (f" (fault: {' '.join(running.faults)})" if running.faults else "")
            if running
            else f"{switch.platform} simulator not started"
        )
        report.components.append(Component("switch", switch.name, detail, alive))
    generated = paths.generated_inventory.exists()
    report.components.append(
        Component(
            "inventory",
            str(paths.generated_inventory.relative_to(paths.root)),
            "written" if generated else "absent",
            generated,
        )
    )
    return report
