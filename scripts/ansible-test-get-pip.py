"""Stand-in for get-pip.py in ansible-test's pip bootstrap cache, so `ansible-test sanity` runs offline
from ci-files.testing.ansible.com (scripts/sanity.sh puts it where ansible-test looks first).

ansible-test creates each sanity virtualenv without pip, then runs the cached get-pip script in it
as `python get_pip.py --disable-pip-version-check pip==X.Y [--no-setuptools] [--no-wheel]`, and
installs the test's pinned requirements from PyPI with that pip. This does the same with the
interpreter's own ensurepip and PyPI; the version ansible-test asks for is the one installed.
"""

from __future__ import annotations

import subprocess
import sys

OPTIONS_ONLY_GET_PIP_KNOWS = ("--no-setuptools", "--no-wheel")


def main() -> None:
    pip_arguments = [arg for arg in sys.argv[1:] if arg not in OPTIONS_ONLY_GET_PIP_KNOWS]
    python = sys.executable
    subprocess.run([python, "-m", "ensurepip", "--default-pip"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([python, "-m", "pip", "install", "--quiet", *pip_arguments], check=True)
    if "--no-setuptools" in sys.argv:  # Python 3.11's ensurepip installs setuptools too
        subprocess.run([python, "-m", "pip", "uninstall", "--quiet", "--yes", "setuptools"], check=True)


if __name__ == "__main__":
    main()
