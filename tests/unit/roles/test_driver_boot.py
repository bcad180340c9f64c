"""nvidia_driver decides about the reboot before any nvidia-smi check (table over probe outputs),
and stops before rebooting a Secure Boot host whose DKMS key the firmware does not trust."""

from __future__ import annotations

import pytest
import yaml

from gpunet.hosts.driver_boot import boot_decision
from tests.conftest import REPO_ROOT


def probe(**values: str) -> str:
    base = {"loaded": "580.95.05", "installed": "580.95.05", "nouveau": "0", "secure_boot": "disabled"}
    base |= {"key": "/var/lib/dkms/mok.pub", "key_enrolled": "unknown"} | values
    return "".join(f"{name}={value}\n" for name, value in base.items())


CASES = [
    # (probe, reboot required, reason contains, blocked contains)
    (probe(), False, "", ""),
    (probe(loaded="none"), True, "driver 580.95.05 is installed, none is loaded", ""),  # fresh install
    (probe(loaded="580.82.07"), True, "580.95.05 is installed, 580.82.07 is loaded", ""),
    (probe(nouveau="1", loaded="none"), True, "nouveau is loaded", ""),
    (probe(loaded="none", secure_boot="enabled", key_enrolled="no"), True, "",
     "mokutil --import /var/lib/dkms/mok.pub"),
    (probe(loaded="none", secure_boot="enabled", key_enrolled="yes"), True, "is installed", ""),
    # An unenrolled key matters only under Secure Boot.
    (probe(secure_boot="disabled", key_enrolled="no"), False, "", ""),
    (probe(installed="none", loaded="none"), False, "", ""),  # nothing installed: nothing to boot into
]  # fmt: skip


@pytest.mark.parametrize(("text", "reboot", "reason", "blocked"), CASES)
def test_boot_decision(text: str, reboot: bool, reason: str, blocked: str) -> None:
    decision = boot_decision(text)
    assert decision["reboot_required"] is reboot
    assert reason in decision["reason"] and bool(decision["reason"]) is reboot
    assert blocked in decision["blocked"] and bool(decision["blocked"]) is bool(blocked)


def test_no_nvidia_smi_check_runs_before_the_reboot_decision() -> None:
    tasks = yaml.safe_load((REPO_ROOT / "roles/nvidia_driver/tasks/runtime.yml").read_text())
    names = [task["name"] for task in tasks]
    services = next(task for task in tasks if task["name"].startswith("Start the driver's services"))
    assert services["when"] == "not nvidia_driver_boot.reboot_required"
    assert names.index("Stop where Secure Boot will refuse the driver's modules") < names.index(
        "Reboot into the new driver (allowed by nvidia_driver_allow_reboot)"
    )
    commands = [str(task) for task in tasks if "ansible.builtin.include_tasks" not in task]
    assert not any("nvidia-smi" in command for command in commands)  # they all live in services.yml
    assert "nvidia-smi" in (REPO_ROOT / "roles/nvidia_driver/tasks/services.yml").read_text()


def test_the_probe_runs_and_says_every_value(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The role's own probe script, rendered by Ansible's templar and run by bash on this machine
    (no NVIDIA module, no EFI: loaded/installed none, Secure Boot unknown)."""
    import subprocess

    from tests.unit.roles.templar import render_value, role_defaults

    task = yaml.safe_load((REPO_ROOT / "roles/nvidia_driver/tasks/boot_state.yml").read_text())[0]
    key = tmp_path / "it's mok.pub"  # a path a shell would split or unquote
    key.write_text("not a real certificate\n")
    values = role_defaults(REPO_ROOT / "roles/nvidia_driver") | {"nvidia_driver_signing_keys": [str(key)]}
    script = render_value(task["ansible.builtin.shell"], values)
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    probe = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert set(probe) == {"loaded", "installed", "nouveau", "secure_boot", "key", "key_enrolled"}
    assert probe["key"] == str(key)
    assert probe["nouveau"] in ("0", "1")
    assert boot_decision(done.stdout)["blocked"] == ""
