#!/usr/bin/env bash
# Run every Molecule scenario under molecule/ (each on podman, against the local base image).
#   scripts/run-molecule.sh [SCENARIO ...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
export CONTAINERS_CONF="$here/molecule/containers.conf"
export ANSIBLE_CONFIG="$here/ansible.cfg"
scripts/build-base-image.sh

if (($#)); then
    scenarios=("$@")
else
    mapfile -t scenarios < <(find molecule -mindepth 2 -maxdepth 2 -name molecule.yml -printf '%h\n' | xargs -rn1 basename | sort)
fi
if ((${#scenarios[@]} == 0)); then
    echo "no Molecule scenarios"
    exit 0
fi
# MOLECULE_JOBS scenarios at a time (2 by default: each waits on its containers and apt as much as
# on a core); every scenario has its own container names, network and ephemeral directory. Each
# one's output is printed whole when it ends, with its seconds: the CI log's record of where its
# 45 minutes go.
jobs=${MOLECULE_JOBS:-2}
logs="$(mktemp -d)"
# Interrupted: stop the scenarios still running (each one's destroy is then Molecule's own).
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs"' EXIT
declare -A started_at=() pid_of=()
failed=()
finish() {  # print one finished scenario's output; $1 scenario, $2 its exit status
    local scenario=$1 rc=$2
    echo "=== molecule test -s $scenario"
    cat "$logs/$scenario.log"
    if ((rc == 0)); then
        echo "=== molecule test -s $scenario: passed in $((SECONDS - started_at[$scenario])) s"
    else
        echo "=== molecule test -s $scenario: FAILED (exit $rc) after $((SECONDS - started_at[$scenario])) s"
        failed+=("$scenario")
    fi
}
wait_one() {
    local done_pid rc=0 scenario
    wait -n -p done_pid "${pid_of[@]}" || rc=$?
    for scenario in "${!pid_of[@]}"; do
        if [[ ${pid_of[$scenario]} == "$done_pid" ]]; then
            unset "pid_of[$scenario]"
            finish "$scenario" "$rc"
        fi
    done
}
for scenario in "${scenarios[@]}"; do
    while ((${#pid_of[@]} >= jobs)); do wait_one; done
    started_at[$scenario]=$SECONDS
    molecule test -s "$scenario" > "$logs/$scenario.log" 2>&1 &
    pid_of[$scenario]=$!
done
while ((${#pid_of[@]})); do wait_one; done
if ((${#failed[@]})); then
    echo "Molecule scenarios failed: ${failed[*]}" >&2
    exit 1
fi
