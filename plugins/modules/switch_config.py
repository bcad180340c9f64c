# The implementation is the action plugin of the same name (plugins/action/switch_config.py);
# this file carries its documentation, as Ansible expects for action plugins.

DOCUMENTATION = r"""
---
module: switch_config
short_description: Push a switch's reviewed configuration with the OS's safe-commit model
description:
  - Pushes C(intended/<fabric>/<switch>.cfg), the file rendered by C(gpunet render) and reviewed in
    Git, to one switch over SSH with netmiko, using the platform's commit strategy from gpunet's
    platform registry. NX-OS checkpoint and atomic rollback; EOS configuration session with
    C(commit timer); Cumulus NVUE C(nv config apply --confirm); SONiC C(config checkpoint) and one
    atomic C(config apply-patch); Junos C(configure exclusive) and C(commit confirmed).
  - After a timed commit the change is confirmed over a new SSH session, so a change that cuts
    management access rolls itself back. On NX-OS and SONiC (no timer) reachability is proved over a
    new session, and the change is rolled back through the open one when that fails.
  - Every configuration line's output is checked for the OS's error text; any error, a dropped
    session or lost reachability leaves the previous configuration.
  - Before a change the running configuration is saved to C(<backup_dir>/<switch>/<UTC timestamp>.cfg)
    with password hashes and secrets masked.
  - Declarative within what gpunet owns. gpunet owns the objects it names (GPUNET-/gpunet- policies,
    profiles, schedulers, maps) and the QoS/MTU statements on the ports intended/ configures (or still
    binds to a gpunet object); within that scope a line the intended file lacks is removed, so the
    switch converges to intended/. Everything else (other objects, other statements on those ports,
    the vendor's factory defaults) is never read into the change and is left as it is. The per-OS
    scope and its sources are in docs/switch-push.md, "What gpunet owns".
  - Connection comes from the host's C(ansible_host), C(ansible_port), C(ansible_user) and
    C(ansible_password); host keys are checked against O(known_hosts) unless the host sets
    C(gpunet_ssh_host_key_checking=false). Credentials are never returned or logged.
  - Runs on the controller. Check mode prints the diff and changes nothing.
version_added: "0.1.0"
author: gpunet developers (!UNKNOWN)
requirements:
  - On the controller, the gpunet Python package and netmiko.
options:
  src:
    description: The reviewed configuration file to push (C(intended/<fabric>/<switch>.cfg)).
    type: path
    required: true
  backup_dir:
    description: Folder that receives C(<switch>/<UTC timestamp>.cfg) backups before a change.
    type: path
    required: true
  known_hosts:
    description: known_hosts file holding the switches' SSH host keys (required when host key checking is on).
    type: path
  confirm_timeout_s:
    description:
      - Commit-confirm window in seconds on EOS and Cumulus; Junos rounds it up to whole minutes.
      - An unconfirmed change rolls back when it expires.
    type: int
    default: 300
  command_timeout_s:
    description: How long one command may take before the session counts as lost.
    type: float
    default: 60
  connect_timeout_s:
    description: SSH connect and login timeout in seconds.
    type: float
    default: 15
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode),
      when in diff mode.
    support: full
notes:
  - The switch simulator (C(gpunet switchsim)) stands in for the switch OSes in tests and in the lab.
"""

EXAMPLES = r"""
- name: Push the reviewed QoS configuration
  gpunet.fabric.switch_config:
    src: "{{ intended_root }}/{{ gpunet_fabric.name }}/{{ inventory_hostname }}.cfg"
    backup_dir: "{{ playbook_dir }}/../backups"
    known_hosts: ~/.ssh/known_hosts
    confirm_timeout_s: 300
  vars:
    intended_root: "{{ ansible_inventory_sources | gpunet.fabric.intended_root }}"
"""

RETURN = r"""
msg:
  description: "What happened, e.g. C(leaf01: committed, confirmed and saved) or C(no change)."
  returned: always
  type: str
backup:
  description: Path of the running-config backup taken before the change; null when nothing changed.
  returned: success
  type: str
config_state:
  description: >-
    What the switch holds afterwards: C(committed), C(unchanged), C(rolled back),
    C(rolling back by itself at HH:MM:SS UTC) (an unconfirmed commit waiting for the OS's timer),
    C(live unsaved) (confirmed, but the save was refused or lost) or C(unknown...) (read the switch).
  returned: always
  type: str
diff:
  description: The change (device diff on EOS, Cumulus and Junos; computed on NX-OS and SONiC), with --diff.
  returned: when changed and diff mode is on
  type: dict
"""
