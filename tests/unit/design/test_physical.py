"""The physical layer (gpunet.hardware.physical): breakout modes parsed as SONiC parses them, and
inventory ports placed on a model's cages, table-driven over the models.yml rows."""

from __future__ import annotations

import pytest

from gpunet.hardware import get_model
from gpunet.hardware.physical import PortRequest, parse_mode, place_ports


@pytest.mark.parametrize(
    ("mode", "children", "lanes", "speeds"),
    [
        # platform.json keys of ACS-SN5600 and Dell-Z9864f-O64 (sonic-buildimage 086b03bd)
        ("1x800G[400G,200G,100G,50G,40G,25G,10G]", 1, 8, (800, 400, 200, 100, 50, 40, 25, 10)),
        ("2x400G[200G,100G,50G,40G,25G,10G]", 2, 4, (400, 200, 100, 50, 40, 25, 10)),
        ("2x400G(8)", 2, 4, (400,)),
        ("1x100G(4)", 1, 4, (100,)),
        ("4x100G(8)", 4, 2, (100,)),
        ("8x100G", 8, 1, (100,)),
    ],
)
def test_breakout_mode_as_sonic_portconfig_reads_it(
    mode: str, children: int, lanes: int, speeds: tuple[int, ...]
) -> None:
    parsed = parse_mode(mode, 8)
    assert (parsed.children, parsed.lanes_per_child, parsed.speeds_gbps) == (children, lanes, speeds)


@pytest.mark.parametrize("mode", ["2x400", "3x400G", "1x400G(16)", "2x400G[200G"])
def test_a_mode_that_does_not_fit_the_cage_is_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="breakout mode"):
        parse_mode(mode, 8)


# (model, platform, ports as (name, speed, lanes), expected {name: (cage, child, mode)})
PLACED = [
    (
        "SN5600",
        "sonic",
        [("Ethernet0", 400, None), ("Ethernet4", 400, None)],
        {
            "Ethernet0": ("1", 0, "2x400G[200G,100G,50G,40G,25G,10G]"),
            "Ethernet4": ("1", 1, "2x400G[200G,100G,50G,40G,25G,10G]"),
        },
    ),
    (
        "SN5600",
        "sonic",
        [("Ethernet8", 400, 8)],
        {"Ethernet8": ("2", 0, "1x800G[400G,200G,100G,50G,40G,25G,10G]")},
    ),
    ("SN5600", "cumulus", [("swp3s1", 400, None)], {"swp3s1": ("3", 1, "2x400G[200G,100G,50G,40G,25G,10G]")}),
    ("SN5600", "cumulus", [("swp3s7", 100, None)], {"swp3s7": ("3", 7, "8x100G[50G,25G,10G]")}),
    ("Z9864F", "sonic", [("Ethernet16", 100, 4)], {"Ethernet16": ("3", 0, "1x100G(4)")}),
    (
        "Z9864F",
        "sonic",
        [("Ethernet16", 100, 4), ("Ethernet20", 100, 4)],
        {"Ethernet16": ("3", 0, "2x100G(8)"), "Ethernet20": ("3", 1, "2x100G(8)")},
    ),
    ("7060X6-64PE", "eos", [("Ethernet2/5", 400, None)], {"Ethernet2/5": ("2", 1, "2x400G[200G,100G]")}),
    ("7060X6-64PE", "eos", [("Ethernet2/8", 100, None)], {"Ethernet2/8": ("2", 7, "8x100G[50G,25G,10G]")}),
    ("7800R3", "eos", [("Ethernet3/7/1", 400, None)], {"Ethernet3/7/1": ("3/7", 0, "1x400G")}),
    ("N9K-C9364D-GX2A", "nxos", [("Ethernet1/5", 100, 4)], {"Ethernet1/5": ("1/5", 0, "1x100G[40G](4)")}),
    ("QFX5120-32C", "junos", [("et-0/0/3", 40, None)], {"et-0/0/3": ("0/0/3", 0, "1x100G[40G]")}),
]


@pytest.mark.parametrize(("model", "platform", "ports", "expected"), PLACED)
def test_port_placed_on_its_cage(
    model: str,
    platform: str,
    ports: list[tuple[str, int, int | None]],
    expected: dict[str, tuple[str, int, str]],
) -> None:
    requests = [PortRequest(i, name, speed, lanes) for i, (name, speed, lanes) in enumerate(ports)]
    placements, problems = place_ports(get_model(model).physical, platform, requests)  # type: ignore[arg-type]
    assert problems == []
    assert {n: (p.cage, p.child, p.mode.name) for n, p in placements.items()} == expected


# (model, platform, ports, index and field of the problem)
REFUSED = [
    ("SN5600", "cumulus", [("swp1", 400, None)], (0, "name")),  # 400G on 4 lanes is a 2x child
    ("SN5600", "sonic", [("Ethernet2", 400, None)], (0, "name")),  # not a 4-lane boundary
    ("SN5600", "sonic", [("Ethernet0", 100, None)], (0, "lanes")),  # ACS-SN5600 has no 8x mode
    ("SN5600", "sonic", [("Ethernet0", 400, None), ("Ethernet4", 200, None)], (1, "lanes")),
    ("7060X6-64PE", "eos", [("Ethernet1/1", 400, 2)], (0, "lanes")),  # 200G a lane
    ("QFX5120-32C", "junos", [("et-0/0/0", 25, None)], (0, "name")),  # a 4x25G channel: et-0/0/0:0
    ("Z9864F", "sonic", [("Ethernet0", 800, None), ("Ethernet4", 800, None)], (1, "name")),
]


@pytest.mark.parametrize(("model", "platform", "ports", "where"), REFUSED)
def test_port_that_cannot_be_built_is_refused(
    model: str, platform: str, ports: list[tuple[str, int, int | None]], where: tuple[int, str]
) -> None:
    requests = [PortRequest(i, name, speed, lanes) for i, (name, speed, lanes) in enumerate(ports)]
    _, problems = place_ports(get_model(model).physical, platform, requests)  # type: ignore[arg-type]
    assert [(p.index, p.field) for p in problems] == [where]


@pytest.mark.parametrize(
    ("model", "platform", "port", "child_names"),
    [
        # QFX5120-32C builds 25G only as channels of its 4x25G mode (channel-speed 25g)
        ("QFX5120-32C", "junos", ("et-0/0/0", 25, None), "et-0/0/0:0, et-0/0/0:1, et-0/0/0:2, et-0/0/0:3"),
        ("SN5600", "cumulus", ("swp1", 400, None), "swp1s0, swp1s1"),
    ],
)
def test_refusal_names_the_child_ports_to_write_instead(
    model: str, platform: str, port: tuple[str, int, int | None], child_names: str
) -> None:
    _, problems = place_ports(get_model(model).physical, platform, [PortRequest(0, *port)])  # type: ignore[arg-type]
    assert len(problems) == 1
    assert child_names in problems[0].expected
    assert "1 lanes" not in problems[0].message
