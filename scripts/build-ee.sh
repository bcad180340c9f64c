#!/usr/bin/env bash
# Build gpunet's execution environment image (execution-environment.yml) with podman, offline:
#   scripts/build-ee.sh [TAG]        (default localhost/gpunet-ee:latest)
#   scripts/build-ee.sh --stage      steps 1-2 only, for `ansible-builder build` (see the definition)
#   scripts/build-ee.sh --base ubi9 [--stage] [TAG]   execution-environment-ubi9.yml instead: the RPM
#                                    base ansible-builder documents (docker.io/redhat/ubi9, from a
#                                    registry; default tag localhost/gpunet-ee-ubi9:latest), step 1 skipped
# 1. the project's base image (scripts/build-base-image.sh; reused when present);
# 2. inputs staged under build/ee/: gpunet's wheel and all its dependencies as wheels (pip wheel,
#    constrained to the versions in this virtualenv, the ones the tests ran with), the gpunet.fabric
#    tarball, and the collections of requirements.yml (ansible.posix, community.general) packed from
#    the copies Ansible uses here: the collections path scripts/setup.sh filled, else an old venv's
#    `ansible` bundle (scripts/pack-installed-collection.py; no Galaxy), and
#    copies of ee/requirements.txt and ee/requirements.yml, which the definition names there;
# 3. `ansible-builder create` writes the build context, `podman build` builds it. Inside the build
#    pip uses --no-index (PIP_NO_INDEX) with the staged wheels, ansible-galaxy the staged tarballs.
# Podman's layer cache makes a rebuild with unchanged inputs take seconds.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
stage_only=false
base=debian12
while [ $# -gt 0 ]; do
    case "$1" in
        --stage) stage_only=true; shift ;;
        --base)
            base="${2:-}"
            shift 2 || { echo "build-ee.sh: --base needs debian12 or ubi9" >&2; exit 2; } ;;
        *) break ;;
    esac
done
case "$base" in
    debian12) definition="$here/execution-environment.yml"; default_tag=localhost/gpunet-ee:latest ;;
    ubi9) definition="$here/execution-environment-ubi9.yml"; default_tag=localhost/gpunet-ee-ubi9:latest ;;
    *) echo "build-ee.sh: unknown --base '$base' (debian12 or ubi9)" >&2; exit 2 ;;
esac
tag="${1:-$default_tag}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/molecule/containers.conf}"
stage="$here/build/ee"
python="${PYTHON:-python}"

# The Debian base is built here; the RPM base is pulled by podman build.
if [ "$base" = debian12 ]; then
    "$here/scripts/build-base-image.sh"
fi

rm -rf "$stage/wheels" "$stage/collections" "$stage/context" "$stage/requirements.txt" "$stage/requirements.yml"
mkdir -p "$stage/wheels" "$stage/collections" "$stage/dist"
rm -f "$stage"/dist/*

# gpunet's wheel, from a clean copy of the package source (no stale build/ or egg-info).
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
cp "$here/pyproject.toml" "$here/README.md" "$here/LICENSE" "$src/"
(cd "$here" && tar -c --exclude=__pycache__ --exclude='*.egg-info' src) | tar -x -C "$src"
"$python" -m pip wheel -q --no-deps --no-build-isolation -w "$stage/dist" "$src"
wheel="$(ls "$stage"/dist/gpunet-*.whl)"

# Everything pip installs in the image, as wheels. The EE's own tools (ansible-builder's bindep,
# dumb-init) are not in this venv, so they are left unconstrained.
"$python" -m pip freeze --exclude-editable | grep -v '^gpunet' >"$stage/constraints.txt"
"$python" -m pip wheel -q -w "$stage/wheels" -c "$stage/constraints.txt" \
    "$wheel" "ansible-core>=2.17,<2.20" "ansible-runner>=2.4" bindep pyyaml packaging "dumb-init==1.2.5"

"$here/scripts/build-collection.sh" "$stage/dist" >/dev/null
cp "$stage"/dist/gpunet-fabric-*.tar.gz "$stage/collections/gpunet-fabric.tar.gz"
# Where Ansible finds them, in its search order: ansible.cfg's collections_path (./collections, where
# scripts/install-collections.sh puts them), then the site-packages of a venv that has the bundle.
bundle="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/ansible_collections"
for name in ansible/posix community/general; do
    source="$here/collections/ansible_collections/$name"
    [ -f "$source/MANIFEST.json" ] || source="$bundle/$name"
    if [ ! -f "$source/MANIFEST.json" ]; then
        echo "build-ee.sh: ${name/\//.} is not installed; run scripts/install-collections.sh" >&2
        exit 1
    fi
    "$python" "$here/scripts/pack-installed-collection.py" "$source" "$stage/collections/${name/\//-}.tar.gz"
done

# Last, so an interrupted staging leaves the definition unbuildable rather than half-staged.
cp "$here/ee/requirements.txt" "$here/ee/requirements.yml" "$stage/"
if "$stage_only"; then
    echo "staged $stage; now: ansible-builder build -f ${definition#"$here"/} -c build/ee/context -t $tag"
    exit 0
fi

ansible-builder create -f "$definition" -c "$stage/context" \
    --output-filename Containerfile >/dev/null
podman build -t "$tag" -f "$stage/context/Containerfile" "$stage/context"
podman image inspect --format '{{.Size}}' "$tag" | awk -v tag="$tag" '{printf "built %s (%.0f MB)\n", tag, $1 / 1e6}'
