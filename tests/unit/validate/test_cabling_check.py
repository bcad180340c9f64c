"""`gpunet-validate --checks cabling` on artifacts folders written here (the manifest built from
the sonic_custom_dscp_lossy_port inventory, LLDP captures in lldpd's layout): the check's results
and each report format showing a finding with both ends and its fix."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpunet.model.check import load_fabric
from gpunet.validate.checks import CatalogError, load_selection
from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.manifest import MANIFEST, build_manifest
from gpunet.validate.results import Status
from tests.unit.validate.test_cabling_cli import (
    INVENTORY,
    PLANNED_HOST,
    PLANNED_LEAF,
    SWAPPED_HOST,
    SWAPPED_LEAF,
    lldpctl,
    write,
)

RAIL0 = "gpu01:mlx5_0<->leaf01:Ethernet0"
RAIL1 = "gpu01:mlx5_1<->leaf01:Ethernet8"


def folder_with(tmp_path: Path, host: str | None, leaf: str | None) -> Path:
    folder = write(tmp_path / "artifacts", host, leaf)
    folder.mkdir(exist_ok=True)
    build_manifest(load_fabric(str(INVENTORY))).write(folder)
    return folder


# (case, host capture, leaf capture, {target: status}, exit code)
CASES = [
    ("as planned", lldpctl(PLANNED_HOST), lldpctl(PLANNED_LEAF), {RAIL0: "pass", RAIL1: "pass"}, 0),
    ("swapped", SWAPPED_HOST, SWAPPED_LEAF, {f"{RAIL0}<->{RAIL1}": "fail"}, 4),
    (
        "one missing",
        lldpctl(PLANNED_HOST[:1]),
        lldpctl(PLANNED_LEAF[:1]),
        {RAIL0: "pass", RAIL1: "fail"},
        4,
    ),
    (
        "host not captured, judged from the leaf",
        None,
        lldpctl(PLANNED_LEAF),
        {"gpu01": "error", RAIL0: "pass", RAIL1: "pass"},
        3,
    ),
    (
        "nothing captured",
        None,
        None,
        {"gpu01": "error", "leaf01": "error", RAIL0: "not checked", RAIL1: "not checked"},
        3,
    ),
]


@pytest.mark.parametrize(("case", "host", "leaf", "statuses", "code"), CASES, ids=[c[0] for c in CASES])
def test_results_per_link(tmp_path: Path, case: str, host, leaf, statuses: dict[str, str], code: int) -> None:
    folder = folder_with(tmp_path, host, leaf)
    verdict = judge(folder, load_selection("cabling"))
    # A host folder with no capture at all is an unreachable host (one error, coverage's), not a cabling one.
    found = {r.target: str(r.status) for r in verdict.results}
    assert found == statuses
    out = tmp_path / "report.json"
    assert (
        main(
            ["--from-artifacts", str(folder), "--checks", "cabling", "--format", "json", "--output", str(out)]
        )
        == code
    )


def test_finding_names_both_ends_and_the_fix(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, SWAPPED_HOST, SWAPPED_LEAF)
    (result,) = [r for r in judge(folder, load_selection("cabling")).results if r.status == Status.FAIL]
    assert result.actual.startswith("swapped: ")
    assert result.message.startswith("fix: swap the cables in leaf01 Ethernet0 and leaf01 Ethernet8")
    assert result.category == "cabling"


def _junit_failures(text: str) -> dict[str, str]:
    root = ET.fromstring(text)
    return {
        case.get("name", ""): (case.find("failure").get("message", "") + (case.find("failure").text or ""))
        for case in root.iter("testcase")
        if case.find("failure") is not None
    }


def _prometheus_failures(text: str) -> list[str]:
    return [
        line
        for line in text.splitlines()
        if line.startswith("gpunet_check_status{") and 'check="cabling"' in line
    ]


# Each format: how to read the swapped finding out of it (a text that must hold both ends and the fix).
FORMATS = [
    ("table", lambda text: text),
    ("json", lambda text: json.dumps([r for r in json.loads(text)["results"] if r["status"] == "fail"])),
    ("junit", lambda text: json.dumps(_junit_failures(text))),
    ("html", lambda text: text),
    ("markdown", lambda text: text),
    ("prometheus", lambda text: "\n".join(_prometheus_failures(text))),
]


@pytest.mark.parametrize(("report_format", "failures"), FORMATS, ids=[f[0] for f in FORMATS])
def test_each_format_shows_the_finding(tmp_path: Path, report_format: str, failures) -> None:
    reports = {}
    for case, host, leaf in (
        ("swapped", SWAPPED_HOST, SWAPPED_LEAF),
        ("planned", lldpctl(PLANNED_HOST), lldpctl(PLANNED_LEAF)),
    ):
        folder = folder_with(tmp_path / case, host, leaf)
        out = tmp_path / f"{case}.{report_format}"
        main(
            [
                "--from-artifacts",
                str(folder),
                "--checks",
                "cabling",
                "--format",
                report_format,
                "--output",
                str(out),
                "--no-color",
            ]
        )
        reports[case] = failures(out.read_text())
    swapped, planned = reports["swapped"], reports["planned"]
    if report_format == "prometheus":  # labels: the first end, its NIC's leaf port; the target all ends
        assert (
            'host="gpu01",nic="mlx5_0"' in swapped
            and 'switch="leaf01",target="' + f'{RAIL0}<->{RAIL1}"' in swapped
        )
        assert planned == ""
        return
    table_folds = report_format == "table"  # rich folds long cells over lines
    text = " ".join(swapped.split()) if not table_folds else "".join(swapped.split())
    for needed in (
        "gpu01",
        "mlx5_0",
        "mlx5_1",
        "leaf01",
        "Ethernet0",
        "Ethernet8",
        "swapped",
        "fix: swap the cables",
    ):
        assert (needed if not table_folds else "".join(needed.split())) in text, needed
    assert "swapped" not in planned


def test_html_fabric_view_marks_the_leaf_ports(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, SWAPPED_HOST, SWAPPED_LEAF)
    out = tmp_path / "report.html"
    main(["--from-artifacts", str(folder), "--checks", "cabling", "--format", "html", "--output", str(out)])
    html = out.read_text()
    assert "<h2>Cabling" in html
    section = html.split("<h2>Cabling", 1)[1].split("<h2>", 1)[0]
    for needed in ("leaf01", "Ethernet0", "Ethernet8", "rail 0", "rail 1", "swapped"):
        assert needed in section, needed


def test_a_manifest_without_switch_ports_is_an_error(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, lldpctl(PLANNED_HOST), lldpctl(PLANNED_LEAF))
    document = json.loads((folder / MANIFEST).read_text())
    for switch in document["switches"].values():
        del switch["ports"]
    (folder / MANIFEST).write_text(json.dumps(document))
    results = [r for r in judge(folder, load_selection("cabling")).results if r.check == "cabling"]
    assert [(r.status, r.target) for r in results] == [(Status.ERROR, "sonic_custom_dscp_lossy_port")]
    assert "before switch ports were recorded" in results[0].message


@pytest.mark.parametrize(
    ("selection", "problem"),
    [("cabling,nope", "['nope'] names no check"), ("no/such.yml", "no/such.yml")],
)
def test_checks_selection_refused(selection: str, problem: str) -> None:
    with pytest.raises(CatalogError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        load_selection(selection)


def test_checks_names_select_only_them() -> None:
    assert load_selection("cabling").checks == ["cabling"]
    assert load_selection("cabling,ntp_offset").checks == ["cabling", "ntp_offset"]


@pytest.mark.parametrize(
    ("rows", "statuses"),
    [
        ([("Ethernet0", "rail0"), ("Ethernet8", "rail1")], {RAIL0: "pass", RAIL1: "pass"}),
        ([("Ethernet0", "rail1"), ("Ethernet8", "rail0")], {f"{RAIL0}<->{RAIL1}": "fail"}),
    ],
    ids=["planned", "swapped"],
)
def test_a_sonic_leaf_read_from_show_lldp_table(tmp_path: Path, rows, statuses: dict[str, str]) -> None:
    """Without lldpctl-json, the SONiC leaf's `show lldp table` is read (checks/cabling.py LLDP_TOOLS)."""
    from tests.unit.validate.test_lldp_switch_parsers import sonic_table

    folder = folder_with(tmp_path, None, None)
    leaf = folder / "switches" / "leaf01" / "before"
    leaf.mkdir(parents=True)
    table = sonic_table([(local, "gpu01", "b8:ce:f6:00:00:01", "", netdev) for local, netdev in rows])
    (leaf / "sonic-show-lldp-table.txt").write_text(table)
    found = {r.target: str(r.status) for r in judge(folder, load_selection("cabling")).results}
    assert found == {"gpu01": "error", **statuses}


