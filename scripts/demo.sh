#!/usr/bin/env bash
# `make demo`: bring up the lab, deploy site.yml to it, validate it, say where the reports are.
# Exits 0 when the lab validates. The lab stays up afterwards; `gpunet lab down` removes it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
export PATH="$here/.venv/bin:$PATH"
export CONTAINERS_CONF="$here/molecule/containers.conf"
export ANSIBLE_CONFIG="$here/ansible.cfg"
inventory=inventories/lab
reports="$here/artifacts/lab"
started=$SECONDS

step() { printf '\n=== %s (%ds)\n' "$*" $((SECONDS - started)); }

step "gpunet lab up"
gpunet lab up

step "ansible-playbook site.yml -i $inventory"
ansible-playbook site.yml -i "$inventory"

step "gpunet-validate -i $inventory"
if ! command -v gpunet-validate >/dev/null; then
    echo "gpunet-validate is not installed in this checkout yet: deploy done, nothing validated" >&2
    exit 2
fi
status=0
gpunet-validate -i "$inventory" --output "$reports" || status=$?

step "done"
echo "reports: $reports/report.html  $reports/report.json  $reports/junit.xml"
echo "lab: 'gpunet lab status' shows what runs, 'gpunet lab down' removes it"
echo "demo took $((SECONDS - started)) s; validation exit code $status"
exit "$status"
