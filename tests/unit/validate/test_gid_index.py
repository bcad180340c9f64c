"""The RoCE GID index per NIC from sysfs: the table as collected, the GID carrying the inventory
address, perftest's own pick (linux-rdma/perftest get_best_gid_index) and when -x is needed."""

from __future__ import annotations

import json
import shutil
import subprocess
from ipaddress import IPv6Address
from pathlib import Path

import pytest

from gpunet.validate.collect_plan import GID_TABLE_SCRIPT, pair_rounds, required_gid_indexes
from gpunet.validate.gid_index import gid_address, perftest_choice, required_index
from gpunet.validate.judge import judge
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.results import Status
from tests.conftest import FIXTURES_DIR

LINK_LOCAL = "fe80:0000:0000:0000:9640:c9ff:fe8c:a09c"


def mapped(address: str) -> str:
    a, b, c, d = (int(x) for x in address.split("."))
    return f"0000:0000:0000:0000:0000:ffff:{a << 8 | b:04x}:{c << 8 | d:04x}"


def table(*entries: tuple[int, str, str]) -> list[dict]:
    text = "".join(f"{n} {gid} {kind.replace(' ', '_')} eth0\n" for n, gid, kind in entries)
    return parse("roce-gids", text)["gids"]


LINK = [(0, LINK_LOCAL, "IB/RoCE v1"), (1, LINK_LOCAL, "RoCE v2")]
STANDARD = table(*LINK, (2, mapped("10.0.0.1"), "IB/RoCE v1"), (3, mapped("10.0.0.1"), "RoCE v2"))
TWO_ADDRESSES = table(
    *LINK,
    (2, mapped("192.0.2.9"), "IB/RoCE v1"),
    (3, mapped("192.0.2.9"), "RoCE v2"),
    (4, mapped("10.0.0.1"), "IB/RoCE v1"),
    (5, mapped("10.0.0.1"), "RoCE v2"),
)
V1_ONLY = table((0, LINK_LOCAL, "IB/RoCE v1"), (1, mapped("10.0.0.1"), "IB/RoCE v1"))

# (GID table, inventory address, perftest's own pick, the -x that must be given)
CASES = [
    (STANDARD, "10.0.0.1", 3, None),
    (STANDARD, "10.0.0.1/24", 3, None),
    (TWO_ADDRESSES, "10.0.0.1", 3, 5),
    (TWO_ADDRESSES, "192.0.2.9", 3, None),
    (V1_ONLY, "10.0.0.1", 1, None),  # no RoCE v2 GID: nothing to give; the check fails
    (STANDARD, "10.9.9.9", 3, None),
]


@pytest.mark.parametrize(("gids", "address", "pick", "required"), CASES)
def test_perftest_pick_and_required_index(
    gids: list[dict], address: str, pick: int, required: int | None
) -> None:
    assert perftest_choice(gids) == pick
    assert required_index(gids, address) == required


