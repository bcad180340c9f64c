"""playbooks/switches.yml end to end: ansible-playbook -> gpunet.fabric.switch_config -> netmiko ->
simulated switches on 127.0.0.1 (one per switch of a copy of inventories/prod, re-addressed)."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from gpunet.lab.switchsim import SimOptions, SimulatorFleet
from gpunet.model.check import load_fabric
from gpunet.render import render_fabric
from tests.conftest import REPO_ROOT
from tests.playbook import run_playbook

PASSWORD = "lab-only-secret"


def lab_copy_of_prod(tmp_path: Path, fleet: SimulatorFleet, reject: dict[str, str]) -> dict:
    """Copy inventories/prod, start one simulator per switch and point the copy at them."""
    inventory = tmp_path / "inventory"
    shutil.copytree(REPO_ROOT / "inventories" / "prod", inventory)
    (inventory / "group_vars" / "switches" / "vault.yml").unlink()
    (inventory / "vault-password.txt").unlink(missing_ok=True)
    connection = {
        "ansible_user": "netops",
        "ansible_password": PASSWORD,
        "gpunet_ssh_host_key_checking": False,
    }
    (inventory / "group_vars" / "switches" / "connection.yml").write_text(yaml.safe_dump(connection))
    fabric = load_fabric(inventory)
    sims = {}
    for name, switch in fabric.switches.items():
        options = SimOptions(username="netops", password=PASSWORD, reject=reject.get(name))
        sims[name] = fleet.start(
            switch.platform, name, options=options, ports=[p.name for p in switch.ports], model=switch.model
        )
        host_vars = inventory / "host_vars" / f"{name}.yml"
        text = re.sub(r"(?m)^ansible_host: .*$", f"ansible_host: 127.0.0.1\nansible_port: {sims[name].port}",
                      host_vars.read_text())  # fmt: skip
        host_vars.write_text(text)
    intended = tmp_path / "intended"
    for name, rendered in render_fabric(fabric).items():
        target = intended / fabric.name / f"{name}.cfg"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rendered.config)
    return {"inventory": inventory, "intended": intended, "sims": sims, "backups": tmp_path / "backups"}


def push(lab: dict, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_playbook(
        "playbooks/switches.yml",
        "-i", str(lab["inventory"]),
        "-e", f"switch_qos_intended_dir={lab['intended']}",
        "-e", f"switch_qos_backup_dir={lab['backups']}",
        "-e", "switch_qos_confirm_timeout_s=3",
        "-e", "switch_qos_connect_timeout_s=5",
        *extra,
    )  # fmt: skip


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP counters per host."""
    rows = re.findall(r"(?m)^(\S+)\s+:\s+(.*)$", output.split("PLAY RECAP", 1)[-1])
    return {host: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counters)} for host, counters in rows}


def configs(fleet: SimulatorFleet, lab: dict) -> dict:
    return fleet.call(lambda: {name: copy.deepcopy(sim.state.config) for name, sim in lab["sims"].items()})


@pytest.fixture
def fleet():
    with SimulatorFleet() as running:
        yield running


def test_check_mode_shows_diffs_then_push_then_second_run_changes_nothing(fleet, tmp_path):
    lab = lab_copy_of_prod(tmp_path, fleet, reject={})
    before = configs(fleet, lab)

    checked = push(lab, "--check", "--diff")
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-2000:]
    assert "+++ leaf01 intended" in checked.stdout and "+++ spine01 intended" in checked.stdout
    assert configs(fleet, lab) == before

    pushed = push(lab)
    assert pushed.returncode == 0, pushed.stdout[-3000:] + pushed.stderr[-2000:]
    counts = recap(pushed.stdout)
    assert sorted(counts) == sorted(lab["sims"])
    assert all(c["changed"] == 1 and c["failed"] == 0 for c in counts.values()), counts
    after = configs(fleet, lab)
    assert all(after[name] != before[name] for name in after)
    assert PASSWORD not in pushed.stdout + pushed.stderr

    again = push(lab)
    assert again.returncode == 0, again.stdout[-3000:]
    assert all(c["changed"] == 0 for c in recap(again.stdout).values()), recap(again.stdout)
    assert configs(fleet, lab) == after

    # A line intended/ no longer has: --check --diff shows its removal, the same remediation
    # `gpunet drift` reports and the push sends, and changes nothing.
    leaf01 = lab["intended"] / "prod" / "leaf01.cfg"
    dropped = "    pause pfc-cos 3"
    leaf01.write_text(leaf01.read_text().replace(dropped + "\n", "", 1))
    checked = push(lab, "--check", "--diff", "--limit", "leaf01")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert "no pause pfc-cos 3" in checked.stdout
    drift = json.loads(
        subprocess.run(
            [str(REPO_ROOT / ".venv" / "bin" / "gpunet"), "drift", "-i", str(lab["inventory"]),
             "--intended-dir", str(lab["intended"] / "prod"), "--limit", "leaf01", "--format", "json"],
            capture_output=True, text=True, check=False,
        ).stdout
    )  # fmt: skip
    commands = drift["switches"]["leaf01"]["commands"]
    assert "    no pause pfc-cos 3" in commands
    shown = checked.stdout.split("+++ leaf01 intended", 1)[1]
    assert all(command in shown for command in commands)
    assert configs(fleet, lab) == after


def test_failure_in_first_batch_stops_the_rollout(fleet, tmp_path):
    # leaf01 rejects its first queuing line; 25 % of 8 leaves = batches of 2: leaf01+leaf02 first.
    lab = lab_copy_of_prod(tmp_path, fleet, reject={"leaf01": r"^policy-map type queuing"})
    before = configs(fleet, lab)
    result = push(lab)
    assert result.returncode != 0
    assert "rejected" in result.stdout
    after = configs(fleet, lab)
    assert after["leaf01"] == before["leaf01"], "the failed switch keeps its previous config"
    untouched = [name for name in lab["sims"] if name not in ("leaf01", "leaf02")]
    assert {name: after[name] == before[name] for name in untouched} == dict.fromkeys(untouched, True)


def test_switch_show_collection_templates_a_vaulted_password(tmp_path, fleet):
    """prod keeps `ansible_password: "{{ vault_switch_password }}"`: the show collection must log in
    with the templated value, as the push does (it used to send the expression itself)."""
    lab = lab_copy_of_prod(tmp_path, fleet, reject={})
    connection = lab["inventory"] / "group_vars" / "switches" / "connection.yml"
    variables = yaml.safe_load(connection.read_text())
    variables.update({"ansible_password": "{{ lab_switch_secret }}", "lab_switch_secret": PASSWORD})
    connection.write_text(yaml.safe_dump(variables))
    playbook = tmp_path / "collect.yml"
    artifacts = tmp_path / "artifacts"
    task = {"gpunet.fabric.verify_switch_show": {"phase": "before", "artifacts_dir": str(artifacts)}}
    play = {"name": "collect", "hosts": "leaf01", "gather_facts": False, "tasks": [task]}
    playbook.write_text(yaml.safe_dump([play]))
    result = run_playbook(str(playbook), "-i", str(lab["inventory"]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert list((artifacts / "switches" / "leaf01" / "before").glob("*.txt"))
