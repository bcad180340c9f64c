"""`gpunet plan`: the three output formats, the comparison, the YAML request and exit codes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from gpunet.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["plan", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--gpus", "256")
    assert code == 0
    assert out.startswith("Design: 2-tier rail-optimised")
    assert "leaf   8         32    32  0     8        1:1" in out
    assert "Bisection bandwidth: 51.2 Tb/s" in out
    assert "2048 GPUs non-blocking" in out
    assert "aoc      512" in out
    assert "Prefer hierarchical" in out


def test_json_carries_plan_and_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--gpus", "4096", "--format", "json", "--compare")
    assert code == 0
    data = json.loads(out)
    plan = data["recommended"]
    assert plan["tiers"] == 3 and plan["max_switch_hops"] == 5
    assert plan["largest_non_blocking_gpus"] == 65536
    assert plan["collective"]["preferred_pattern"] == "hierarchical"
    ports = {entry["name"]: entry for entry in plan["switch_ports"]}
    assert len(ports) == plan["switches"]
    assert ports["leaf001"] == {
        "name": "leaf001",
        "tier": "leaf",
        "group": "su1",
        "down": 32,
        "up": 32,
        "free": 0,
    }
    assert data["candidates"][0]["design"] == "2-tier rail-optimised"
    assert data["candidates"][0]["plan"] is None and "does not fit" in data["candidates"][0]["problem"]


def test_csv_bill_of_materials(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--gpus", "256", "--format", "csv", "--cost-factors", "aoc=2")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["reach"], r["links"], r["relative_cost"]) for r in rows] == [
        ("aoc", "512", "1024.0"),
        ("total", "512", "1024.0"),
    ]


def test_comparison_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--gpus", "256", "--compare")
    assert code == 0
    header = next(line for line in out.splitlines() if "2-tier rail-optimised  2-tier top-of-rack" in line)
    assert "3-tier top-of-rack" in header
    hops = next(line for line in out.splitlines() if line.startswith("nodes one hop apart"))
    assert hops.split()[-4:] == ["32", "4", "32", "4"]


def test_request_file_and_flags_override_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "plan.yml"
    request.write_text("gpus: 512\nswitch_radix: 32\noversubscription: '3:1'\nrail_optimised: no\n")
    code, out, _ = run(capsys, "--from", str(request), "--format", "json")
    plan = json.loads(out)["recommended"]
    assert code == 0 and (plan["switch_radix"], plan["rail_optimised"], plan["leaf_downlinks"]) == (
        32,
        False,
        24,
    )
    code, out, _ = run(capsys, "--from", str(request), "--switch-radix", "64", "--format", "json")
    assert json.loads(out)["recommended"]["switch_radix"] == 64


def test_write_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "inv"
    code, _, err = run(capsys, "--gpus", "16", "--write-inventory", str(target), "--platform", "eos")
    assert code == 0
    assert "passes `gpunet inventory check`" in err
    assert "addresses: NICs in 198.51.100.0/25, management in 192.0.2.0/24" in err
    assert "gpunet_platform: eos" in (target / "host_vars" / "leaf001.yml").read_text()
    code, _, err = run(capsys, "--gpus", "16", "--write-inventory", str(target))
    assert code == 2 and "is not empty" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gpus", "100"], "plan.gpus: is not a multiple of gpus_per_node"),
        (["--gpus", "8192", "--tiers", "2"], "<= 2048 GPUs"),
        (["--gpus", "8", "--cost-factors", "dac=free"], "--cost-factors: is not NAME=NUMBER"),
        (["--gpus", "8", "--platform", "ios", "--write-inventory", "unused"], "unknown platform"),
        (["--from", "/nonexistent/plan.yml"], "cannot be read"),
    ],
)
def test_errors_exit_2_with_one_line_each(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_distances_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distances = tmp_path / "distances.yml"
    distances.write_text("cross_rack_m: 40\naoc_max_m: 35\n")
    code, out, _ = run(capsys, "--gpus", "256", "--format", "csv", "--distances", str(distances))
    rows = {r["reach"]: r for r in csv.DictReader(io.StringIO(out))}
    assert code == 0
    # 256 node cables of 40 m are now beyond AOC reach; 256 leaf-spine cables of 30 m are not
    assert (rows["optics"]["links"], rows["optics"]["total_length_m"]) == ("256", "10240")
    assert (rows["aoc"]["links"], rows["aoc"]["total_length_m"]) == ("256", "7680")
    distances.write_text("- 40\n")
    code, _, err = run(capsys, "--gpus", "256", "--distances", str(distances))
    assert code == 2 and "must hold a mapping of distance fields" in err
