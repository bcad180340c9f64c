"""The incast stage of playbooks/verify.yml, run by ansible-playbook on this machine only: the
minimal inventory's GPU hosts on a local connection, a stand-in `ib_write_bw` on PATH (no RDMA
here: it listens and connects over TCP on the plan's ports and prints perftest's report), the
switches on 127.0.0.1 without known_hosts (their incast phases stop before connecting, saying so).
Proves the stage's mechanics: every server listens before any sender starts, every rail's senders
run at once, each capture is saved with its command line, the NIC counters are read around it."""

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


def _free_base() -> int:
    """A TCP port base whose next ports are free now (other test runs may hold 18515)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_stage_runs_its_plan_and_saves_what_the_checks_read(tmp_path: Path) -> None:
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
    stand_in = bin_dir / "ib_write_bw"
    stand_in.write_text(STAND_IN.replace("PYTHON", sys.executable, 1))
    stand_in.chmod(0o755)
    log = tmp_path / "stand-in.log"
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]),
        "INCAST_STAND_IN_LOG": str(log),
    }
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ansible-playbook")), str(REPO_ROOT / "playbooks" / "verify.yml"),
         "-i", str(inventory), "--tags", "verify_incast", "-e", "gpunet_verify_incast=true",
         "-e", f"gpunet_verify_artifacts_dir={artifacts}"],
        capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
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
