"""The incast stage of playbooks/verify.yml, run by ansible-playbook on this machine only: the
minimal inventory's GPU hosts on a local connection, a stand-in `ib_write_bw` on PATH (no RDMA
here: it listens and connects over TCP on the plan's ports and prints perftest's report), the
switches on 127.0.0.1 without known_hosts (their incast phases stop before connecting, saying so).
Proves the stage's mechanics: every server listens before any sender starts, every rail's senders
run at once, each capture is saved with its command line, the NIC counters are read around it.
The alltoall pattern runs through stand-ins too (no GPUs, MPI or NCCL here): a stand-in `mpirun` on
PATH that logs its command line and runs the binary it was given, and a stand-in `alltoall_perf`
that prints nccl-tests' report; a binary that is not there leaves the stage's skip reason."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import yaml

from gpunet.model.check import load_fabric
from gpunet.validate.checks import Catalog
from gpunet.validate.incast import incast_plan, plan_document, write_plan
from gpunet.validate.judge import judge
from gpunet.validate.manifest import build_manifest
from tests.conftest import REPO_ROOT
from tests.integration.validate.test_live_collection import local_inventory

# What the stand-in does: a server (no address last) accepts one connection on -p and exits; a
# client connects to that port on loopback (the plan's fabric address is not on this machine),
# stays -D seconds, logs its connection attempts and when it ran, and prints perftest's report.
STAND_IN = r'''#!PYTHON
import os, re, socket, sys, time
args = sys.argv[1:]
port, nic = int(args[args.index("-p") + 1]), args[args.index("-d") + 1]
seconds = float(args[args.index("-D") + 1])
log = os.environ["INCAST_STAND_IN_LOG"]
# The hosts share this machine: each rail's receiver gets a loopback address of its own.
address = "127.0.0.%d" % (20 + int(re.sub(r"\D", "", nic)))
if not re.fullmatch(r"[0-9.]+", args[-1]):
    with socket.create_server((address, port)) as server:
        server.settimeout(60)
        connection, _ = server.accept()
        connection.recv(1)
        connection.close()
    sys.exit(0)
for attempt in range(1, 101):
    try:
        connection = socket.create_connection((address, port), timeout=5)
        break
    except OSError:
        time.sleep(0.05)
start = time.time()
time.sleep(seconds)
connection.sendall(b"x")
connection.close()
with open(log, "a") as out:
    out.write(f"{nic} {port} {attempt} {start} {time.time()}\n")
print(f"""                    RDMA_Write BW Test
 Device         : {nic}
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      50000            195.10             190.20              0.362778
""")
'''

# Stand-in mpirun: logs when it ran, then runs what follows the binary's path (as one rank would).
MPIRUN_STAND_IN = r"""#!PYTHON
import os, subprocess, sys, time
args = sys.argv[1:]
binary = next(i for i, a in enumerate(args) if a.endswith("alltoall_perf"))
start = time.time()
done = subprocess.run(args[binary:])
with open(os.environ["INCAST_STAND_IN_LOG"] + ".alltoall", "a") as out:
    out.write(f"{start} {time.time()}\n")
sys.exit(done.returncode)
"""
# Stand-in alltoall_perf: nccl-tests 2.x's report (tests/fixtures/incast/alltoall_perf.txt.in) for
# the -b and -n it was given, busbw 41.3 GB/s.
ALLTOALL_STAND_IN = r"""#!PYTHON
import os, sys
args = sys.argv[1:]
size, iters = int(args[args.index("-b") + 1]), int(args[args.index("-n") + 1])
with open(os.environ["INCAST_ALLTOALL_TEMPLATE"]) as template:
    print(template.read().format(size=size, count=size // 8, iters=iters, ranks="#", time=13001.0,
                                 algbw=82.6, busbw=41.3, wrong=0))
"""


def _stand_in(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text.replace("PYTHON", sys.executable, 1))
    path.chmod(0o755)
    return path


def _free_base() -> int:
    """A TCP port base whose next ports are free now (other test runs may hold 18515)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run_stage(tmp_path: Path, alltoall_binary: Path) -> tuple[Path, list, Path]:
    """The incast stage of verify.yml over the local inventory: (artifacts, plan, stand-in log)."""
    inventory = local_inventory(tmp_path)
    for host_file in (inventory / "host_vars").glob("gpu*.yml"):
        host = yaml.safe_load(host_file.read_text())
        host["ansible_become"] = False  # sudo's secure_path would hide the stand-in
        host_file.write_text(yaml.safe_dump(host))
    fabric = load_fabric(inventory)
    artifacts = tmp_path / "artifacts"
    build_manifest(fabric).write(artifacts)
    # 3 s: the two hosts' async starts are one task apart at most, even on a loaded 2-core runner
    plan = incast_plan(fabric, seconds=3, base_port=_free_base())
    write_plan(artifacts, json.dumps(plan_document(plan)))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _stand_in(bin_dir, "ib_write_bw", STAND_IN)
    _stand_in(bin_dir, "mpirun", MPIRUN_STAND_IN)
    log = tmp_path / "stand-in.log"
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]),
        "INCAST_STAND_IN_LOG": str(log),
        "INCAST_ALLTOALL_TEMPLATE": str(REPO_ROOT / "tests" / "fixtures" / "incast" / "alltoall_perf.txt.in"),
    }
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ansible-playbook")), str(REPO_ROOT / "playbooks" / "verify.yml"),
         "-i", str(inventory), "--tags", "verify_incast", "-e", "gpunet_verify_incast=true",
         "-e", f"gpunet_verify_artifacts_dir={artifacts}",
         "-e", f"verify_incast_alltoall_binary={alltoall_binary}", "-e", "verify_incast_mpi_ssh_key="],
        capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    return artifacts, plan, log


