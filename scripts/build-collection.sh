#!/usr/bin/env bash
# Build the gpunet.fabric collection artifact (dist/gpunet-fabric-<version>.tar.gz by default).
#
# In the checkout, collections/ansible_collections/gpunet/fabric holds the metadata and links the
# top-level plugins/; ansible-galaxy skips a link that leaves the collection (the 1.2 kB artifact
# of issue 16), so this stages a copy: the metadata, plugins/, roles/, playbooks/ and site.yml as
# playbooks/site.yml (callable as gpunet.fabric.site), then builds that.
#
# The artifact also carries the gpunet wheel its plugins import (wheels/gpunet-<version>-*.whl,
# about 250 kB), built here from a clean copy of the package source: gpunet is not on PyPI, and
# shipping it keeps plugins and library at one version. requirements.txt pins that version and
# meta/execution-environment.yml points ansible-builder at it. PYTHON (default python3) builds the
# wheel; it needs setuptools (no build isolation, so nothing is downloaded).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$here/dist}" && cd "${1:-$here/dist}" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

collection="$stage/ansible_collections/gpunet/fabric"
mkdir -p "$collection"
meta="$here/collections/ansible_collections/gpunet/fabric"
cp -r "$meta/galaxy.yml" "$meta/meta" "$meta/tests" "$meta/changelogs" "$meta/README.md" "$meta/CHANGELOG.rst" \
    "$meta/requirements.txt" "$meta/bindep.txt" "$collection/"
cp "$here/LICENSE" "$collection/"
cp -r "$here/plugins" "$here/roles" "$here/playbooks" "$collection/"
# site.yml imports playbooks/<stage>.yml; beside them in the collection the path is <stage>.yml.
sed 's#import_playbook: playbooks/#import_playbook: #' "$here/site.yml" >"$collection/playbooks/site.yml"

# gpunet's wheel, from the package source alone (no stale build/ or egg-info of the checkout).
src="$stage/gpunet-src"
mkdir -p "$src"
cp "$here/pyproject.toml" "$here/README.md" "$here/LICENSE" "$src/"
(cd "$here" && tar -c --exclude=__pycache__ --exclude='*.egg-info' src) | tar -x -C "$src"
python="${PYTHON:-python3}"
if ! "$python" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
    echo "build-collection.sh: $("$python" -c 'import sys; print(sys.executable)' 2>/dev/null || echo "$python") has no" \
        "setuptools>=77 (pyproject.toml's build requirement) to build gpunet's wheel; run from the project's" \
        "venv (scripts/setup.sh) or set PYTHON to a Python that has it" >&2
    exit 2
fi
"$python" -m pip wheel -q --no-deps --no-build-isolation -w "$collection/wheels" "$src"
rm -rf "$src"

find "$collection" \( -name __pycache__ -o -name '*.pyc' \) -prune -exec rm -rf {} +

ansible-galaxy collection build --force --output-path "$out" "$collection" >/dev/null
ls "$out"/gpunet-fabric-*.tar.gz