def test_the_collection_script_reads_sysfs(tmp_path: Path) -> None:
    port = tmp_path / "mlx5_0" / "ports" / "1"
    for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs"):
        (port / sub).mkdir(parents=True)
    for index, gid, kind in (
        (0, LINK_LOCAL, "IB/RoCE v1"),
        (3, mapped("10.0.0.1"), "RoCE v2"),
        (7, "0" * 4 + ":0000" * 7, ""),
    ):
        (port / "gids" / str(index)).write_text(gid + "\n")
        if kind:
            (port / "gid_attrs" / "types" / str(index)).write_text(kind + "\n")
            (port / "gid_attrs" / "ndevs" / str(index)).write_text("ens1np0\n")
    done = subprocess.run(
        ["sh", "-c", GID_TABLE_SCRIPT, "sh", "mlx5_0", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert parse("roce-gids", done.stdout)["gids"] == [
        {"index": 0, "gid": LINK_LOCAL, "type": "IB/RoCE v1", "ndev": "ens1np0"},
        {"index": 3, "gid": mapped("10.0.0.1"), "type": "RoCE v2", "ndev": "ens1np0"},
    ]
    missing = subprocess.run(
        ["sh", "-c", GID_TABLE_SCRIPT, "sh", "mlx5_9", str(tmp_path)], capture_output=True, text=True
    )
    assert missing.returncode == 1 and "no GID table" in missing.stderr


@pytest.mark.parametrize(
    "text", ["", "cat: /sys/class/infiniband: No such file\n", "3 not-a-gid RoCE_v2 eth0\n"]
)
def test_unreadable_gid_table(text: str) -> None:
    with pytest.raises(ParseError):
        parse("roce-gids", text)


def test_perftest_gets_x_only_where_needed() -> None:
    nics = {
        f"gpu0{i}": [{"name": "mlx5_0", "netdev": "r0", "rail": 0, "ip": f"10.0.0.{i}/24"}] for i in (1, 2)
    }
    outputs = [{"item": {"file": "roce-gids.mlx5_0"}, "rc": 0, "stdout": "".join(
        f"{e['index']} {e['gid']} {e['type'].replace(' ', '_')} eth0\n" for e in TWO_ADDRESSES)}]  # fmt: skip
    nics["gpu01"][0]["ip"] = "10.0.0.1/24"
    indexes = required_gid_indexes(outputs, nics["gpu01"])
    assert indexes == {"mlx5_0": 5}
    plan = pair_rounds(nics, "gpu01", "ib_write_bw", ["--report_gbits"], gid_indexes=indexes)
    argvs = [entry["argv"] for rnd in plan for entry in rnd["servers"] + rnd["clients"]]
    assert argvs and all(argv[argv.index("-x") + 1] == "5" for argv in argvs)
    plain = pair_rounds(nics, "gpu01", "ib_write_bw", ["--report_gbits"])
    assert all("-x" not in entry["argv"] for rnd in plain for entry in rnd["servers"] + rnd["clients"])


def test_roce_gid_index_check_on_the_fixture(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(FIXTURES_DIR / "artifacts" / "healthy", folder)
    results = [r for r in judge(folder).results if r.check == "roce_gid_index"]
    assert results and {r.status for r in results} == {Status.PASS}
    assert "GID index 3" in results[0].actual and "perftest picks it itself" in results[0].actual
    victim = folder / "hosts" / "gpu02" / "roce-gids.mlx5_3.txt"
    victim.write_text(
        "\n".join(line for line in victim.read_text().splitlines() if not line.startswith("3 ")) + "\n"
    )
    failed = [r for r in judge(folder).results if r.check == "roce_gid_index" and r.status != Status.PASS]
    assert [(r.target, r.status) for r in failed] == [("gpu02:mlx5_3", Status.FAIL)]
    assert (
        json.loads((folder / "manifest.json").read_text())["hosts"]["gpu02"]["nics"][3]["address"]
        in failed[0].expected
    )


# gid_address reads an IPv4-mapped GID in sysfs's full form directly: the same answer as
# ipaddress for every spelling, and the same refusal for what is no address.
GIDS = [
    "0000:0000:0000:0000:0000:ffff:c633:6401",
    "0000:0000:0000:0000:0000:ffff:0a00:0001",
    "0000:0000:0000:0000:0000:FFFF:C633:6401",
    "0000:0000:0000:0000:0000:ffff:C633:6401",
    "fe80:0000:0000:0000:9640:c9ff:fe8c:a09c",
    "::ffff:10.0.0.1",
    "2001:0db8:0000:0000:0000:0000:0000:0001",
]
NOT_GIDS = [
    "0000:0000:0000:0000:0000:ffff:c6336:401",
    "0000:0000:0000:0000:0000:ffff:c633:640g",
    "0000:0000:0000:0000:0000:ffff:c633-6401",
]


@pytest.mark.parametrize("gid", GIDS)
def test_gid_address_is_what_ipaddress_reads(gid: str) -> None:
    gid_address.cache_clear()
    address = IPv6Address(gid)
    expected = address.ipv4_mapped or address
    assert gid_address(gid) == expected and type(gid_address(gid)) is type(expected)


@pytest.mark.parametrize("gid", NOT_GIDS)
def test_gid_address_refuses_what_ipaddress_refuses(gid: str) -> None:
    gid_address.cache_clear()
    with pytest.raises(ValueError):
        IPv6Address(gid)
    with pytest.raises(ValueError):
        gid_address(gid)