def _alltoall_statuses(artifacts: Path, switches: dict) -> dict[str, str]:
    """incast_alltoall_busbw's verdict per rail receiver (the switches' rows say they were not judged)."""
    results = judge(artifacts, Catalog(["incast_alltoall_busbw"], {}, "test")).results
    return {r.target: str(r.status) for r in results if r.target not in switches}


def test_the_stage_runs_its_plan_and_saves_what_the_checks_read(tmp_path: Path) -> None:
    alltoall = _stand_in(tmp_path, "alltoall_perf", ALLTOALL_STAND_IN)
    artifacts, plan, log = _run_stage(tmp_path, alltoall)
    fabric = load_fabric(tmp_path / "inventory")
    runs = [line.split() for line in log.read_text().splitlines()]
    senders = [(rail, sender) for rail in plan for sender in rail.senders]
    assert sorted(int(port) for _, port, *_ in runs) == sorted(s.port for _, s in senders)
    assert {attempt for _, _, attempt, *_ in runs} == {"1"}  # each server listened before its sender started
    # every rail's senders at once: each started before any other had finished
    assert max(float(start) for *_, start, _ in runs) < min(float(end) for *_, end in runs)
    for rail, sender in senders:
        text = (artifacts / rail.capture(sender)).read_text()
        assert text.startswith(f"$ ib_write_bw -d {sender.nic} -p {sender.port} -q 4 -D 3 ")
        assert text.splitlines()[0].endswith(f"--tclass=106 {rail.receiver_ip}") and "190.20" in text
    for host in fabric.hosts:
        for phase in ("incast-before", "incast-after"):
            assert (artifacts / "hosts" / host / f"rdma-hw-counters.{phase}.txt").is_file()
    for switch in fabric.switches:  # the phase was accepted; no known_hosts, so no login
        reason = (artifacts / "switches" / switch / "incast-before" / "collection-error.txt").read_text()
        assert "known_hosts" in reason
    results = judge(artifacts, Catalog(["incast_bandwidth"], {}, "test")).results
    assert results and not [r for r in results if r.actual == "not run"]
    # The alltoall ran once a rail, after every perftest sender had finished and before the NIC
    # counters were read again: inside the same counter window.
    alltoall_runs = [line.split() for line in Path(f"{log}.alltoall").read_text().splitlines()]
    assert len(alltoall_runs) == len(plan)
    assert min(float(start) for start, _ in alltoall_runs) >= max(float(end) for *_, end in runs)
    after = min(
        (artifacts / "hosts" / h / "rdma-hw-counters.incast-after.txt").stat().st_mtime for h in fabric.hosts
    )
    assert after >= max(float(end) for _, end in alltoall_runs)
    for rail in plan:
        assert rail.alltoall is not None
        first = (artifacts / rail.alltoall_capture).read_text().splitlines()[0]
        assert (
            first.startswith(f"$ mpirun -np {len(rail.alltoall.hosts)} -H ") and "-x NCCL_IB_TC=106" in first
        )
        assert first.endswith(f"{alltoall} -g 1 " + " ".join(rail.alltoall.args()))
    statuses = _alltoall_statuses(artifacts, fabric.switches)
    assert statuses == {r.receiver_target: "pass" for r in plan}


def test_without_alltoall_perf_the_stage_says_why_and_the_check_skips(tmp_path: Path) -> None:
    missing = tmp_path / "nccl-tests" / "alltoall_perf"
    artifacts, plan, _ = _run_stage(tmp_path, missing)
    switches = load_fabric(tmp_path / "inventory").switches
    assert _alltoall_statuses(artifacts, switches) == {r.receiver_target: "skipped" for r in plan}
    judged = judge(artifacts, Catalog(["incast_alltoall_busbw"], {}, "test")).results
    by_target = {r.target: r for r in judged}
    for rail in plan:
        result = by_target[rail.receiver_target]
        assert not (artifacts / rail.alltoall_capture).exists()
        assert f"{missing} is not installed" in result.message and f"rail {rail.rail}" in result.message
