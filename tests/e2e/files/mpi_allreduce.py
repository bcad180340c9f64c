#!/usr/bin/env python3
"""A small MPI program for the lab: every rank contributes its rank number; rank 0 prints the sum,
the ranks' hosts and the NCCL variables the ranks received. Extra arguments (nccl-tests' own, such
as -g 1) are accepted and ignored, so it runs from the verify stage's exact mpirun line."""

import os
import socket
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
total = comm.allreduce(comm.Get_rank(), op=MPI.SUM)
hosts = comm.gather(socket.gethostname(), root=0)
nccl = comm.gather(sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("NCCL_")), root=0)
if comm.Get_rank() == 0:
    print(f"ranks={comm.Get_size()} sum={total} hosts={','.join(sorted(set(hosts)))}")
    print("nccl_env_on_every_rank=" + str(all(env == nccl[0] for env in nccl) and bool(nccl[0])))
    print("args=" + " ".join(sys.argv[1:]))
