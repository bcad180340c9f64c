#!/usr/bin/env bash
# Install the collections of requirements.yml (ansible.posix, community.general: what the roles
# use besides ansible.builtin and gpunet.fabric) and of requirements-test.yml (containers.podman:
# Molecule's podman driver and the tests' podman connection) into the collections path, ansible.cfg's
# collections_path (./collections; .gitignore keeps them out of git). gpunet depends on ansible-core,
# not on the `ansible` bundle, so this is how they reach a checkout. scripts/setup.sh runs it.
#   scripts/install-collections.sh
# 1. `ansible-galaxy collection install -r requirements.yml -p collections`: from Galaxy (or the
#    servers of ansible.cfg's [galaxy] server_list); says "Nothing to do" without asking any server
#    when the collections are installed already (here, or in an old venv's `ansible` bundle).
# 2. Where no Galaxy answers (this project's CI reaches PyPI only): `pip download --no-deps` of the
#    pinned `ansible` bundle's wheel from PyPI into .cache/collections/ (kept: later runs download
#    nothing), the requirements.yml collections packed from the wheel's ansible_collections/
#    (scripts/pack-installed-collection.py --wheel, which checks each version against its range),
#    and those tarballs installed with `ansible-galaxy collection install --offline`.
# Air-gapped (docs/install.md): GPUNET_COLLECTIONS_DIR=DIR installs from a folder that
# `ansible-galaxy collection download -r requirements.yml -p DIR` wrote on a connected machine
# (requirements.yml only: a deploy does not need the test collections);
# GPUNET_ANSIBLE_WHEEL=FILE uses a carried-over bundle wheel for step 2 instead of downloading it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-$here/.venv}"
# The bundle whose collections step 2 installs: ansible 12.3.0 ships ansible.posix 2.1.0 and
# community.general 11.4.2 (the versions the tests have run with), inside requirements.yml's ranges.
bundle="${GPUNET_ANSIBLE_BUNDLE:-ansible==12.3.0}"
requirements=("$here/requirements.yml" "$here/requirements-test.yml")
dest="$here/collections"
cache="$here/.cache/collections"
galaxy="$venv/bin/ansible-galaxy"
export ANSIBLE_CONFIG="$here/ansible.cfg"
cd "$here"

if [ -n "${GPUNET_COLLECTIONS_DIR:-}" ]; then
    # `collection download` writes a requirements.yml naming its tarballs by file name, hence the cd.
    (cd "$GPUNET_COLLECTIONS_DIR" && "$galaxy" collection install --offline -r requirements.yml -p "$dest")
    exit 0
fi

# ansible-galaxy takes one requirements file per call.
if log="$(timeout 180 "$galaxy" collection install -r "${requirements[0]}" -p "$dest" 2>&1)" &&
    log+=$'\n'"$(timeout 180 "$galaxy" collection install -r "${requirements[1]}" -p "$dest" 2>&1)"; then
    echo "$log"
    exit 0
fi
echo "install-collections.sh: no Galaxy ($(grep -m1 -i 'error' <<<"$log" || tail -n1 <<<"$log"));" \
    "packing the requirements' collections from the $bundle wheel (PyPI)" >&2

mkdir -p "$cache"
wheel="${GPUNET_ANSIBLE_WHEEL:-}"
if [ -z "$wheel" ]; then
    wheel="$cache/ansible-${bundle#ansible==}-py3-none-any.whl"
    [ -f "$wheel" ] || "$venv/bin/pip" download -q --no-deps --only-binary=:all: -d "$cache" "$bundle"
fi
rm -rf "$cache/tarballs"
packed="$("$venv/bin/python" "$here/scripts/pack-installed-collection.py" \
    --wheel "$wheel" --requirements "${requirements[0]}" --requirements "${requirements[1]}" "$cache/tarballs")"
mapfile -t tarballs <<<"$packed"
"$galaxy" collection install --offline -p "$dest" "${tarballs[@]}"
