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

# Four lab nodes: one batch, not the 25 % batches a real cluster gets (docs/playbooks.md).
step "ansible-playbook site.yml -i $inventory -e gpu_nodes_serial=100%"
ansible-playbook site.yml -i "$inventory" -e gpu_nodes_serial=100%

step "gpunet-validate -i $inventory"
# Collect once (playbooks/verify.yml) and print the table; then write the other formats from the
# same artifacts, which touches nothing.
rm -rf "$reports"
mkdir -p "$reports"
status=0
gpunet-validate -i "$inventory" --artifacts "$reports/artifacts" --quiet || status=$?
# Cabling against the plan, from the same artifacts: the hosts' lldpd heard the simulated leaves'
# real LLDP frames (docs/cabling.md).
step "gpunet-validate --from-artifacts ... --checks cabling"
gpunet-validate --from-artifacts "$reports/artifacts" --checks cabling --quiet || status=$?
for format in json html junit; do
    extension="$format"
    [ "$format" = junit ] && extension=xml
    gpunet-validate --from-artifacts "$reports/artifacts" --format "$format" \
        --output "$reports/report.$extension" 2>/dev/null || true
done

step "done"
echo "reports: $reports/report.html"
echo "         $reports/report.json"
echo "         $reports/report.xml (JUnit)"
echo "raw tool output: $reports/artifacts/"
echo "lab: 'gpunet lab status' shows what runs, 'gpunet lab down' removes it"
echo "demo took $((SECONDS - started)) s; gpunet-validate exit code $status (0: validated)"
exit "$status"
