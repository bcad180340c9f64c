"""`gpunet inventory check`: exit codes, the one-line-per-problem report, JSON, and no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.cli import main
from tests.conftest import FIXTURES_DIR, REPO_ROOT

VALID = FIXTURES_DIR / "inventories" / "valid" / "minimal"
BROKEN = FIXTURES_DIR / "inventories" / "broken"


def test_clean_inventory_exits_0_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inventory", "check", "-i", str(VALID)]) == 0
    out = capsys.readouterr().out
    assert (
        out.strip() == "OK: fabric minimal: 2 GPU hosts, 3 switches, 4 NICs, platforms: cumulus, eos, sonic"
    )


def test_example_production_inventory_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inventory", "check", "-i", str(REPO_ROOT / "inventories" / "prod")]) == 0
    out = capsys.readouterr().out
    assert "8 GPU hosts, 10 switches, 64 NICs, platforms: cumulus, eos, junos, nxos, sonic" in out
    assert "1 vault-encrypted file(s) not read" in out


def test_example_production_inventory_reads_its_vault_with_the_password() -> None:
    prod = REPO_ROOT / "inventories" / "prod"
    args = ["inventory", "check", "-i", str(prod), "--vault-password-file", str(prod / "vault-password.txt")]
    assert main(args) == 0


def test_wrong_vault_password_is_a_clear_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n")
    prod = REPO_ROOT / "inventories" / "prod"
    assert main(["inventory", "check", "-i", str(prod), "--vault-password-file", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert "Decryption failed" in err or "decrypt" in err.lower()
    assert "Traceback" not in err


def test_broken_inventory_exits_2_one_line_per_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inventory", "check", "-i", str(BROKEN / "cabling_disagrees")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("3 problem(s) in ")
    assert lines[0].startswith("gpu01.gpunet_nics[0].switch_port: cabling disagrees")
    assert all(": " in line and "(got " in line for line in lines[:-1])


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inventory", "check", "-i", str(BROKEN / "nic_speed_differs"), "--format", "json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["problems"] == [
        {
            "path": "gpu02.gpunet_nics[1].speed_gbps",
            "message": "differs from leaf02 swp2s0's speed",
            "got": 200,
            "expected": 400,
        }
    ]


@pytest.mark.parametrize(
    ("content", "name", "fragment"),
    [
        ("all: [\n", "hosts.yml", "YAML parsing failed"),
        ("[gpu_nodes\nx\n", "hosts.ini", "Failed to parse inventory"),
        ("", "missing.yml", "does not exist"),
    ],
    ids=["yaml", "ini", "missing"],
)
def test_unreadable_sources_fail_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, name: str, fragment: str
) -> None:
    source = tmp_path / name
    if content:
        source.write_text(content)
    assert main(["inventory", "check", "-i", str(source)]) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert str(source) in err or name in err
    assert "Traceback" not in err and "[WARNING]" not in err


def test_inventory_without_gpunet_groups(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n    web01:\n")
    assert main(["inventory", "check", "-i", str(tmp_path / "hosts.yml")]) == 2
    assert "inventory: has no hosts in the gpu_nodes or switches groups" in capsys.readouterr().err