def ibstat(rates: dict[str, int], state: str = "Active") -> str:
    from tests.fixtures.artifacts.generate import IBSTAT

    return "".join(
        IBSTAT.format(nic=nic, rate=rate, guid=f"{index:02x}01").replace("State: Active", f"State: {state}")
        for index, (nic, rate) in enumerate(rates.items())
    )


# (case, ibstat of gpu01 or None, {target: status}); the LLDP captures are as planned.
SPEEDS = [
    ("both at the plan's 400", ibstat({"mlx5_0": 400, "mlx5_1": 400}), {RAIL0: "pass", RAIL1: "pass"}),
    ("rail1 up at 200", ibstat({"mlx5_0": 400, "mlx5_1": 200}), {RAIL0: "pass", RAIL1: "fail"}),
    (
        "rail1 down: the LLDP judgement's, not speed",
        ibstat({"mlx5_0": 400, "mlx5_1": 200}, "Down"),
        {RAIL0: "pass", RAIL1: "pass"},
    ),
    ("ibstat not collected: speed not judged", None, {RAIL0: "pass", RAIL1: "pass"}),
]


@pytest.mark.parametrize(("case", "rates", "statuses"), SPEEDS, ids=[s[0] for s in SPEEDS])
def test_link_up_at_the_wrong_speed(
    tmp_path: Path, case: str, rates: str | None, statuses: dict[str, str]
) -> None:
    folder = folder_with(tmp_path, lldpctl(PLANNED_HOST), lldpctl(PLANNED_LEAF))
    if rates is not None:
        (folder / "hosts" / "gpu01" / "ibstat.txt").write_text(rates)
    results = [r for r in judge(folder, load_selection("cabling")).results if r.check == "cabling"]
    assert {r.target: str(r.status) for r in results} == statuses
    for result in results:
        if result.status == Status.FAIL:
            assert result.actual.startswith(
                "wrong_speed: gpu01 mlx5_1 (rail1) <-> leaf01 Ethernet8 is up at 200 Gb/s"
            )
            assert result.expected.endswith("up at 400 Gb/s")
            assert "leaf01 Ethernet8 is set to 400 Gb/s" in result.message


