# The implementation is the action plugin of the same name (plugins/action/inventory_check.py);
# this file carries its documentation, as Ansible expects for action plugins.

DOCUMENTATION = r"""
---
module: inventory_check
short_description: Check a gpunet inventory before anything is touched
description:
  - Validates the play's inventory exactly like C(gpunet inventory check) does, from the hostvars
    the play sees. JSON Schema for C(gpunet_fabric) and every GPU host and switch, then the
    cross-checks (QoS consistency, unique addresses, cabling agreed from both ends, speeds, MTU).
  - "Fails with one line per problem: C(<data path>: <what is wrong> (got X, expected Y))."
  - Runs on the controller and never connects to a host; check mode behaves the same.
  - Without a vault password, where the inventory holds a vault-encrypted file, it fails with one line
    naming the file and how to give the password (C(--vault-password-file) or C(--ask-vault-pass)).
    It is the preflight, and the plays after it read those secrets, even under C(--tags render)
    (Ansible checks every role's arguments whatever the tags select). The render alone needs no
    password (C(playbooks/render.yml), C(gpunet render)).
version_added: "0.1.0"
author: gpunet developers (!UNKNOWN)
options: {}
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode),
      when in diff mode.
    support: none
"""

EXAMPLES = r"""
- name: Check the inventory
  gpunet.fabric.inventory_check:
"""

RETURN = r"""
problems:
  description: Every problem found, one line each.
  returned: always
  type: list
  elements: str
summary:
  description: Counts of GPU hosts, switches, NICs and the platforms in use.
  returned: success
  type: dict
"""
