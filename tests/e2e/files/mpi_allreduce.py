#!/usr/bin/env python3
"""A small MPI program for the lab: every rank contributes its rank number; rank 0 prints the sum,
the ranks' hosts, the NCCL variables the ranks received, and per host the NCCL settings NCCL itself
would use there. Extra arguments (nccl-tests' own, such as -g 1) are accepted and ignored, so it
runs from the verify stage's exact mpirun line."""

import json
import os
import pwd
import socket
import sys

from mpi4py import MPI


def read_conf(path, settings):
    """NCCL's setEnvFile (NVIDIA/nccl src/misc/param.cc): NAME=value lines, '#' lines skipped, and a
    variable already set (the job's environment, or an earlier file) is never overwritten."""
    try:
        with open(path) as conf:
            lines = conf.read().splitlines()
    except OSError:
        return
    for line in lines:
        name, equals, value = line.partition("=")
        if line.startswith("#") or not equals:
            continue
        settings.setdefault(name, value)


def effective_nccl_settings():
    """What NCCL's initEnv ends with: the environment, then NCCL_CONF_FILE or ~/.nccl.conf, then
    /etc/nccl.conf."""
    settings = {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}
    user_file = os.environ.get("NCCL_CONF_FILE") or os.path.join(
        pwd.getpwuid(os.getuid()).pw_dir, ".nccl.conf"
    )
    read_conf(user_file, settings)
    read_conf("/etc/nccl.conf", settings)
    return {k: v for k, v in settings.items() if k.startswith("NCCL_")}


comm = MPI.COMM_WORLD
total = comm.allreduce(comm.Get_rank(), op=MPI.SUM)
hosts = comm.gather(socket.gethostname(), root=0)
nccl = comm.gather(sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("NCCL_")), root=0)
effective = comm.gather((socket.gethostname(), os.getuid(), effective_nccl_settings()), root=0)
if comm.Get_rank() == 0:
    print(f"ranks={comm.Get_size()} sum={total} hosts={','.join(sorted(set(hosts)))}")
    print("nccl_env_on_every_rank=" + str(all(env == nccl[0] for env in nccl) and bool(nccl[0])))
    print("args=" + " ".join(sys.argv[1:]))
    print("uids=" + ",".join(sorted({str(uid) for _, uid, _ in effective})))
    print("effective=" + json.dumps({host: settings for host, _, settings in effective}, sort_keys=True))
