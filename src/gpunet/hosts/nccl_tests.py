"""nccl-tests: the make line the nccl_tests role builds with, and the commands verify_traffic runs.

One implementation for the role, the verify stage and the tests, so the lab's MPI run and CI's build
use exactly the command lines a real cluster gets.

Sources:
- nccl-tests README ("Build", "Running multi-node with MPI") and src/Makefile / makefiles/common.mk
  (github.com/NVIDIA/nccl-tests, v2.13.11): `make MPI=1 MPI_HOME= CUDA_HOME= NCCL_HOME=`, NVCC_GENCODE,
  BUILDDIR; a multi-process run uses one GPU per rank (`-g 1`).
- CUDA 11.8 release notes: first toolkit with sm_90 (Hopper). CUDA 12.8 release notes: first with
  sm_100 (B200/GB200) and sm_120 (RTX Blackwell).
- Open MPI 4.1 mpirun(1) (`-x NAME[=VALUE]`, `-H host:slots`, `--bind-to`) and FAQ "TCP" (MCA
  btl_tcp_port_min_v4, btl_tcp_port_range_v4, *_if_include).
- Slurm srun(1) and https://slurm.schedmd.com/mpi_guide.html: `--mpi=pmix`, `--gpus-per-node`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# (first CUDA release that compiles it, compute capability): Hopper and Blackwell need these.
GENCODE_TARGETS: tuple[tuple[tuple[int, int], int], ...] = (
    ((11, 0), 80),  # A100
    ((11, 8), 90),  # H100/H200
    ((12, 8), 100),  # B200/GB200
    ((12, 8), 120),  # RTX Blackwell
)


def cuda_series(version: str) -> tuple[int, int]:
    """12.8.1 -> (12, 8)."""
    parts = str(version).split(".")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def nvcc_gencode(cuda_version: str) -> str:
    """NVCC_GENCODE for every target the toolkit supports, plus PTX of the newest for later GPUs."""
    series = cuda_series(cuda_version)
    targets = [cc for since, cc in GENCODE_TARGETS if series >= since]
    if not targets:
        raise ValueError(f"CUDA {cuda_version} predates sm_80; gpunet supports CUDA 11.0 or newer")
    flags = [f"-gencode=arch=compute_{cc},code=sm_{cc}" for cc in targets]
    flags.append(f"-gencode=arch=compute_{targets[-1]},code=compute_{targets[-1]}")
    return " ".join(flags)


def make_argv(
    *,
    build_dir: str,
    cuda_home: str,
    nccl_home: str,
    jobs: int,
    mpi_home: str = "",
    gencode: str = "",
) -> list[str]:
    """The nccl-tests make line: MPI=1 with MPI_HOME wherever a multi-node run is wanted."""
    argv = [
        "make",
        "-j",
        str(jobs),
        f"BUILDDIR={build_dir}",
        f"CUDA_HOME={cuda_home}",
        f"NCCL_HOME={nccl_home}",
    ]
    if mpi_home:
        argv += ["MPI=1", f"MPI_HOME={mpi_home}"]
    if gencode:
        argv.append(f"NVCC_GENCODE={gencode}")
    return argv


def _exact_ifname(socket_ifname: str) -> str:
    """NCCL_SOCKET_IFNAME '=eth0' (exact) or 'eth' (prefix) -> the name Open MPI's if_include takes."""
    return socket_ifname.removeprefix("=").split(",")[0]


