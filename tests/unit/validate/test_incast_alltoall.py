"""The incast stage's second pattern, nccl-tests alltoall_perf across each rail's hosts: the plan
sizes it from the catalog (one fixed message size, iterations filling incast_seconds), the stage's
jobs launch it once a rail in the lossless class, and incast_alltoall_busbw judges its capture,
says why where the stage did not run it, and refuses a capture that cannot prove the lossless class.
Captures: test_incast_checks.alltoall_capture (nccl-tests 2.x layout, command line first)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpunet.model.check import load_fabric
from gpunet.model.fabric import Fabric
from gpunet.validate.checks import Catalog
from gpunet.validate.incast import (
    PLAN_FILE,
    PlanError,
    RailIncast,
    alltoall_iters,
    plan_document,
    plan_for,
    plan_from_document,
)
from gpunet.validate.incast_jobs import host_jobs
from gpunet.validate.judge import judge
from gpunet.validate.manifest import Manifest, build_manifest
from gpunet.validate.results import Result, Status
from gpunet.validate.thresholds import Thresholds
from tests.conftest import REPO_ROOT
from tests.unit.validate.test_incast_checks import Incast, _artifacts, alltoall_capture

CHECK = "incast_alltoall_busbw"


@pytest.fixture(scope="module")
def prod() -> Fabric:
    return load_fabric(REPO_ROOT / "inventories" / "prod")


@pytest.mark.parametrize(
    ("values", "size", "seconds"),
    [
        ({}, 1 << 30, 10),
        ({"incast_alltoall_bytes": 1 << 28}, 1 << 28, 10),
        ({"incast_seconds": 30, "incast_alltoall_bytes": 1 << 32}, 1 << 32, 30),
    ],
)
def test_the_alltoall_is_sized_from_the_catalog(
    prod: Fabric, values: dict[str, float], size: int, seconds: int
) -> None:
    plan = plan_for(prod, Thresholds.from_mapping(values, "catalog"))
    for rail in plan:
        a2a = rail.alltoall
        assert a2a is not None
        assert a2a.hosts == (rail.receiver, *(s.host for s in rail.senders))
        assert a2a.nics == (rail.receiver_nic, *(s.nic for s in rail.senders))
        assert a2a.gbps == min(rail.receiver_gbps, *(s.gbps for s in rail.senders))
        args = a2a.args()
        assert args[args.index("-b") + 1] == args[args.index("-e") + 1] == str(size)
        # Each pass moves (n-1)/n of the size out of every rank: the iterations fill `seconds`.
        per_pass = size * (len(a2a.hosts) - 1) / len(a2a.hosts) * 8 / (a2a.gbps * 1e9)
        iters = int(args[args.index("-n") + 1])
        assert iters * per_pass >= seconds > (iters - 1) * per_pass
        assert a2a.env(rail.traffic_class) == {"NCCL_IB_TC": "106", "NCCL_IB_HCA": f"={rail.receiver_nic}"}


@pytest.mark.parametrize(
    ("seconds", "gbps", "size", "ranks", "iters"),
    [
        (10, 400, 1 << 30, 3, 699),
        (10, 800, 1 << 30, 3, 1397),
        (1, 400, 1 << 30, 2, 94),
        (0.001, 400, 1 << 30, 2, 1),
    ],
)
def test_alltoall_iterations(seconds: float, gbps: int, size: int, ranks: int, iters: int) -> None:
    assert alltoall_iters(seconds, gbps, size, ranks) == iters


def test_the_nic_is_left_to_each_host_where_the_rail_names_it_differently(prod: Fabric) -> None:
    rail = plan_for(prod, Thresholds())[0]
    assert rail.alltoall is not None
    mixed = replace(rail.alltoall, nics=("mlx5_0", "mlx5_4", "mlx5_0"))
    assert mixed.env(106) == {"NCCL_IB_TC": "106"}
    assert mixed.env(None) == {}  # InfiniBand: no traffic class


def test_each_rail_launches_one_alltoall_from_its_first_host(prod: Fabric) -> None:
    document = json.loads(json.dumps(plan_document(plan_for(prod, Thresholds()))))
    hosts = sorted(prod.hosts)
    launched = [(host, job) for host in hosts for job in host_jobs(document, host)["alltoall"]]
    rails = {rail["rail"]: rail for rail in document["rails"]}
    assert sorted(job["rail"] for _, job in launched) == sorted(rails)
    for host, job in launched:
        a2a = rails[job["rail"]]["alltoall"]
        assert host == min(a2a["hosts"]) and job["hosts"] == a2a["hosts"]
        assert job["file"] == f"incast/{job['rail']}/alltoall_perf.txt"
        assert job["skipped_file"] == f"incast/{job['rail']}/alltoall_perf.skipped.txt"
        assert job["env"]["NCCL_IB_TC"] == "106"


@pytest.mark.parametrize(
    ("alltoall", "problem"),
    [
        ({"hosts": "gpu01", "nics": ["mlx5_0"], "gbps": 400, "bytes": 1, "iters": 1}, "must be lists"),
        ({"hosts": ["gpu01"], "nics": ["mlx5_0"], "gbps": 400, "bytes": 1, "iters": 1}, "at least two"),
        ({"hosts": ["a", "b"], "nics": ["m0", "m0"], "gbps": 400, "bytes": 1.5, "iters": 1}, "integers"),
        ({"hosts": ["a", "../b"], "nics": ["m0", "m0"], "gbps": 400, "bytes": 1, "iters": 1}, "safe"),
        ({"hosts": ["a", "b"], "nics": ["m0", "m0"], "gbps": 400}, "bytes"),
    ],
)
def test_a_damaged_alltoall_plan_is_refused(prod: Fabric, alltoall: dict, problem: str) -> None:
    document = json.loads(json.dumps(plan_document(plan_for(prod, Thresholds()))))
    document["rails"][0]["alltoall"] = alltoall
    with pytest.raises(PlanError, match=problem):
        plan_from_document(document)


@pytest.fixture(scope="module")
def manifest_plan(prod: Fabric) -> tuple[Manifest, list[RailIncast]]:
    return build_manifest(prod), plan_for(prod, Thresholds())


def _alltoall_results(folder: Path) -> dict[str, Result]:
    results = judge(folder, Catalog([CHECK], {}, "test")).results
    return {r.target: r for r in results if r.check == CHECK}


def _no_alltoall_in_plan(folder: Path, rail: RailIncast) -> None:
    document = json.loads((folder / PLAN_FILE).read_text())
    document["rails"][rail.rail].pop("alltoall")
    (folder / PLAN_FILE).write_text(json.dumps(document))


EDITS = [
    # (case, what is done to rail 0's artifacts, its status, words its message or actual holds)
    ("passes", lambda f, r: None, Status.PASS, ["rail 0", "0 wrong", "busbw 41.3 GB/s", "330.4 Gb/s"]),
    (
        "not installed",
        lambda f, r: (
            (f / r.alltoall_capture).unlink()
            or (f / r.alltoall_skipped).write_text(
                "gpu01: /opt/nccl-tests/current/alltoall_perf not installed\n"
            )
        ),
        Status.SKIPPED,
        ["rail 0", "not run", "alltoall_perf not installed"],
    ),
    ("not collected", lambda f, r: (f / r.alltoall_capture).unlink(), Status.ERROR, ["was not collected"]),
    (
        "best-effort class",
        lambda f, r: (f / r.alltoall_capture).write_text(alltoall_capture(r, 41.3, tclass=0)),
        Status.ERROR,
        ["does not set NCCL_IB_TC=106", "lossless"],
    ),
    (
        "no command line",
        lambda f, r: (f / r.alltoall_capture).write_text(alltoall_capture(r, 41.3).partition("\n")[2]),
        Status.ERROR,
        ["does not set NCCL_IB_TC=106"],
    ),
    (
        "another collective",
        lambda f, r: (f / r.alltoall_capture).write_text(
            alltoall_capture(r, 41.3).replace("alltoall_perf", "all_reduce_perf")
        ),
        Status.ERROR,
        ["all_reduce_perf run, not alltoall_perf"],
    ),
    (
        "NCCL failure",
        lambda f, r: (f / r.alltoall_capture).write_text(
            alltoall_capture(r, 41.3).replace(
                "# Out of bounds", "gpu02: Test NCCL failure common.cu:1279\n# Out"
            )
        ),
        Status.ERROR,
        ["alltoall_perf failed"],
    ),
    ("plan without the pattern", _no_alltoall_in_plan, Status.SKIPPED, ["no alltoall pattern"]),
]


@pytest.mark.parametrize(("case", "edit", "status", "words"), EDITS, ids=[e[0] for e in EDITS])
def test_the_alltoall_check_on_one_rail(
    tmp_path: Path, manifest_plan: tuple[Manifest, list[RailIncast]], case: str, edit, status, words
) -> None:
    manifest, plan = manifest_plan
    folder = _artifacts(tmp_path, manifest, plan, Incast())
    rail = plan[0]
    edit(folder, rail)
    results = _alltoall_results(folder)
    assert set(results) == {r.receiver_target for r in plan}
    mine = results.pop(rail.receiver_target)
    assert mine.status == status, (case, mine)
    said = f"{mine.actual} {mine.message}"
    assert all(word in said for word in words), (case, said)
    assert {r.status for r in results.values()} == {Status.PASS}  # the other rails are untouched
