"""The switch OSes' LLDP commands reduced to lldpctl-json's neighbour records (parsers/lldp_switch.py).

Captures are written here in each vendor's layout as the sources cited in the parser show it
(our own names and values): EOS from aristanetworks/anta's recorded eos_data, NX-OS from ONOS's
NX-API reader, Junos from ONOS's Junos reader and suzieq's JSON paths, SONiC from
sonic-utilities' lldpshow (tabulate's simple format). Each capture is also judged: the same
planned link read from every OS gives the same verdict."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse


def eos(entries: dict[str, list[dict[str, Any]]]) -> str:
    return json.dumps(
        {"lldpNeighbors": {port: {"lldpNeighborInfo": infos} for port, infos in entries.items()}}
    )


def eos_info(name: str | None, port: str, kind: str = "interfaceName", v2: bool = True) -> dict[str, Any]:
    interface: dict[str, Any] = {"interfaceIdType": kind, "interfaceId": f'"{port}"'}
    if v2:
        interface["interfaceId_v2"] = port
    interface["interfaceDescription"] = f"to {name}"
    info: dict[str, Any] = {"chassisIdType": "macAddress", "chassisId": "0c42.a100.0001"}
    if name is not None:
        info["systemName"] = name
    return {**info, "neighborInterfaceInfo": interface}


def nxos(rows: list[dict[str, str]], as_object: bool = False) -> str:
    body: Any = rows[0] if as_object else rows
    return json.dumps({"TABLE_nbor_detail": {"ROW_nbor_detail": body}})


def nxos_row(local: str, name: str, port: str, descr: str = "") -> dict[str, str]:
    row = {"l_port_id": local, "chassis_id": "0c42.a100.0002", "port_id": port, "sys_name": name}
    if descr:
        row["port_desc"] = descr
    return row


def junos(rows: list[dict[str, str]], local_key: str = "lldp-local-port-id") -> str:
    entries = []
    for row in rows:
        entry = {local_key: [{"data": row["local"]}]}
        for key in (
            "chassis-id-subtype",
            "chassis-id",
            "port-id-subtype",
            "port-id",
            "port-description",
            "system-name",
        ):
            if key in row:
                entry[f"lldp-remote-{key}"] = [{"data": row[key]}]
        entries.append(entry)
    body: dict[str, Any] = {"lldp-neighbor-information": entries} if entries else {}
    return json.dumps({"lldp-neighbors-information": [body]}, indent=4)


def junos_row(local: str, name: str, port: str, subtype: str = "Interface name") -> dict[str, str]:
    return {
        "local": local,
        "chassis-id-subtype": "Mac address",
        "chassis-id": "0c:42:a1:00:00:03",
        "port-id-subtype": subtype,
        "port-id": port,
        "system-name": name,
    }


def sonic_table(rows: list[tuple[str, str, str, str, str]], total: int | None = None) -> str:
    """lldpshow's table: tabulate's simple format, columns two spaces apart."""
    header = ("LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr")
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=False)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    lines = [
        "Capability codes: (R) Router, (B) Bridge, (O) Other",
        line(header),
        "  ".join("-" * w for w in widths),
    ]
    lines += [line(row) for row in rows]
    lines += ["-" * 50, f"Total entries displayed:  {len(rows) if total is None else total}"]
    return "\n".join(lines) + "\n"


def brief(parsed: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            n["interface"],
            n["chassis"]["name"],
            n["port"]["id"]["type"],
            n["port"]["id"]["value"],
            n["port"]["descr"],
        )
        for n in parsed["neighbours"]
    ]


CASES = [
    (
        "eos two ports, one empty",
        "eos-show-lldp-neighbors-detail-json",
        eos({"Ethernet1": [eos_info("gpu01", "b8:ce:f6:00:00:01", "macAddress")], "Ethernet2": []}),
        [("Ethernet1", "gpu01", "mac", "b8:ce:f6:00:00:01", "to gpu01")],
    ),
    (
        "eos older release: quoted interfaceId only",
        "eos-show-lldp-neighbors-detail-json",
        eos({"Ethernet49/1": [eos_info("spine01", "Ethernet1/1", v2=False)]}),
        [("Ethernet49/1", "spine01", "ifname", "Ethernet1/1", "to spine01")],
    ),
    (
        "eos neighbour without a system name",
        "eos-show-lldp-neighbors-detail-json",
        eos({"Ethernet3": [eos_info(None, "eth0")]}),
        [("Ethernet3", None, "ifname", "eth0", "to None")],
    ),
    (
        "nxos list of rows, abbreviated local ports",
        "nxos-show-lldp-neighbors-detail-json",
        nxos(
            [
                nxos_row("Eth1/1", "gpu01", "b8ce.f600.0001", "rail0"),
                nxos_row("Eth1/49", "spine01", "Ethernet1/1"),
            ]
        ),
        [
            ("Ethernet1/1", "gpu01", "local", "b8ce.f600.0001", "rail0"),
            ("Ethernet1/49", "spine01", "local", "Ethernet1/1", None),
        ],
    ),
    (
        "nxos one row printed as an object",
        "nxos-show-lldp-neighbors-detail-json",
        nxos([nxos_row("Eth1/2", "gpu02", "rail1")], as_object=True),
        [("Ethernet1/2", "gpu02", "local", "rail1", None)],
    ),
    ("nxos no neighbour", "nxos-show-lldp-neighbors-detail-json", "{}", []),
    (
        "junos brief",
        "junos-show-lldp-neighbors-json",
        junos(
            [
                junos_row("et-0/0/0", "gpu01", "b8:ce:f6:00:00:01", "Mac address"),
                junos_row("et-0/0/48", "spine01", "et-0/0/1"),
            ]
        ),
        [
            ("et-0/0/0", "gpu01", "mac", "b8:ce:f6:00:00:01", None),
            ("et-0/0/48", "spine01", "ifname", "et-0/0/1", None),
        ],
    ),
    (
        "junos local interface key",
        "junos-show-lldp-neighbors-json",
        junos(
            [junos_row("et-0/0/2", "gpu02", "rail1", "Locally assigned")], local_key="lldp-local-interface"
        ),
        [("et-0/0/2", "gpu02", "local", "rail1", None)],
    ),
    ("junos no neighbour", "junos-show-lldp-neighbors-json", junos([]), []),
    (
        "sonic table: a host (MAC port id, netdev description) and a spine (alias)",
        "sonic-show-lldp-table",
        sonic_table(
            [
                ("Ethernet0", "gpu01", "b8:ce:f6:00:00:01", "", "rail0"),
                ("Ethernet256", "spine01", "etp1", "BR", ""),
                ("eth0", "", "Ethernet1/25", "BR", "mgmt uplink port"),
            ]
        ),
        [
            ("Ethernet0", "gpu01", "local", "b8:ce:f6:00:00:01", "rail0"),
            ("Ethernet256", "spine01", "local", "etp1", None),
            ("eth0", None, "local", "Ethernet1/25", "mgmt uplink port"),
        ],
    ),
    ("sonic table, no neighbour", "sonic-show-lldp-table", sonic_table([]), []),
]


@pytest.mark.parametrize(("case", "tool", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_reduced_to_neighbour_records(
    case: str, tool: str, text: str, expected: list[tuple[Any, ...]]
) -> None:
    assert brief(parse(tool, text)) == expected


_TABLE = sonic_table([("Ethernet0", "gpu01", "b8:ce:f6:00:00:01", "", "rail0")])
REFUSED = [
    ("eos-show-lldp-neighbors-detail-json", "% Invalid input\n", "not a JSON object"),
    ("eos-show-lldp-neighbors-detail-json", '{"interfaces": {}}', "no 'lldpNeighbors' object"),
    ("eos-show-lldp-neighbors-detail-json", eos({"Ethernet1": [eos_info("x", "y")]})[:60], "a cut capture"),
    (
        "eos-show-lldp-neighbors-detail-json",
        json.dumps({"lldpNeighbors": {"Ethernet1": {"lldpNeighborInfo": [{"chassisId": "a"}]}}}),
        "lldpNeighbors.Ethernet1.lldpNeighborInfo[0] has no 'neighborInterfaceInfo'",
    ),
    (
        "eos-show-lldp-neighbors-detail-json",
        '{"lldpNeighbors": {"Ethernet1": {"lldpNeighborInfo": []}, "Ethernet1": {"lldpNeighborInfo": []}}}',
        "key 'Ethernet1' twice",
    ),
    ("nxos-show-lldp-neighbors-detail-json", '{"TABLE_nbor": {"ROW_nbor": []}}', "no TABLE_nbor_detail"),
    (
        "nxos-show-lldp-neighbors-detail-json",
        json.dumps(
            {"TABLE_nbor_detail": {"ROW_nbor_detail": [{"sys_name": "a", "chassis_id": "c", "port_id": "p"}]}}
        ),
        "ROW_nbor_detail[0].l_port_id is missing",
    ),
    ("nxos-show-lldp-neighbors-detail-json", nxos([nxos_row("Eth1/1", "a", "b")]) * 2, "a second document"),
    (
        "nxos-show-lldp-neighbors-detail-json",
        nxos([{**nxos_row("Eth1/1", "a", "b"), "chassis_id": ""}]),
        "ROW_nbor_detail[0].chassis_id is empty",
    ),
    (
        "eos-show-lldp-neighbors-detail-json",
        eos({"Ethernet1": [{**eos_info("a", "b"), "chassisId": 7}]}),
        "lldpNeighbors.Ethernet1.lldpNeighborInfo[0].chassisId is not a string",
    ),
    (
        "junos-show-lldp-neighbors-json",
        '{"lldp-neighbors-information": {}}',
        "no 'lldp-neighbors-information'",
    ),
    (
        "junos-show-lldp-neighbors-json",
        junos([{"local": "et-0/0/0", "system-name": "a", "port-id": "p"}]),
        "lldp-neighbor-information[0].lldp-remote-chassis-id is missing",
    ),
    (
        "junos-show-lldp-neighbors-json",
        json.dumps(
            {
                "lldp-neighbors-information": [
                    {"lldp-neighbor-information": [{"lldp-local-port-id": "et-0/0/0"}]}
                ]
            }
        ),
        'lldp-local-port-id is not [{"data": text}]',
    ),
    ("sonic-show-lldp-table", "Error: unable to connect to lldpd daemon\n", "the command failed"),
    ("sonic-show-lldp-table", "LocalPort RemoteDevice\n", "no header"),
    (
        "sonic-show-lldp-table",
        _TABLE.replace("Total entries displayed:  1", "Total entries displayed:  2"),
        "holds 1 rows but says 2",
    ),
    ("sonic-show-lldp-table", _TABLE.rsplit("-" * 50, 1)[0], "no 'Total entries displayed' line"),
    (
        "sonic-show-lldp-table",
        _TABLE.replace("Ethernet0  gpu01", "Ethernet0 gpu01X"),
        "line 4: not a row of the table",
    ),
]


@pytest.mark.parametrize(("tool", "text", "reason"), REFUSED, ids=[f"{t}-{r}" for t, _, r in REFUSED])
def test_refused_by_key_or_line(tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse(tool, text)


# leaf0 of test_cabling_judge's fabric (Ethernet0 -> gpu01 ens0np0, Ethernet4 -> gpu02 ens0np0,
# Ethernet48 -> spine01 Ethernet0), captured in each OS's layout: (local, sysname, port id, descr).
def leaf_capture(tool: str, rows: list[tuple[str, str, str, str]]) -> str:
    if tool == "eos-show-lldp-neighbors-detail-json":
        infos: dict[str, list[dict[str, Any]]] = {}
        for local, name, port, descr in rows:
            info = eos_info(name, port, "macAddress" if ":" in port else "interfaceName")
            info["neighborInterfaceInfo"]["interfaceDescription"] = descr
            infos.setdefault(local, []).append(info)
        return eos(infos)
    if tool == "nxos-show-lldp-neighbors-detail-json":
        return nxos(
            [
                nxos_row(local.replace("Ethernet", "Eth"), name, port, descr)
                for local, name, port, descr in rows
            ]
        )
    if tool == "junos-show-lldp-neighbors-json":
        return junos(
            [
                {
                    **junos_row(local, name, port, "Mac address" if ":" in port else "Interface name"),
                    "port-description": descr,
                }
                for local, name, port, descr in rows
            ]
        )
    return sonic_table([(local, name, port, "", descr) for local, name, port, descr in rows])


MAC = "b8:ce:f6:00:00:01"
PLANNED = [
    ("Ethernet0", "gpu01", MAC, "ens0np0"),
    ("Ethernet4", "gpu02", MAC, "ens0np0"),
    ("Ethernet48", "spine01", "Ethernet0", ""),
]
SWAPPED = [("Ethernet0", "gpu02", MAC, "ens0np0"), ("Ethernet4", "gpu01", MAC, "ens0np0"), PLANNED[2]]
SWITCH_TOOLS = (
    "eos-show-lldp-neighbors-detail-json",
    "nxos-show-lldp-neighbors-detail-json",
    "junos-show-lldp-neighbors-json",
    "sonic-show-lldp-table",
)


@pytest.mark.parametrize("tool", SWITCH_TOOLS)
@pytest.mark.parametrize(
    ("rows", "kinds", "as_planned"), [(PLANNED, [], 3), (SWAPPED, ["swapped"], 1)], ids=["planned", "swapped"]
)
def test_every_os_capture_judged_alike(tool: str, rows, kinds: list[str], as_planned: int) -> None:
    from gpunet.validate.cabling import judge_cabling
    from tests.unit.validate.test_cabling_judge import fabric

    plan = fabric()
    captures: dict[str, Any] = dict.fromkeys([*plan.hosts, *plan.switches])
    captures["leaf0"] = parse(tool, leaf_capture(tool, rows))
    verdict = judge_cabling(plan, captures)
    assert [finding.kind for finding in verdict.findings] == kinds
    assert verdict.as_planned == as_planned
