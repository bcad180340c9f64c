"""`--checks cabling` on the committed fixture artifacts, whose LLDP captures the generator writes
with the simulator's printers (tests/fixtures/artifacts/generate.py write_lldp): as cabled every
planned link passes; a miswire written into the captures is found under its class."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.validate.checks import load_selection
from gpunet.validate.judge import judge
from gpunet.validate.results import Status
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"
SONIC_TABLE = "switches/leaf06/before/sonic-show-lldp-table.txt"


def copy_lldp(source: Path, folder: Path) -> None:
    keep = ("manifest.json", "lldpctl-json.txt", "ibstat.txt", "-lldp-")
    shutil.copytree(
        source,
        folder,
        ignore=lambda where, names: [
            n for n in names if not (Path(where, n).is_dir() or any(k in n for k in keep))
        ],
    )


def host_sees(host: str, netdev: str, switch: str, port: str) -> Callable[[Path], None]:
    """The host's lldpd sees `switch` `port` on `netdev`."""

    def apply(folder: Path) -> None:
        path = folder / "hosts" / host / "lldpctl-json.txt"
        document = json.loads(path.read_text())
        for entry in document["lldp"]["interface"]:
            if netdev in entry:
                entry[netdev]["chassis"] = {switch: next(iter(entry[netdev]["chassis"].values()))}
                entry[netdev]["port"]["id"]["value"] = entry[netdev]["port"]["descr"] = port
        path.write_text(json.dumps(document))

    return apply


def swap_sonic_rows(folder: Path) -> None:
    path = folder / SONIC_TABLE
    text = path.read_text()
    text = text.replace("Ethernet0    gpu01", "Ethernet0    gpuXX").replace(
        "Ethernet8    gpu02", "Ethernet8    gpu01"
    )
    path.write_text(text.replace("Ethernet0    gpuXX", "Ethernet0    gpu02"))
    host_sees("gpu01", "enp171s0np0", "leaf06", "Ethernet8")(folder)
    host_sees("gpu02", "enp171s0np0", "leaf06", "Ethernet0")(folder)


# (case, fixture, change, the failing results as (target, class), how many results in all: 32 host
# links and 64 leaf-spine links of the four hosts' plan, a swap one result for its two links)
CASES = [
    ("healthy as cabled", "healthy", None, set(), 96),
    (
        "bad_nic: the NIC trained at 200G is a link up at the wrong speed",
        "bad_nic",
        None,
        {("gpu03:mlx5_2<->leaf03:Ethernet3/1", "wrong_speed")},
        96,
    ),
    (
        "two host cables swapped on the SONiC leaf",
        "healthy",
        swap_sonic_rows,
        {("gpu01:mlx5_5<->leaf06:Ethernet0<->gpu02:mlx5_5<->leaf06:Ethernet8", "swapped")},
        95,
    ),
]


@pytest.mark.parametrize(
    ("fixture", "change", "expected", "count"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_cabling_on_the_fixtures(
    tmp_path: Path,
    fixture: str,
    change: Callable[[Path], None] | None,
    expected: set[tuple[str, str]],
    count: int,
) -> None:
    folder = tmp_path / "artifacts"
    copy_lldp(ARTIFACTS / fixture, folder)
    if change:
        change(folder)
    results = judge(folder, load_selection("cabling")).results
    failed = {(r.target, r.actual.split(":")[0]) for r in results if r.status == Status.FAIL}
    assert failed == expected
    assert {r.status for r in results if r.status != Status.FAIL} == {Status.PASS}
    assert len(results) == count
