# The implementation is the action plugin of the same name (plugins/action/render.py);
# this file carries its documentation, as Ansible expects for action plugins.

DOCUMENTATION = r"""
---
module: render
short_description: Render every switch's intended RoCE QoS configuration
description:
  - Builds the fabric from the play's hostvars exactly like C(gpunet render) and writes, for every
    switch, C(<switch>.cfg) (exactly what the push sends) and C(<switch>.md) (a human summary) to
    I(out_dir). Only files whose content changed are written; files of switches no longer in the
    inventory are removed when the folder's manifest C(.gpunet-render.json) says gpunet wrote them
    and they were not edited since. Other files are left alone and listed.
  - Fails, writing nothing, when I(out_dir) is not a folder, or holds files gpunet did not write
    and no manifest (unless I(force)).
  - Fails, writing nothing, when the inventory check finds problems.
  - Needs no vault password, since rendering reads no secret. Without one, vault-encrypted variable
    files are left unread (as C(gpunet render) does) and listed in C(skipped_vault_files).
  - Runs on the controller and never connects to a host. In check mode nothing is written and
    C(changed) says whether something would be; with C(--diff) each changed file is shown.
  - The format of the rendered files is described in docs/switch-rendering.md.
version_added: "0.1.0"
author: gpunet developers (!UNKNOWN)
options:
  out_dir:
    description:
      - Folder for the rendered files.
      - Default C(<project>/intended/<fabric name>), as for C(gpunet render). The project is the
        folder that holds the inventory's C(inventories/) folder, else the folder that holds the
        inventory (the filter C(gpunet.fabric.intended_root) gives the push the same path). Never the
        folder C(ansible-playbook) runs in, nor inside the installed collection.
    type: path
    required: false
  force:
    description:
      - Write into a folder that holds files gpunet did not write and has no manifest. Those files
        are still left alone.
    type: bool
    default: false
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode),
      when in diff mode.
    support: full
"""

EXAMPLES = r"""
- name: Render switch configurations to intended/<fabric>/
  gpunet.fabric.render:

- name: Render somewhere else
  gpunet.fabric.render:
    out_dir: /tmp/intended-review
"""

RETURN = r"""
out_dir:
  description: Folder the files were compared with and written to.
  returned: success
  type: str
created:
  description: Files that did not exist and were (or in check mode would be) written.
  returned: success
  type: list
  elements: str
updated:
  description: Files whose content changed.
  returned: success
  type: list
  elements: str
removed:
  description: Rendered files of switches no longer in the inventory.
  returned: success
  type: list
  elements: str
unchanged:
  description: Number of files already up to date.
  returned: success
  type: int
kept_edited:
  description: Files gpunet wrote for switches no longer in the inventory, edited since, so kept.
  returned: success
  type: list
  elements: str
skipped_vault_files:
  description: Vault-encrypted files not read because no vault password was given.
  returned: when there were such files
  type: list
  elements: str
left_alone:
  description: Files in the folder that gpunet did not write.
  returned: success
  type: list
  elements: str
"""
