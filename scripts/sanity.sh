#!/usr/bin/env bash
# `ansible-test sanity` on the gpunet.fabric collection as installed: built by build-collection.sh,
# installed with ansible-galaxy into a temporary ansible_collections/gpunet/fabric, tested there.
#   scripts/sanity.sh [--collection DIR] [ansible-test sanity arguments, e.g. --test pep8]
# --collection tests an already installed .../ansible_collections/gpunet/fabric instead (the tests
# use it on a copy with planted defects). Exit 0 only when every test ran and passed: a test that
# ansible-test skips (it skips one whose virtualenv cannot be made) is a failure here.
#
# Offline from ci-files.testing.ansible.com: ansible-test bootstraps pip into each sanity virtualenv
# with a get-pip script it downloads from there, unless the script is already in its cache
# (~/.ansible/test/cache/get_pip_<version>.py). We put scripts/ansible-test-get-pip.py there; the
# tests' pinned requirements still come from PyPI. HOME points at GPUNET_SANITY_HOME (default
# ~/.cache/gpunet/ansible-test-home, outside the checkout) so the cache and the sanity virtualenvs
# (about 100 s to create) are made once per machine and reused by every checkout and clean clone:
# ansible-test keys each virtualenv by its Python and requirements, and makes a new one when they
# change.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "${1:-}" = "--collection" ]; then
    collection="$(cd "$2" && pwd)"
    shift 2
else
    artifact="$("$here/scripts/build-collection.sh" "$work/dist" | tail -n1)"
    ANSIBLE_COLLECTIONS_PATH="$work/installed" \
        ansible-galaxy collection install --force --no-deps -p "$work/installed" "$artifact" >/dev/null
    collection="$work/installed/ansible_collections/gpunet/fabric"
fi

export HOME="${GPUNET_SANITY_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/gpunet/ansible-test-home}"
python_version="$(python -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
pip_version="$(python - "$python_version" <<'PY'
import sys
from types import SimpleNamespace
from ansible_test._internal.python_requirements import get_venv_packages
print(get_venv_packages(SimpleNamespace(version=sys.argv[1]))["pip"])
PY
)"
mkdir -p "$HOME/.ansible/test/cache"
cp "$here/scripts/ansible-test-get-pip.py" "$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"

cd "$collection"
status=0
env -u ANSIBLE_CONFIG -u ANSIBLE_COLLECTIONS_PATH \
    ansible-test sanity --python "$python_version" --color no "$@" 2>&1 | tee "$work/sanity.log" || status=$?
if grep -q 'Skipping sanity test' "$work/sanity.log"; then
    echo "sanity.sh: ansible-test skipped a test (above); that is a failure here" >&2
    status=1
fi
exit "$status"
