"""The physical layer of a switch model: SerDes lanes per cage, the breakout modes each OS names, and
where an inventory port (name, speed, lanes) sits on a cage.

A cage (an OSFP/QSFP-DD cage of `cage_lanes` SerDes lanes) runs in one breakout mode at a time: N child
ports of `lanes_per_child` lanes each. Modes are written in SONiC's breakout notation
`<N>x<speed>G[<other speeds>](<lanes used>)` for every OS (sonic-net/sonic-buildimage
src/sonic-config-engine/portconfig.py at 086b03bd, BRKOUT_PATTERN and BreakoutCfg.get_config: a mode
without `(<lanes>)` uses all the cage's lanes; child k starts at lane k * lanes_used / N). SONiC's modes
are its platform.json keys verbatim; other OSes' are their documented options in the same notation.

Each OS names a cage's child ports its own way (`locate` below); the rule and its source sit with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# sonic-config-engine portconfig.py BRKOUT_PATTERN (same file and commit as above).
BREAKOUT_PATTERN = re.compile(r"(\d{1,6})x(\d{1,6})G(\[([\dG,]*)\])?(\((\d{1,6})\))?")
# Lane rates a SerDes runs (Gb/s): NRZ 10/25, PAM4 50/100.
LANE_RATES_GBPS = (100, 50, 25, 10)


@dataclass(frozen=True)
class BreakoutMode:
    name: str  # as the OS names it (SONiC: the platform.json key)
    children: int
    lanes_per_child: int
    speeds_gbps: tuple[int, ...]  # the default speed first

    @property
    def lanes_used(self) -> int:
        return self.children * self.lanes_per_child


def parse_mode(name: str, cage_lanes: int) -> BreakoutMode:
    match = BREAKOUT_PATTERN.fullmatch(name)
    if match is None:
        raise ValueError(f"breakout mode {name!r} is not <N>x<speed>G[<speeds>](<lanes>)")
    children, default, _, others, _, lanes = match.groups()
    used = int(lanes) if lanes else cage_lanes
    speeds = [int(default)] + [int(s.rstrip("G")) for s in (others or "").split(",") if s]
    if used % int(children) or used > cage_lanes:
        raise ValueError(f"breakout mode {name!r} does not fit a {cage_lanes}-lane cage")
    return BreakoutMode(name, int(children), used // int(children), tuple(speeds))


@dataclass(frozen=True)
class PlatformPorts:
    """How one OS runs this model's cages: its breakout modes and where they come from."""

    modes: tuple[BreakoutMode, ...]
    source: str


@dataclass(frozen=True)
class Physical:
    serdes_gbps: int  # the fastest lane rate of the ASIC's SerDes
    cage_lanes: int
    cage: str  # the cage type, e.g. OSFP800
    platforms: dict[str, PlatformPorts]
    sources: tuple[str, ...]
    assumed: tuple[str, ...] = ()

    def default_lanes(self, speed_gbps: int) -> int | None:
        """The fewest lanes that carry `speed_gbps` at a rate this SerDes runs (400G on 100G SerDes:
        4 lanes, as a ConnectX-7 400G OSFP runs it); None when no lane count fits the cage."""
        for rate in LANE_RATES_GBPS:
            if rate <= self.serdes_gbps and speed_gbps % rate == 0 and speed_gbps // rate <= self.cage_lanes:
                return speed_gbps // rate
        return None


@dataclass(frozen=True)
class Location:
    """Where a port name sits: its cage, and its position there as a lane offset (first lane, 0-based)
    or a child index; `split` says whether the name is a child of a broken-out cage."""

    cage: str
    position: int
    unit: str  # "lane" or "child"
    split: bool | None  # None: the name does not tell