def mpirun_argv(
    hosts: Sequence[tuple[str, int]],
    binary: str,
    args: Sequence[str],
    *,
    nccl_env: Mapping[str, str],
    mpi_port_range: Sequence[int],
    binding: str = "numa",
    ssh_key: str = "",
    extra: Sequence[str] = (),
    mpi_home: str = "",
    as_root: bool = False,
) -> list[str]:
    """The multi-node mpirun line: one rank per GPU, the environment and ports made explicit.

    -x PATH / LD_LIBRARY_PATH: the remote shell of a non-interactive ssh does not read profile.d, so
    CUDA/NCCL paths must travel with the job. `nccl_env` holds only the NCCL settings every host's
    /etc/nccl.conf agrees on (shared_nccl_variables): -x overrides the file on every rank, and a
    per-host value (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) must stay each host's own.
    The TCP BTL is pinned to the firewall's Open MPI range, and both it and the control channel to
    the NCCL socket interface, which the firewall opens (only where every host names the same one).
    `mpi_home`: an Open MPI outside PATH (RHEL's /usr/lib64/openmpi): its mpirun, and --prefix so the
    remote daemons find their binaries and libraries. `as_root`: Open MPI aborts when started as
    root unless told --allow-run-as-root.
    """
    first, last = (int(port) for port in mpi_port_range)
    ranks = sum(slots for _, slots in hosts)
    launcher = f"{mpi_home.rstrip('/')}/bin/mpirun" if mpi_home else "mpirun"
    argv = [launcher, "-np", str(ranks), "-H", ",".join(f"{host}:{slots}" for host, slots in hosts)]
    if mpi_home:
        argv += ["--prefix", mpi_home.rstrip("/")]
    if as_root:
        argv.append("--allow-run-as-root")
    argv += ["--bind-to", binding, "--map-by", "slot"]
    argv += ["-x", "PATH", "-x", "LD_LIBRARY_PATH"]
    for name, value in nccl_env.items():
        argv += ["-x", f"{name}={value}"]
    # Not oob_tcp_dynamic_ipv4_ports: with a range, Open MPI 4.1's mpirun ran out of descriptors in
    # the lab (EMFILE). Its out-of-band listeners take ephemeral ports, which nccl_env pins to the
    # NCCL range, opened from the NCCL socket networks; the TCP BTL is pinned to the MPI range.
    argv += [
        "--mca",
        "btl_tcp_port_min_v4",
        str(first),
        "--mca",
        "btl_tcp_port_range_v4",
        str(last - first + 1),
    ]
    ifname = _exact_ifname(nccl_env.get("NCCL_SOCKET_IFNAME", ""))
    if ifname:
        argv += ["--mca", "oob_tcp_if_include", ifname, "--mca", "btl_tcp_if_include", ifname]
    if ssh_key:
        argv += ["--mca", "plm_rsh_args", f"-i {ssh_key} -o BatchMode=yes"]
    return [*argv, *extra, binary, "-g", "1", *args]


def nccl_conf_variables(text: str) -> dict[str, str]:
    """NAME=value lines of an /etc/nccl.conf (comments and blank lines skipped), in file order."""
    variables = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, value = line.split("=", 1)
            variables[name.strip()] = value.strip()
    return variables


def shared_nccl_variables(per_host: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """The NCCL settings every host's /etc/nccl.conf gives the same value, in the first host's order.

    What differs between hosts (or is missing on one) is left out, so each rank keeps its own
    host's value from the file NCCL reads itself.
    """
    if not per_host:
        return {}
    first, *others = per_host
    return {name: value for name, value in first.items() if all(other.get(name) == value for other in others)}


def srun_argv(hosts: Sequence[tuple[str, int]], binary: str, args: Sequence[str]) -> list[str]:
    """The multi-node srun line: PMIx wire-up and one GPU per task, requested from Slurm."""
    per_node = {slots for _, slots in hosts}
    gpus = max(per_node)
    return [
        "srun",
        "--mpi=pmix",
        "-N",
        str(len(hosts)),
        f"--ntasks-per-node={gpus}",
        f"--gpus-per-node={gpus}",
        "--nodelist=" + ",".join(host for host, _ in hosts),
        "--export=ALL",
        binary,
        "-g",
        "1",
        *args,
    ]


def test_host(host_vars: Mapping[str, Any]) -> dict[str, Any]:
    """What the launcher needs of one host: its GPU count and the address ssh/srun reach it at."""
    gpus = (host_vars.get("gpunet_gpus") or {}).get("count", 0)
    address = host_vars.get("ansible_host") or host_vars.get("inventory_hostname", "")
    return {"gpus": int(gpus), "address": str(address)}


def verify_jobs(
    hosts: Mapping[str, Mapping[str, Any]],
    me: str,
    launcher: str,
    binary: str,
    args: Sequence[str],
    *,
    nccl_env: Mapping[str, str],
    mpi_port_range: Sequence[int],
    ssh_key: str = "",
    binding: str = "numa",
    mpirun_extra: Sequence[str] = (),
    mpi_home: str = "",
    as_root: bool = False,
) -> list[dict[str, Any]]:
    """The nccl-tests runs `me` launches: its single-node run, and (first host by name) all nodes.

    `hosts`: inventory name -> {gpus, address (what mpirun's ssh and srun reach it at)}.
    """
    ordered = sorted(hosts)
    jobs = [{"file": f"nccl/single-{me}.txt", "argv": [binary, "-g", str(hosts[me]["gpus"]), *args]}]
    if len(ordered) > 1 and me == ordered[0]:
        if launcher == "srun":
            argv = srun_argv([(name, int(hosts[name]["gpus"])) for name in ordered], binary, args)
        elif launcher == "mpirun":
            slots = [(str(hosts[name].get("address") or name), int(hosts[name]["gpus"])) for name in ordered]
            argv = mpirun_argv(
                slots,
                binary,
                args,
                nccl_env=nccl_env,
                mpi_port_range=mpi_port_range,
                binding=binding,
                ssh_key=ssh_key,
                extra=mpirun_extra,
                mpi_home=mpi_home,
                as_root=as_root,
            )
        else:
            raise ValueError(f"unknown launcher {launcher!r}: expected srun or mpirun")
        jobs.append({"file": "nccl/all-nodes.txt", "argv": argv})
    return jobs