def test_manifest_ports_round_trip_one_line_each(tmp_path: Path) -> None:
    from gpunet.validate.manifest import ManifestError, read_manifest

    fabric = load_fabric(str(INVENTORY))
    manifest = build_manifest(fabric)
    manifest.write(tmp_path)
    document = json.loads((tmp_path / MANIFEST).read_text())
    assert document["switches"]["leaf01"]["ports"] == {
        port.name: " ".join(
            str(x)
            for x in (
                port.speed_gbps,
                *((port.peer.kind, port.peer.device, port.peer.port) if port.peer else ()),
            )
        )
        for port in fabric.switches["leaf01"].ports
    }
    assert read_manifest(tmp_path).switches == manifest.switches
    for bad in ("fast host gpu01 mlx5_0", "400 cable gpu01 mlx5_0", "400 host gpu01"):
        document["switches"]["leaf01"]["ports"]["Ethernet0"] = bad
        (tmp_path / MANIFEST).write_text(json.dumps(document))
        with pytest.raises(ManifestError, match=f"port 'Ethernet0': '{bad}' is not"):
            read_manifest(tmp_path)


def test_batched_apart_from_the_host_checks_that_read_ibstat() -> None:
    from gpunet.validate.batches import batches
    from gpunet.validate.checks.base import HOSTS

    found = {batch.checks: batch.judged_per for batch in batches(["nic_port_state", "cabling"])}
    assert found == {("nic_port_state",): HOSTS, ("cabling",): None}


