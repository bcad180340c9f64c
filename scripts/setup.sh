#!/usr/bin/env bash
# Install what gpunet's tests and lab need on a Debian/Ubuntu machine: system packages and the
# project's virtualenv. Safe to run again; it only installs what is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-$here/.venv}"

packages=(podman runc debootstrap uidmap slirp4netns fuse-overlayfs iproute2 openssh-client
          python3-venv make git ca-certificates gnupg nftables
          # libyang's C library and a compiler: the libyang Python binding builds against them
          libyang2-dev gcc pkg-config)
# Open MPI's headers and libraries: the real nccl-tests MPI=1 build (tests/integration/build).
packages+=(libopenmpi-dev g++)
# Operators' tools the Prometheus tests run for real: node_exporter's textfile collector and promtool.
packages+=(prometheus-node-exporter prometheus)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing system packages: ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp="$venv/.gpunet-installed"
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ]; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -e "$here[test,lab]"
    touch "$stamp"
fi

# The collections the roles use besides ansible.builtin and gpunet.fabric (requirements.yml), into
# ansible.cfg's collections_path; gpunet depends on ansible-core, not on the `ansible` bundle.
"$here/scripts/install-collections.sh"
echo "setup complete: $venv"
