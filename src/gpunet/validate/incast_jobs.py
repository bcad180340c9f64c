"""What one host runs in the incast stage, from incast/plan.json (the verify_incast role loops over
these): its ib_write_bw servers (it receives on a rail) and clients (it sends), the alltoall_perf
runs it launches (the first host by name of a rail's hosts), and the NIC counter capture read
before and after. Computed from the plan gpunet-validate wrote, so the stage runs
exactly what the incast checks judge.
"""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.incast import AFTER, BEFORE, plan_from_document
from gpunet.validate.parsers.rdma_hw_counters import ROOT_PATTERN

SYSFS_ROOT = "/sys/class/infiniband"
PHASES = (BEFORE, AFTER)
# Another root (verify_incast_sysfs_root, the lab's SIMULATION tree, gpunet.lab.traffic_folder):
# only one the parser reads, which also keeps it free of anything the shell would interpret.
_ROOT = re.compile(ROOT_PATTERN)


def counters_script(root: str) -> str:
    """Every RDMA port's hardware counters under `root`, one `<path>:<value>` line each (`gpunet
    parse rdma-hw-counters`). -s: a counter file that cannot be read is left out (the check then
    names the missing counter) instead of putting grep's message among the counter lines; where no
    RDMA device exists grep prints nothing and exits 2, which the artifact records."""
    return f"grep -s -H . {root}/*/ports/*/hw_counters/*"


HW_COUNTERS_SCRIPT = counters_script(SYSFS_ROOT)


def hw_counters_command(phase: str, root: str = SYSFS_ROOT) -> dict[str, Any]:
    """The NIC counter capture of one phase, as the run_commands module takes it, under `root`."""
    if phase not in PHASES:
        raise ValueError(f"incast phase {phase!r}: expected one of {', '.join(PHASES)}")
    if not _ROOT.fullmatch(root):
        raise ValueError(
            f"verify_incast_sysfs_root {root!r}: expected an absolute path ending in /infiniband"
        )
    return {"file": f"rdma-hw-counters.{phase}", "argv": ["sh", "-c", counters_script(root)]}


def host_jobs(document: Any, host: str, gid_indexes: dict[str, int] | None = None) -> dict[str, Any]:
    """This host's servers (argv, port) and clients (argv, file) over every rail of the plan.
    `gid_indexes` (NIC -> index): `-x` for this host's NICs where perftest's own GID pick is not
    the inventory address's (as the pair tests pass it)."""
    gid_indexes = gid_indexes or {}
    plan = plan_from_document(document)
    servers, clients, alltoall = [], [], []
    for rail in plan:
        if rail.alltoall is not None and rail.alltoall.launcher == host:
            alltoall.append(
                {
                    "rail": rail.rail,
                    "file": rail.alltoall_capture,
                    "skipped_file": rail.alltoall_skipped,
                    "hosts": list(rail.alltoall.hosts),
                    "args": rail.alltoall.args(),
                    "env": rail.alltoall.env(rail.traffic_class),
                }
            )
        for sender in rail.senders:
            if rail.receiver == host:
                argv = _with_gid(rail.server_argv(sender), rail.receiver_nic, gid_indexes)
                servers.append({"argv": argv, "port": sender.port, "rail": rail.rail})
            if sender.host == host:
                argv = _with_gid(rail.client_argv(sender), sender.nic, gid_indexes)
                clients.append({"argv": argv, "file": rail.capture(sender), "rail": rail.rail})
    # The longest rail's -D: how long the stage waits for every client.
    seconds = max((rail.seconds for rail in plan), default=0)
    return {"servers": servers, "clients": clients, "alltoall": alltoall, "seconds": seconds}


def _with_gid(argv: list[str], nic: str, gid_indexes: dict[str, int]) -> list[str]:
    if nic not in gid_indexes:
        return argv
    return [*argv[:3], "-x", str(gid_indexes[nic]), *argv[3:]]  # after `ib_write_bw -d <nic>`


def client_outputs(results: list[dict[str, Any]]) -> dict[str, str]:
    """artifact file -> text of each client, from the async_status results of the started
    clients (each result's `item` is the start result, whose `item` is the job): the command line
    first, since perftest's output does not say which traffic class it ran in."""
    from gpunet.validate.collect_plan import raw_output

    files = {}
    for result in results:
        job = result.get("item", {}).get("item", {})
        if "file" not in job:
            continue
        files[job["file"]] = raw_output({**result, "item": job}, command_line=True)
    return files


__all__ = ["HW_COUNTERS_SCRIPT", "client_outputs", "host_jobs", "hw_counters_command"]
