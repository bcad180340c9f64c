"""Imported by every gpunet.fabric plugin that uses the gpunet library, before that library.

Without gpunet on the controller's Python, Ansible would show an import traceback ending in
"this is probably a bug"; an AnsibleError raised while the plugin loads is shown as one line instead.
"""

from __future__ import annotations

import importlib.util
import sys

from ansible.errors import AnsibleError

MESSAGE = (
    "the gpunet.fabric plugins need the gpunet Python package in the Python that runs Ansible "
    "({python}): install it there with `{python} -m pip install gpunet` (from a checkout: "
    "`pip install .`), or run Ansible from the virtualenv that has it"
)

if importlib.util.find_spec("gpunet") is None:
    raise AnsibleError(MESSAGE.format(python=sys.executable))
