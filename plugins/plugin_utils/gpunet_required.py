"""What a gpunet.fabric plugin does when the gpunet Python package is missing on the controller.

Each plugin imports gpunet inside ``try``/``except ImportError`` and keeps the error: the plugin still
loads (so ``ansible-doc`` lists it and ansible-test's import test passes, which imports plugins where
only Ansible is installed), and the first use raises one AnsibleError naming the package and the
Python that lacks it, instead of an import traceback ending in "this is probably a bug".
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleError

MESSAGE = (
    "the gpunet.fabric plugins need the gpunet Python package in the Python that runs Ansible "
    "({python}): install it there with {install}, or run Ansible from the virtualenv that has it"
)
# The built collection ships gpunet's wheel (scripts/build-collection.sh); a checkout's plugins/ has none.
COLLECTION = Path(__file__).resolve().parents[2]
WHEELS = COLLECTION / "wheels"


def install_hint(python: str) -> str:
    """The command that installs gpunet: from the wheel the collection carries, else from a checkout."""
    if WHEELS.is_dir():
        return f"`{python} -m pip install --find-links {WHEELS} -r {COLLECTION / 'requirements.txt'}`"
    return f"`{python} -m pip install .` in a gpunet checkout (gpunet is not on PyPI)"


def require_gpunet(import_error: ImportError | None) -> None:
    """Raise the one-line error if the plugin's gpunet imports failed.

    Only a missing gpunet gets the install hint; an ImportError from inside an installed gpunet (a
    missing dependency, a bug) is raised as it is, so its own name is not hidden.
    """
    if import_error is None:
        return
    if importlib.util.find_spec("gpunet") is None:
        raise AnsibleError(
            MESSAGE.format(python=sys.executable, install=install_hint(sys.executable))
        ) from import_error
    raise import_error


def guarded_filters(
    filters: dict[str, Callable[..., Any]], import_error: ImportError | None
) -> dict[str, Callable[..., Any]]:
    """A filter plugin's filters, or, without gpunet, the same names raising the one-line error
    when used (the names stay listed: ``ansible-doc -l -t filter`` loads every filter plugin)."""
    if import_error is None:
        return filters

    def missing_gpunet(*_args: Any, **_kwargs: Any) -> Any:
        require_gpunet(import_error)

    return dict.fromkeys(filters, missing_gpunet)
