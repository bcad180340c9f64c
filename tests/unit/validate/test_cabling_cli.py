"""`gpunet cabling -i INVENTORY --from-artifacts DIR` on artifacts folders written here, over the
sonic_custom_dscp_lossy_port inventory (gpu01 mlx5_0/rail0 -> leaf01 Ethernet0, mlx5_1/rail1 ->
leaf01 Ethernet8, Ethernet16 free): each exit code and both output formats."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.cli import main
from tests.conftest import FIXTURES_DIR

INVENTORY = FIXTURES_DIR / "render" / "sonic_custom_dscp_lossy_port" / "hosts.yml"


def lldpctl(entries: list[tuple[str, str, str, str]]) -> str:
    """`lldpctl -f json` as lldpd prints it: one neighbour an object, several a list."""
    objects = [
        {
            local: {
                "via": "LLDP",
                "rid": str(number),
                "age": "0 day, 00:10:00",
                "chassis": {sysname: {"id": {"type": "mac", "value": f"0c:42:a1:00:00:0{number}"}}},
                "port": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}, "descr": port},
            }
        }
        for number, (local, sysname, port, _) in enumerate(entries, 1)
    ]
    interface = objects[0] if len(objects) == 1 else objects
    return json.dumps({"lldp": {"interface": interface} if objects else {}}, indent=2) + "\n"


PLANNED_HOST = [("rail0", "leaf01", "Ethernet0", ""), ("rail1", "leaf01", "Ethernet8", "")]
PLANNED_LEAF = [("Ethernet0", "gpu01", "rail0", ""), ("Ethernet8", "gpu01", "rail1", "")]


def write(folder: Path, host: str | None, leaf: str | None) -> Path:
    if host is not None:
        (folder / "hosts" / "gpu01").mkdir(parents=True)
        (folder / "hosts" / "gpu01" / "lldpctl-json.txt").write_text(host)
    if leaf is not None:
        (folder / "switches" / "leaf01" / "before").mkdir(parents=True)
        (folder / "switches" / "leaf01" / "before" / "lldpctl-json.txt").write_text(leaf)
    return folder


SWAPPED_HOST = lldpctl([("rail0", "leaf01", "Ethernet8", ""), ("rail1", "leaf01", "Ethernet0", "")])
SWAPPED_LEAF = lldpctl([("Ethernet0", "gpu01", "rail1", ""), ("Ethernet8", "gpu01", "rail0", "")])


def unreachable(folder: Path) -> None:
    (folder / "switches" / "leaf01" / "before").mkdir(parents=True)
    (folder / "switches" / "leaf01" / "before" / "collection-error.txt").write_text(
        "UNREACHABLE: timed out\n"
    )


CASES: list[tuple[str, str | None, str | None, Callable[[Path], None] | None, int, str]] = [
    ("cabled as planned", lldpctl(PLANNED_HOST), lldpctl(PLANNED_LEAF), None, 0, "2 as planned"),
    ("swapped", SWAPPED_HOST, SWAPPED_LEAF, None, 4, "FAIL swapped"),
    ("one missing link", lldpctl(PLANNED_HOST[:1]), lldpctl(PLANNED_LEAF[:1]), None, 4, "FAIL missing"),
    (
        "extra on a free port",
        lldpctl(PLANNED_HOST),
        lldpctl([*PLANNED_LEAF, ("Ethernet16", "gpu01", "rail9", "")]),
        None,
        4,
        "FAIL extra_neighbour",
    ),
    (
        "switch capture missing",
        lldpctl(PLANNED_HOST),
        None,
        None,
        3,
        "leaf01: switches/leaf01/before/lldpctl-json.txt missing",
    ),
    (
        "switch unreachable",
        lldpctl(PLANNED_HOST),
        None,
        unreachable,
        3,
        "unreachable: UNREACHABLE: timed out",
    ),
    (
        "host capture cut",
        lldpctl(PLANNED_HOST)[:40],
        lldpctl(PLANNED_LEAF),
        None,
        3,
        "not JSON (a cut capture?)",
    ),
    ("nothing captured", None, None, None, 3, "NOT CHECKED gpu01 mlx5_0 (rail0) <-> leaf01 Ethernet0"),
    (
        "a miswire found with the host uncaptured",
        None,
        SWAPPED_LEAF,
        None,
        4,
        "seen from: one end only: gpu01",
    ),
]


@pytest.mark.parametrize(
    ("case", "host", "leaf", "prepare", "code", "line"), CASES, ids=[c[0] for c in CASES]
)
def test_exit_codes_and_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, host, leaf, prepare, code: int, line: str
) -> None:
    folder = write(tmp_path / "artifacts", host, leaf)
    folder.mkdir(exist_ok=True)
    if prepare:
        prepare(folder)
    assert main(["cabling", "-i", str(INVENTORY), "--from-artifacts", str(folder)]) == code
    assert line in capsys.readouterr().out


def test_json_names_both_ends_and_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path, SWAPPED_HOST, SWAPPED_LEAF)
    assert main(["cabling", "-i", str(INVENTORY), "--from-artifacts", str(folder), "--format", "json"]) == 4
    document = json.loads(capsys.readouterr().out)
    assert document["exit_code"] == 4 and document["links"] == 2
    (finding,) = document["findings"]
    assert finding["class"] == "swapped"
    assert finding["ends"][:2] == [
        {"host": "gpu01", "nic": "mlx5_0", "netdev": "rail0"},
        {"switch": "leaf01", "port": "Ethernet0"},
    ]
    assert finding["fix"].startswith("swap the cables in leaf01 Ethernet0 and leaf01 Ethernet8")
    assert [c["status"] for c in document["captures"]] == ["read", "read"]


def test_after_phase_reads_the_after_captures(tmp_path: Path) -> None:
    folder = write(tmp_path, lldpctl(PLANNED_HOST), None)
    (folder / "switches" / "leaf01" / "after").mkdir(parents=True)
    (folder / "switches" / "leaf01" / "after" / "lldpctl-json.txt").write_text(lldpctl(PLANNED_LEAF))
    arguments = ["cabling", "-i", str(INVENTORY), "--from-artifacts", str(folder)]
    assert main([*arguments, "--phase", "after"]) == 0
    assert main(arguments) == 3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-i", str(INVENTORY), "--from-artifacts", "{tmp}/absent"], "is not a folder"),
        (["-i", "{tmp}/no-inventory", "--from-artifacts", "{tmp}"], "problem(s) in"),
    ],
    ids=["no artifacts folder", "no inventory"],
)
def test_usage_and_inventory_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    argv = ["cabling", *(argument.replace("{tmp}", str(tmp_path)) for argument in arguments)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
