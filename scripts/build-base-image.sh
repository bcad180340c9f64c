#!/usr/bin/env bash
# Build the Debian 12 base image that Molecule scenarios and the lab run on, without a registry:
# debootstrap a minimal root file system and import it into podman. Reuses an existing image.
#   scripts/build-base-image.sh [IMAGE]     (default localhost/gpunet-debian12:latest)
set -euo pipefail

image="${1:-${GPUNET_BASE_IMAGE:-localhost/gpunet-debian12:latest}}"
here="$(cd "$(dirname "$0")/.." && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/molecule/containers.conf}"

if podman image exists "$image"; then
    echo "base image $image already present"
    exit 0
fi

# Use the mirror this machine's own apt uses, so the image builds wherever apt works.
mirror="$(grep -hoE '^(URIs:|deb)\s+https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
          | awk '{print $2}' | grep -v security | head -n1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

rootfs="$(mktemp -d /var/tmp/gpunet-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
echo "debootstrap bookworm from $mirror"
debootstrap --variant=minbase --include=python3,sudo,ca-certificates bookworm "$rootfs" "$mirror" >/dev/null
# Same mirror inside the image, with security updates, so apt in containers behaves like on the host.
cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main non-free non-free-firmware contrib
deb $mirror bookworm-updates main
SOURCES
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
echo "built $image"
