"""The incast stage's collection: gpunet-validate writes incast/plan.json and asks for the stage only
when its catalog selects an incast check; each host runs exactly its part of the plan (servers on
the receivers, every sender once, ports the firewall opens); the switches' incast phases add SONiC's
ECN-marking and watchdog commands; the clients' outputs are saved with their command lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.collect.switch_show import phase_commands
from gpunet.model.check import load_fabric
from gpunet.model.crosschecks import INCAST_PORTS_PER_RAIL
from gpunet.validate.cli import main
from gpunet.validate.collect_plan import PERFTEST_BASE_PORT
from gpunet.validate.incast import AFTER, BEFORE, PLAN_FILE, incast_plan, plan_document
from gpunet.validate.incast_jobs import HW_COUNTERS_SCRIPT, client_outputs, host_jobs, hw_counters_command
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_limit_and_collection import MINIMAL, _fake_runner

PROD = REPO_ROOT / "inventories" / "prod"


@pytest.fixture(scope="module")
def prod_plan() -> dict:
    return plan_document(incast_plan(load_fabric(PROD)))


def _jobs(document: dict, gid_indexes: dict[str, int] | None = None) -> dict[str, dict]:
    hosts = {s["host"] for rail in document["rails"] for s in rail["senders"]}
    hosts |= {rail["receiver"] for rail in document["rails"]}
    return {host: host_jobs(document, host, gid_indexes) for host in sorted(hosts)}


def test_every_sender_runs_once_against_a_server_on_its_receiver(prod_plan: dict) -> None:
    jobs = _jobs(prod_plan)
    servers = {(host, s["port"]): s["argv"] for host, j in jobs.items() for s in j["servers"]}
    clients = [(host, c) for host, j in jobs.items() for c in j["clients"]]
    wanted = {(s["host"], rail["rail"]) for rail in prod_plan["rails"] for s in rail["senders"]}
    assert sorted((host, c["rail"]) for host, c in clients) == sorted(wanted)
    assert len({c["file"] for _, c in clients}) == len(clients)  # one capture file each
    receivers = {rail["rail"]: rail for rail in prod_plan["rails"]}
    for _host, client in clients:
        rail = receivers[client["rail"]]
        port = int(client["argv"][client["argv"].index("-p") + 1])
        assert client["argv"][-1] == rail["receiver_ip"]
        server = servers.pop((rail["receiver"], port))  # a server listens there, and serves one client
        for option in ("-q", "-D"):  # SYMMETRIC in perftest: both ends must agree
            assert server[server.index(option) + 1] == client["argv"][client["argv"].index(option) + 1]
        assert "--tclass=106" in server and "--tclass=106" in client["argv"]
    assert not servers  # no server waits for a client that never comes
    assert {j["seconds"] for j in jobs.values()} == {10}


def test_the_servers_ports_are_inside_the_firewalls_perftest_opening(prod_plan: dict) -> None:
    fabric = load_fabric(PROD)
    for host, jobs in _jobs(prod_plan).items():
        rails = max(nic.rail for nic in fabric.hosts[host].nics) + 1
        last = PERFTEST_BASE_PORT + rails * INCAST_PORTS_PER_RAIL - 1
        assert all(PERFTEST_BASE_PORT <= s["port"] <= last for s in jobs["servers"]), host


def test_a_gid_index_is_passed_only_for_the_nic_that_needs_it(prod_plan: dict) -> None:
    rail0 = prod_plan["rails"][0]
    nic = rail0["receiver_nic"]
    plain = host_jobs(prod_plan, rail0["receiver"])
    forced = host_jobs(prod_plan, rail0["receiver"], {nic: 3})
    for before, after in zip(plain["servers"], forced["servers"], strict=True):
        if before["rail"] == 0:
            assert after["argv"] == [*before["argv"][:3], "-x", "3", *before["argv"][3:]]
        else:
            assert "-x" not in after["argv"]  # another rail's NIC
    assert "-x" not in [word for s in plain["servers"] for word in s["argv"]]


@pytest.mark.parametrize(
    ("phase", "file"), [(BEFORE, "rdma-hw-counters.incast-before"), (AFTER, "rdma-hw-counters.incast-after")]
)
def test_the_nic_counters_are_read_per_phase(phase: str, file: str) -> None:
    command = hw_counters_command(phase)
    assert command["file"] == file
    assert command["argv"][:2] == ["sh", "-c"] and "hw_counters" in command["argv"][2]


def test_the_counters_under_another_root_are_what_the_parser_reads(tmp_path: Path) -> None:
    """verify_incast_sysfs_root: the lab's SIMULATION tree (gpunet lab up writes it) read by the
    same grep, and parsed as sysfs is."""
    import subprocess

    from gpunet.lab.traffic_folder import prepare
    from gpunet.model.check import load_fabric
    from gpunet.validate.parsers import parse

    assert hw_counters_command(AFTER)["argv"][2] == HW_COUNTERS_SCRIPT  # the default: sysfs
    prepare(tmp_path, load_fabric(REPO_ROOT / "inventories" / "lab"))
    root = tmp_path / "hosts" / "gpu02" / "infiniband"
    argv = hw_counters_command(AFTER, str(root))["argv"]
    printed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    parsed = parse("rdma-hw-counters", printed)
    assert sorted(parsed["devices"]) == ["mlx5_0", "mlx5_1"]
    assert parsed["devices"]["mlx5_1"]["1"]["np_ecn_marked_roce_packets"] == 0


@pytest.mark.parametrize(
    "root",
    [
        "/sys/class/net",
        "run/gpunet-lab-traffic/infiniband",
        "/tmp/a b/infiniband",
        "/x;rm/infiniband",
        "/x/infiniband\n",  # a newline would end the shell's command line
    ],
)
def test_a_root_the_parser_would_not_read_is_refused(root: str) -> None:
    with pytest.raises(ValueError, match="verify_incast_sysfs_root"):
        hw_counters_command(AFTER, root)


def test_an_unknown_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="'before'"):
        hw_counters_command("before")


def test_each_client_is_saved_with_its_command_line() -> None:
    job = {
        "argv": ["ib_write_bw", "-d", "mlx5_0", "--tclass=106", "10.0.0.1"],
        "file": "incast/0/a__b__mlx5_0.ib_write_bw.txt",
    }
    refused = {"argv": ["ib_write_bw", "10.0.0.3"], "file": "incast/1/c__d__mlx5_1.ib_write_bw.txt"}
    results = [
        {"item": {"item": job, "ansible_job_id": "1"}, "stdout": " #bytes  BW average[Gb/sec]\n", "rc": 0},
        {"item": {"item": refused}, "stdout": "", "stderr": "Couldn't connect", "rc": 1, "failed": True},
        {"item": {"skipped": True}},  # nothing started: no file
    ]
    files = client_outputs(results)
    assert sorted(files) == sorted([job["file"], refused["file"]])
    assert files[job["file"]].startswith("$ ib_write_bw -d mlx5_0 --tclass=106 10.0.0.1\n #bytes")
    assert "Couldn't connect" in files[refused["file"]]


@pytest.mark.parametrize(
    ("platform", "phase", "added"),
    [
        ("sonic", BEFORE, {"sonic-show-queue-wredcounters", "sonic-show-pfcwd-stats"}),
        ("sonic", AFTER, {"sonic-show-queue-wredcounters", "sonic-show-pfcwd-stats"}),
        ("sonic", "before", set()),  # the pair tests' phases read what they always did
        ("eos", BEFORE, set()),  # its ECN and watchdog counts are among SWITCH_COMMANDS already
    ],
)
def test_the_incast_phases_add_the_marking_and_watchdog_commands(
    platform: str, phase: str, added: set
) -> None:
    assert set(phase_commands(platform, phase)) == added


def _validate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *options: str) -> tuple[int, dict, Path]:
    seen = _fake_runner(monkeypatch, 0, "", [{"event": "runner_on_ok", "event_data": {"host": "gpu01"}}])
    folder = tmp_path / "a"
    code = main(["-i", str(MINIMAL), "--artifacts", str(folder), "--quiet", "--format", "json",
                 "--output", str(tmp_path / "report.json"), *options])  # fmt: skip
    return code, seen, folder


def test_an_incast_check_in_the_catalog_writes_the_plan_and_runs_the_stage(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, seen, folder = _validate(monkeypatch, tmp_path, "--checks", "incast_ecn_marks,nic_port_state")
    assert seen["extravars"]["gpunet_verify_incast"] is True
    document = json.loads((folder / PLAN_FILE).read_text())
    # JSON's lists for the plan's tuples
    assert document == json.loads(json.dumps(plan_document(incast_plan(load_fabric(MINIMAL)))))


def test_without_an_incast_check_there_is_no_stage(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _, seen, folder = _validate(monkeypatch, tmp_path)
    assert seen["extravars"]["gpunet_verify_incast"] is False
    assert not (folder / PLAN_FILE).exists()


def test_a_limited_collection_plans_the_limited_hosts_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fabric = load_fabric(MINIMAL)
    limit = sorted(fabric.hosts)[:2]
    _, _, folder = _validate(monkeypatch, tmp_path, "--checks", "incast_cnp", "--limit", ",".join(limit))
    rails = json.loads((folder / PLAN_FILE).read_text())["rails"]
    hosts = {s["host"] for rail in rails for s in rail["senders"]} | {rail["receiver"] for rail in rails}
    assert rails and hosts <= set(limit)


def test_a_catalog_that_makes_no_plan_is_refused_before_anything_is_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "catalog.yml"
    catalog.write_text("checks: [incast_ecn_marks]\nthresholds:\n  incast_senders: 2.5\n")
    code, seen, folder = _validate(monkeypatch, tmp_path, "--checks", str(catalog))
    assert code == 2 and "incast stage: incast_senders" in capsys.readouterr().err
    assert not seen and not folder.exists()