def _sonic(name: str, cage_lanes: int) -> Location | None:
    # Ethernet<n>: a cage's base name steps by its lane count; a child adds its first lane
    # (portconfig.py get_config: PORT_STR + str(base_id + lane_id)).
    match = re.fullmatch(r"Ethernet(\d+)", name)
    if match is None:
        return None
    number = int(match.group(1))
    return Location(str(number // cage_lanes + 1), number % cage_lanes, "lane", None)


def _cumulus(name: str, cage_lanes: int) -> Location | None:
    # swp<n> unsplit, swp<n>s<k> the k-th child of a broken-out port (NVIDIA Cumulus Linux user
    # guide, Switch Port Attributes, "Breakout Ports": swp1s0..swp1s3 for `link breakout 4x`).
    match = re.fullmatch(r"swp(\d+)(?:s(\d+))?", name)
    if match is None:
        return None
    child = match.group(2)
    return Location(match.group(1), int(child or 0), "child", child is not None)


def _eos(name: str, cage_lanes: int) -> Location | None:
    # Ethernet<port>/<lane> on fixed systems, Ethernet<slot>/<port>/<lane> on modular ones: the last
    # number is the interface's first lane (Arista EOS User Manual, Ethernet Ports, "Port groups and
    # lanes": a 400g-4 interface on an 800G port is Ethernet<port>/1 or /5).
    match = re.fullmatch(r"Ethernet(\d+(?:/\d+){0,2})", name)
    if match is None:
        return None
    numbers = match.group(1).split("/")
    if len(numbers) == 1:
        return Location(numbers[0], 0, "lane", None)
    return Location("/".join(numbers[:-1]), int(numbers[-1]) - 1, "lane", None)


def _nxos(name: str, cage_lanes: int) -> Location | None:
    # Ethernet<slot>/<port> unsplit, Ethernet<slot>/<port>/<n> the n-th breakout interface (Cisco Nexus
    # 9000 Interfaces Configuration Guide, "Configuring Breakout": Ethernet1/49/1-4).
    match = re.fullmatch(r"Ethernet(\d+/\d+)(?:/(\d+))?", name)
    if match is None:
        return None
    child = match.group(2)
    return Location(match.group(1), int(child or 1) - 1, "child", child is not None)


def _junos(name: str, cage_lanes: int) -> Location | None:
    # <type>-<fpc>/<pic>/<port> unsplit, <type>-<fpc>/<pic>/<port>:<channel> a channel of a channelized
    # port, channel 0 first (Juniper, Port Speed Overview, "Interface Naming Conventions":
    # https://www.juniper.net/documentation/us/en/software/junos/interfaces-ethernet-switches/topics/topic-map/switches-interface-port.html;
    # a QFX5240 in 2 x 400G lists et-0/0/0:0 and et-0/0/0:1).
    match = JUNOS_NAME.fullmatch(name)
    if match is None:
        return None
    channel = match.group("channel")
    return Location(match.group("cage"), int(channel or 0), "child", channel is not None)


# Junos names a port by its media type: ge 1GbE, xe 10GbE, et 25GbE and faster; a 40G port channelized to
# 10G shows as xe-<fpc>/<pic>/<port>:<channel> (same Juniper page, "Interface Naming Conventions").
JUNOS_NAME = re.compile(r"(?P<type>et|xe|ge)-(?P<cage>\d+/\d+/\d+)(?::(?P<channel>\d+))?")


def junos_media_type(speed_gbps: int) -> str:
    return "ge" if speed_gbps < 10 else "xe" if speed_gbps == 10 else "et"


def _junos_name_problem(port: PortRequest) -> PlacementProblem | None:
    match = JUNOS_NAME.fullmatch(port.name)
    want = junos_media_type(port.speed_gbps)
    if match is None or match.group("type") == want:
        return None
    return PlacementProblem(
        port.index,
        "name",
        f"is not how Junos names a {port.speed_gbps}G port (media type {want}-)",
        port.name,
        f"{want}-{port.name.split('-', 1)[1]}",
    )


LOCATE: dict[str, Callable[[str, int], Location | None]] = {
    "sonic": _sonic,
    "cumulus": _cumulus,
    "eos": _eos,
    "nxos": _nxos,
    "junos": _junos,
}


def child_names(platform: str, cage: str, mode: BreakoutMode, cage_lanes: int, speed_gbps: int) -> list[str]:
    """The names the OS gives the child ports of `cage` in `mode` (the rules `locate` reads)."""
    k = range(mode.children)
    split = mode.children > 1
    if platform == "sonic":
        base = (int(cage) - 1) * cage_lanes
        return [f"Ethernet{base + i * mode.lanes_per_child}" for i in k]
    if platform == "cumulus":
        return [f"swp{cage}s{i}" for i in k] if split else [f"swp{cage}"]
    if platform == "eos":
        return [f"Ethernet{cage}/{i * mode.lanes_per_child + 1}" for i in k]
    if platform == "nxos":
        return [f"Ethernet{cage}/{i + 1}" for i in k] if split else [f"Ethernet{cage}"]
    prefix = f"{junos_media_type(speed_gbps)}-{cage}"
    return [f"{prefix}:{i}" for i in k] if split else [prefix]


@dataclass(frozen=True)
class PortRequest:
    """An inventory port as the physical layer sees it."""

    index: int
    name: str
    speed_gbps: int
    lanes: int | None  # None: the default for the speed


@dataclass(frozen=True)
class Placement:
    name: str
    cage: str
    child: int
    lanes: int
    mode: BreakoutMode


@dataclass(frozen=True)
class PlacementProblem:
    index: int
    field: str  # the inventory field at fault: name, speed_gbps or lanes
    message: str
    got: object
    expected: str


def place_ports(
    physical: Physical, platform: str, ports: Sequence[PortRequest]
) -> tuple[dict[str, Placement], list[PlacementProblem]]:
    """Each port's cage, child and the cage's breakout mode; the ports that cannot be built, with why."""
    own = physical.platforms.get(platform)
    locate = LOCATE[platform]
    problems: list[PlacementProblem] = []
    by_cage: dict[str, list[tuple[PortRequest, Location, int]]] = {}
    if own is None:
        return {}, [PlacementProblem(0, "name", f"has no {platform} breakout modes", platform, "")]
    for port in ports:
        location = locate(port.name, physical.cage_lanes)
        if location is None:
            continue  # the port-name check reports it
        named = _junos_name_problem(port) if platform == "junos" else None
        if named is not None:
            problems.append(named)
            continue
        lanes = port.lanes if port.lanes is not None else physical.default_lanes(port.speed_gbps)
        if lanes is None or port.speed_gbps > lanes * physical.serdes_gbps:
            problems.append(
                PlacementProblem(
                    port.index,
                    "lanes" if port.lanes is not None else "speed_gbps",
                    f"cannot run on {physical.serdes_gbps}G SerDes lanes of a {physical.cage_lanes}-lane "
                    f"{physical.cage} cage",
                    port.lanes if port.lanes is not None else port.speed_gbps,
                    f"at most {physical.serdes_gbps}G per lane, at most {physical.cage_lanes} lanes",
                )
            )
            continue
        by_cage.setdefault(location.cage, []).append((port, location, lanes))
    placements: dict[str, Placement] = {}
    for cage, members in by_cage.items():
        mode, problem = _cage_mode(own.modes, members, platform, cage, physical.cage_lanes)
        if mode is None:
            problems.append(problem)  # type: ignore[arg-type]
            continue
        for port, location, lanes in members:
            child = location.position // lanes if location.unit == "lane" else location.position
            placements[port.name] = Placement(port.name, cage, child, lanes, mode)
    return placements, problems


def _cage_mode(
    modes: Sequence[BreakoutMode],
    members: list[tuple[PortRequest, Location, int]],
    platform: str,
    cage: str,
    cage_lanes: int,
) -> tuple[BreakoutMode | None, PlacementProblem | None]:
    """The mode with the fewest children that every port of one cage fits in."""
    first, _, lanes = members[0]
    for port, _, other in members[1:]:
        if other != lanes:
            return None, PlacementProblem(
                port.index,
                "lanes",
                f"shares a cage with {first.name} ({lanes} lanes); one cage runs one breakout mode",
                other,
                f"{lanes} lanes, or another cage",
            )
    candidates = [mode for mode in modes if mode.lanes_per_child == lanes]
    if not candidates:
        offered = ", ".join(sorted({f"{m.lanes_per_child}" for m in modes}, key=int))
        return None, PlacementProblem(
            first.index, "lanes", "is a lane count no breakout mode of this cage has", lanes, offered
        )
    for mode in sorted(candidates, key=lambda m: m.children):
        if all(_fits(mode, port, location) for port, location, _ in members):
            return mode, None
    port = next(p for p, loc, _ in members if not _fits(candidates[-1], p, loc))
    # The names each fitting mode gives this cage's children, so the error says what to write instead.
    names = "; ".join(
        f"{m.name} (speeds {', '.join(f'{s}G' for s in m.speeds_gbps)}): "
        + ", ".join(child_names(platform, cage, m, cage_lanes, port.speed_gbps))
        for m in candidates
        if port.speed_gbps in m.speeds_gbps
    )
    return None, PlacementProblem(
        port.index,
        "name",
        f"cannot be a {port.speed_gbps}G port of {lanes} lane{'' if lanes == 1 else 's'} "
        "at this position of its cage",
        port.name,
        f"a child port of one of the cage's {lanes}-lane modes at {port.speed_gbps}G: {names or 'none'}",
    )


def _fits(mode: BreakoutMode, port: PortRequest, location: Location) -> bool:
    if port.speed_gbps not in mode.speeds_gbps:
        return False
    if location.split is not None and location.split != (mode.children > 1):
        return False
    if location.unit == "lane":
        return location.position % mode.lanes_per_child == 0 and location.position < mode.lanes_used
    return location.position < mode.children
