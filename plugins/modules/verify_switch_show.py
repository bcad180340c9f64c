"""Documentation of the gpunet.fabric.verify_switch_show action plugin (the code runs on the controller)."""

DOCUMENTATION = r"""
---
module: verify_switch_show
short_description: Save a switch's PFC, ECN and queue show outputs as validation artifacts
description:
  - Opens a netmiko session to the switch (host keys checked unless C(gpunet_ssh_host_key_checking) is false),
    runs the show commands gpunet-validate parses for the switch's platform, and writes each raw output to
    C(<artifacts_dir>/switches/<switch>/<phase>/<tool>.txt).
  - Read-only on the switch. Runs on the controller; the switch's C(ansible_host), C(ansible_port),
    C(ansible_user), C(ansible_password) and C(gpunet_platform) come from the inventory.
options:
  phase:
    description: Whether these counters are from before or after the traffic tests, or around the
      incast stage (C(incast-before), C(incast-after)), which adds the platform's ECN-marking and PFC
      watchdog commands.
    type: str
    required: true
    choices: [before, after, incast-before, incast-after]
  artifacts_dir:
    description: The artifacts folder on the controller.
    type: path
    required: true
  known_hosts:
    description: known_hosts file holding the switch's host key.
    type: path
author: gpunet developers (!UNKNOWN)
requirements:
  - On the controller, the gpunet Python package and netmiko.
attributes:
  check_mode:
    description: Runs in check mode too; read-only on the switch, it writes only the controller's
      artifacts.
    support: partial
  diff_mode:
    description: Returns no diff; it changes nothing on the switch.
    support: none
"""

EXAMPLES = r"""
- name: Save PFC and queue counters before the traffic tests
  gpunet.fabric.verify_switch_show:
    phase: before
    artifacts_dir: /srv/gpunet/artifacts/prod-20260101T000000Z
    known_hosts: ~/.ssh/known_hosts
"""

RETURN = r"""
files:
  description: The artifact files written.
  returned: success
  type: list
  elements: str
"""
