"""Whether a GPU host can run the driver it has installed now, needs a reboot first, or cannot load
it at all until someone acts at its console; decided before anything asks nvidia-smi.

The probe (roles/nvidia_driver/tasks/boot_state.yml) prints one `name=value` per line:
loaded / installed (the nvidia module's version in /sys/module and from modinfo, or none), nouveau
(1 where nouveau is loaded: the packages blacklist it, which takes a reboot), secure_boot (enabled,
disabled, unknown: the SecureBoot EFI variable), key (the DKMS module-signing certificate found, or
none) and key_enrolled (yes, no, unknown: `mokutil --test-key`, which prints "<file> is already
enrolled" or "<file> is not enrolled", mokutil src/mokutil.c test_key).
"""

from __future__ import annotations

from typing import Any


def probe_values(text: str) -> dict[str, str]:
    values = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep:
            values[name.strip()] = value.strip()
    return values


def boot_decision(text: str) -> dict[str, Any]:
    """{"reboot_required", "blocked" (why the driver cannot load after any reboot, or ""), "reason"}."""
    probe = probe_values(text)
    loaded, installed = probe.get("loaded", "none"), probe.get("installed", "none")
    blocked = ""
    if probe.get("secure_boot") == "enabled" and probe.get("key_enrolled") == "no":
        key = probe.get("key", "the DKMS signing key")
        blocked = (
            f"Secure Boot is on and {key}, the key DKMS signs the nvidia modules with, is not enrolled"
            f" (mokutil --test-key): the kernel will refuse the modules after any reboot. Enroll it with"
            f" `mokutil --import {key}` and confirm at the console on the next boot (or sign with an"
            " enrolled key); nothing was rebooted"
        )
    reasons = []
    if installed != "none" and loaded != installed:
        reasons.append(f"driver {installed} is installed, {loaded} is loaded")
    if probe.get("nouveau") == "1":
        reasons.append("nouveau is loaded (the driver's packages blacklist it from the next boot)")
    return {"reboot_required": bool(reasons), "blocked": blocked, "reason": "; ".join(reasons)}
