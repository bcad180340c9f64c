"""Documentation of the gpunet.fabric.save_artifacts action plugin (the code runs on the controller)."""

DOCUMENTATION = r"""
---
module: save_artifacts
short_description: Write a set of text files into a folder on the controller in one task
description:
  - Writes each item's C(content) to C(<dest_dir>/<name>), creating the folder, in the controller's own
    process. A loop over M(ansible.builtin.copy) delegated to localhost runs one local module per file;
    this writes them all at once.
  - Leaves a file whose content is already the same untouched. Artifacts are records of a run, not
    host state, so it writes in check mode too and never reports changed.
options:
  dest_dir:
    description: The folder on the controller; created when missing.
    type: path
    required: true
  files:
    description: File name (a path relative to I(dest_dir)) to its text content.
    type: dict
    required: true
author: gpunet developers (!UNKNOWN)
attributes:
  check_mode:
    description: Writes in check mode too, since artifacts are the run's records on the controller,
      not host state; never reports changed.
    support: partial
  diff_mode:
    description: Returns no diff.
    support: none
"""

EXAMPLES = r"""
- name: Save every raw output on the controller
  gpunet.fabric.save_artifacts:
    dest_dir: artifacts/latest/hosts/gpu01
    files:
      ip_link.txt: "1: lo: ..."
"""

RETURN = r"""
files:
  description: The files written or already up to date, as paths.
  returned: success
  type: list
  elements: str
"""