def mstconfig_query(rows: list[tuple[str, str]], columns: str = "Next Boot") -> str:
    """`mstconfig -d 0000:c1:00.0 query ...` as verify_host saves it (mstflint's table layout)."""
    head = "\nDevice #1:\n----------\n\nDevice type:        ConnectX7\nDevice:             0000:c1:00.0\n\n"
    table = "".join(f"         {name:<48}{value}\n" for name, value in rows)
    return f"{head}Configurations:                                          {columns}\n{table}"


AGENT_ON = "the NIC firmware's LLDP agent is on (LLDP_NB_RX_MODE_P1 ALL(2)): it takes the frames"
SET_OFF = "mstconfig -d 0000:c1:00.0 set LLDP_NB_RX_MODE_P1=0, needs a NIC reset"

# (case, host capture, mstconfig-lldp.mlx5_1 capture or None, what rail1's pass message holds, lacks)
FIRMWARE = [
    (
        "host sees nothing on rail1, agent receives",
        lldpctl(PLANNED_HOST[:1]),
        mstconfig_query([("LLDP_NB_RX_MODE_P1", "ALL(2)"), ("LLDP_NB_TX_MODE_P1", "ALL(2)")]),
        [AGENT_ON, SET_OFF, "set lldpd_enabled: false for this host", "sees no neighbour"],
        [],
    ),
    (
        "nearest bridge only is receiving too",
        lldpctl(PLANNED_HOST[:1]),
        mstconfig_query([("LLDP_NB_RX_MODE_P1", "NEAREST_BRIDGE(1)")]),
        ["LLDP_NB_RX_MODE_P1 NEAREST_BRIDGE(1)"],
        [],
    ),
    (
        "-e table: the running value counts",
        lldpctl(PLANNED_HOST[:1]),
        mstconfig_query(
            [("LLDP_NB_RX_MODE_P1", "OFF(0)   ALL(2)   OFF(0)")], "Default   Current   Next Boot"
        ),
        [AGENT_ON],
        [],
    ),
    (
        "agent off: the generic note only",
        lldpctl(PLANNED_HOST[:1]),
        mstconfig_query([("LLDP_NB_RX_MODE_P1", "OFF(0)"), ("LLDP_NB_TX_MODE_P1", "ALL(2)")]),
        ["sees no neighbour"],
        ["firmware"],
    ),
    (
        "no capture: the generic note only",
        lldpctl(PLANNED_HOST[:1]),
        None,
        ["sees no neighbour"],
        ["firmware"],
    ),
    (
        "unreadable capture: the generic note only",
        lldpctl(PLANNED_HOST[:1]),
        "-E- Failed to open the device\n",
        ["sees no neighbour"],
        ["firmware"],
    ),
    (
        "host sees its leaf: the capture is not read",
        lldpctl(PLANNED_HOST),
        mstconfig_query([("LLDP_NB_RX_MODE_P1", "ALL(2)")]),
        [],
        ["firmware", "sees no neighbour"],
    ),
]


@pytest.mark.parametrize(
    ("case", "host", "firmware", "holds", "lacks"), FIRMWARE, ids=[f[0] for f in FIRMWARE]
)
def test_a_silent_nic_with_the_firmware_agent_on_is_named(
    tmp_path: Path, case: str, host: str, firmware: str | None, holds: list[str], lacks: list[str]
) -> None:
    folder = folder_with(tmp_path, host, lldpctl(PLANNED_LEAF))
    if firmware is not None:
        (folder / "hosts" / "gpu01" / "mstconfig-lldp.mlx5_1.txt").write_text(firmware)
        # rail0's NIC reports its agent on too, but rail0 is seen from both ends: never read.
        (folder / "hosts" / "gpu01" / "mstconfig-lldp.mlx5_0.txt").write_text(firmware)
    results = [r for r in judge(folder, load_selection("cabling")).results if r.check == "cabling"]
    assert {r.target: str(r.status) for r in results} == {RAIL0: "pass", RAIL1: "pass"}, case
    by_target = {r.target: r.message for r in results}
    assert "firmware" not in by_target[RAIL0]
    for text in holds:
        assert text in by_target[RAIL1]
    for text in lacks:
        assert text not in by_target[RAIL1]
