"""Cabling against the plan: the inventory's intended links judged from LLDP neighbour captures.

Pure: a plan and parsed neighbour captures in, findings out (`gpunet cabling` and the `cabling`
check of gpunet-validate read the files). The plan is the model's Fabric, or the artifacts
manifest written from it (the same names: each GPU NIC's leaf and port, `switch` and
`switch_port`, its netdev the interface lldpd names on the host; each switch port's `peer` for the
switch-to-switch links; the inventory check has already proven both ends of every cable agree).
A manifest limited to some hosts (--limit) plans only their links: a leaf port cabled to a host
outside it is not judged.

Each intended link is judged from both ends: what the host sees on the NIC's netdev, what each
switch sees on its port. A device with no capture is not an end that can be judged: its links are
judged from the other end and say so. Findings, by class:
- `missing`: no neighbour on either captured end;
- `swapped`: two links each seeing the other's far end; the fix swaps the two cables;
- `nic_wrong_rail` / `nic_wrong_leaf`: a host NIC sees another switch than its leaf (one carrying
  other rails / the same rail);
- `wrong_neighbour`: an end sees another device or port than the plan's;
- `extra_neighbour`: a neighbour on a port the plan leaves empty (or a second one beside the
  right one). Neighbours on host interfaces that are no fabric NIC, and on switch ports outside
  `gpunet_ports` from devices outside the inventory (management networks), are not judged.

Neighbours are named as lldpd prints them: the chassis SysName (the inventory name, or that name
as the first label of an FQDN, case-insensitive), and the port id (when it names an interface)
or the port description, matched against the inventory's port names, NIC netdevs and RDMA names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpunet.model.fabric import Fabric
from gpunet.validate.manifest import Manifest

# The plan: the inventory's Fabric, or the manifest of an artifacts folder (the same attribute names).
Plan = Fabric | Manifest

# lldpd port id subtypes (lldpctl `port.id.type`) that carry an interface name.
_NAMING_PORT_IDS = ("ifname", "local", "ifalias")


@dataclass(frozen=True)
class End:
    """One end of a cable: a switch port, or a GPU host NIC (with its netdev)."""

    device: str
    port: str  # switch: the port; host: the RDMA NIC name
    kind: str  # "host", "switch" or "unknown" (a neighbour outside the inventory)
    netdev: str = ""
    # False: an inventory switch, but a locally assigned port id the inventory does not hold (SONiC
    # advertises its port alias as port id): the end says which device, not which port.
    named: bool = field(default=True, compare=False)

    def __str__(self) -> str:
        if self.kind == "host":
            return f"{self.device} {self.port} ({self.netdev})"
        return f"{self.device} {self.port}"

    def as_dict(self) -> dict[str, str]:
        if self.kind == "host":
            return {"host": self.device, "nic": self.port, "netdev": self.netdev}
        if self.kind == "switch":
            return {"switch": self.device, "port": self.port}
        return {"device": self.device, "port": self.port}


@dataclass(frozen=True)
class Link:
    a: End  # the host NIC, or the switch first by name
    b: End

    def __str__(self) -> str:
        return f"{self.a} <-> {self.b}"


@dataclass
class Finding:
    kind: str  # missing, swapped, nic_wrong_rail, nic_wrong_leaf, wrong_neighbour, extra_neighbour
    ends: list[End]
    message: str
    fix: str
    seen_from: str  # "both ends", or the one end judged ("leaf01 only: gpu01 was not captured")

    def as_dict(self) -> dict[str, Any]:
        return {
            "class": self.kind,
            "ends": [end.as_dict() for end in self.ends],
            "message": self.message,
            "fix": self.fix,
            "seen_from": self.seen_from,
        }


@dataclass
class Verdict:
    links: list[Link]
    findings: list[Finding] = field(default_factory=list)
    as_planned: int = 0
    # Of as_planned: the links judged from one end (the other not captured, or seeing nothing).
    one_end: list[tuple[Link, str]] = field(default_factory=list)
    # Of one_end: the ends that were captured but saw no neighbour at all (a host whose NIC
    # firmware's LLDP agent takes the frames looks like this; the cabling check says so).
    silent: list[tuple[Link, End]] = field(default_factory=list)
    not_checked: list[tuple[Link, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "links": len(self.links),
            "as_planned": self.as_planned,
            "as_planned_from_one_end": [{"link": str(link), "reason": why} for link, why in self.one_end],
            "findings": [finding.as_dict() for finding in self.findings],
            "not_checked": [{"link": str(link), "reason": reason} for link, reason in self.not_checked],
        }


def intended_links(fabric: Plan) -> list[Link]:
    """Every cable of the plan once: each NIC to its leaf port, each switch-to-switch port pair."""
    links = []
    for host in fabric.hosts.values():
        for nic in host.nics:
            links.append(
                Link(End(host.name, nic.name, "host", nic.netdev), End(nic.switch, nic.switch_port, "switch"))
            )
    for switch in fabric.switches.values():
        for port in switch.ports:
            peer = port.peer
            if peer is None or peer.kind != "switch" or (peer.device, peer.port) < (switch.name, port.name):
                continue
            links.append(Link(End(switch.name, port.name, "switch"), End(peer.device, peer.port, "switch")))
    return links


class _Names:
    """Resolves what lldpd printed to the inventory's ends."""

    def __init__(self, fabric: Plan) -> None:
        self.fabric = fabric
        self.devices = {name.lower(): name for name in (*fabric.hosts, *fabric.switches)}
        self.nic_by_netdev = {
            (host.name, nic.netdev): nic.name for host in fabric.hosts.values() for nic in host.nics
        }

    def device(self, sysname: str | None) -> str | None:
        if not sysname:
            return None
        lowered = sysname.lower()
        return self.devices.get(lowered) or self.devices.get(lowered.split(".")[0])

    def far_end(self, neighbour: dict[str, Any]) -> End:
        """The End a neighbour entry names: an inventory end where the names resolve."""
        sysname = neighbour["chassis"]["name"]
        device = self.device(sysname)
        port_id = neighbour["port"]["id"]
        candidates = [port_id["value"]] if port_id["type"] in _NAMING_PORT_IDS else []
        if neighbour["port"]["descr"]:
            candidates.append(neighbour["port"]["descr"])
        shown = candidates[0] if candidates else port_id["value"]
        if device in self.fabric.hosts:
            host = self.fabric.hosts[device]
            for candidate in candidates:
                for nic in host.nics:
                    if candidate in (nic.netdev, nic.name):
                        return End(device, nic.name, "host", nic.netdev)
            return End(device, shown, "host", shown)
        if device in self.fabric.switches:
            switch = self.fabric.switches[device]
            for candidate in candidates:
                if switch.port(candidate) is not None:
                    return End(device, candidate, "switch")
            # A locally assigned port id outside the inventory is the OS's own label: SONiC's lldpmgrd
            # runs `lldpcli configure ports <port> lldp portidsubtype local <alias>` (sonic-net/
            # sonic-buildimage dockers/docker-lldp/lldpmgrd at 676ac5e,
            # generate_pending_lldp_config_cmd_for_port): which device, not which port. An
            # interface name outside the inventory is another port.
            return End(device, shown, "switch", named=port_id["type"] != "local")
        return End(sysname or neighbour["chassis"]["id"]["value"], shown, "unknown")


def judge_cabling(fabric: Plan, captures: dict[str, dict[str, Any] | None]) -> Verdict:
    """Judge every intended link. `captures`: device name -> its parsed `lldpctl-json` capture,
    or None where the device's capture is missing or unreadable. An end without a capture is
    judged by what the captured ends see of it (a switch port that sees the NIC), or not at all."""
    names = _Names(fabric)
    links = intended_links(fabric)
    verdict = Verdict(links)
    seen = _observations(fabric, names, captures)
    planned = {end: link for link in links for end in (link.a, link.b)}
    seen_by: dict[End, list[End]] = {}
    for (device, local), others in seen.items():
        for other in others:
            if captures.get(other.device) is None:
                seen_by.setdefault(other, []).append(_end_of(fabric, device, local))

    def view(end: End) -> list[End] | None:
        if captures.get(end.device) is None:
            return seen_by.get(end)  # inferred from the far side, or None: not judged
        return seen.get(_local_key(end), [])

    wrong: dict[Link, tuple[list[End] | None, list[End] | None]] = {}
    for link in links:
        at_a, at_b = view(link.a), view(link.b)
        if at_a is None and at_b is None and not _captured(captures, link):
            verdict.not_checked.append((link, f"neither {link.a.device} nor {link.b.device} was captured"))
            continue
        states = {_state(at_a, link.b), _state(at_b, link.a)}
        if "wrong" not in states and "right" not in states and "unnamed" in states:
            verdict.not_checked.append((link, _one_end_reason(link, at_a, at_b, captures, "not judged")))
            continue
        if "wrong" not in states and "right" in states:
            verdict.as_planned += 1
            if states != {"right"} or not all(
                captures.get(end.device) is not None for end in (link.a, link.b)
            ):
                verdict.one_end.append((link, _one_end_reason(link, at_a, at_b, captures)))
                verdict.silent.extend(
                    (link, end)
                    for end, at in ((link.a, at_a), (link.b, at_b))
                    if at == [] and captures.get(end.device) is not None
                )
            for end, at, far in ((link.a, at_a, link.b), (link.b, at_b, link.a)):
                for other in at or []:
                    if other != far and (other.named or other.device != far.device):
                        verdict.findings.append(_extra(end, other, beside=far))
            continue
        wrong[link] = (at_a, at_b)

    swapped = _swaps(wrong, planned, captures, verdict)
    for link, (at_a, at_b) in wrong.items():
        if link not in swapped:
            verdict.findings.append(_wrong_link(fabric, link, at_a, at_b, captures))

    explained = {
        (end, other)
        for link, (at_a, at_b) in wrong.items()
        for end, at in ((link.a, at_a), (link.b, at_b))
        for other in (at or [])
    }
    for (device, local), others in seen.items():
        end = _end_of(fabric, device, local)
        if end in planned:
            continue
        for other in others:
            if (other, end) in explained:
                continue  # a miswire already named with its planned link
            switch = fabric.switches.get(device)
            port = switch.port(local) if switch is not None else None
            peer = port.peer if port is not None else None
            if peer is not None and peer.kind == "host" and peer.device not in fabric.hosts:
                continue  # a host outside a limited manifest: its link is not planned here
            if port is not None or other.kind != "unknown":
                verdict.findings.append(_extra(end, other))
    return verdict


def _captured(captures: dict[str, dict[str, Any] | None], link: Link) -> bool:
    return any(captures.get(end.device) is not None for end in (link.a, link.b))


def _state(at: list[End] | None, far: End) -> str:
    if at is None:
        return "not captured"
    if not at:
        return "empty"
    if far in at:
        return "right"
    return "unnamed" if all(not o.named and o.device == far.device for o in at) else "wrong"


def _one_end_reason(
    link: Link,
    at_a: list[End] | None,
    at_b: list[End] | None,
    captures: dict[str, dict[str, Any] | None],
    judged: str = "judged from one end",
) -> str:
    reasons = []
    for near, at, far in ((link.a, at_a, link.b), (link.b, at_b, link.a)):
        if at and far not in at:
            reasons.extend(
                f"{near} sees {o.device} port {o.port!r}, a name the inventory does not hold for {o.device}"
                for o in at
                if not o.named
            )
        elif captures.get(near.device) is None:
            reasons.append(f"{near.device} was not captured")
        elif not at:
            reasons.append(f"{near} sees no neighbour (is LLDP sent and received at both ends?)")
    return f"{judged}: {'; '.join(reasons)}"


def _local_key(end: End) -> tuple[str, str]:
    return (end.device, end.netdev if end.kind == "host" else end.port)


def _end_of(fabric: Plan, device: str, local: str) -> End:
    host = fabric.hosts.get(device)
    if host is not None:
        nic = next((n for n in host.nics if n.netdev == local), None)
        return End(device, nic.name if nic else local, "host", local)
    return End(device, local, "switch")


def _observations(
    fabric: Plan, names: _Names, captures: dict[str, dict[str, Any] | None]
) -> dict[tuple[str, str], list[End]]:
    """(device, local interface) -> the far ends its neighbours name. A host's interfaces that are
    no fabric NIC (management, loopback) are left out."""
    seen: dict[tuple[str, str], list[End]] = {}
    for device, parsed in captures.items():
        if parsed is None:
            continue
        host = fabric.hosts.get(device)
        for neighbour in parsed["neighbours"]:
            local = neighbour["interface"]
            if host is not None and (device, local) not in names.nic_by_netdev:
                continue
            far = names.far_end(neighbour)
            others = seen.setdefault((device, local), [])
            if far not in others:
                others.append(far)
    return seen


def _swaps(
    wrong: dict[Link, tuple[list[End] | None, list[End] | None]],
    planned: dict[End, Link],
    captures: dict[str, dict[str, Any] | None],
    verdict: Verdict,
) -> set[Link]:
    """Pairs of wrong links whose ends each see the other link's far end: two cables swapped."""
    sees: dict[Link, set[Link]] = {}
    for link, (at_a, at_b) in wrong.items():
        targets = set()
        for near, at in ((link.a, at_a), (link.b, at_b)):
            for other in at or []:
                other_link = planned.get(other)
                # a sees the other link's b (or b its a): the far ends are exchanged
                if (
                    other_link is not None
                    and other_link is not link
                    and other_link in wrong
                    and other == (other_link.b if near is link.a else other_link.a)
                ):
                    targets.add(other_link)
        sees[link] = targets
    done: set[Link] = set()
    for link in wrong:
        if link in done:
            continue
        for other in sorted(sees[link], key=str):
            if other not in done and link in sees.get(other, ()) and other is not link:
                done |= {link, other}
                verdict.findings.append(_swap_finding(link, other, captures))
                break
    return done


def _swap_finding(first: Link, second: Link, captures: dict[str, dict[str, Any] | None]) -> Finding:
    # Swap at the side whose two ends share a device (the same leaf, or the same host), else at b.
    if first.b.device == second.b.device or first.a.device != second.a.device:
        here, there = (first.b, second.b), (first.a, second.a)
    else:
        here, there = (first.a, second.a), (first.b, second.b)
    seen_from = _seen_from([first, second], captures)
    return Finding(
        "swapped",
        [first.a, first.b, second.a, second.b],
        f"two cables swapped: {first.a} reaches {second.b} and {second.a} reaches {first.b}; "
        f"the plan is {first} and {second}",
        f"swap the cables in {here[0]} and {here[1]} (or, at the other end, in {there[0]} and {there[1]})",
        seen_from,
    )


def _seen_from(links: list[Link], captures: dict[str, dict[str, Any] | None]) -> str:
    missing = sorted(
        {end.device for link in links for end in (link.a, link.b) if captures.get(end.device) is None}
    )
    if not missing:
        return "both ends"
    return f"one end only: {', '.join(missing)} not captured, judged from the other end"


def _wrong_link(
    fabric: Plan,
    link: Link,
    at_a: list[End] | None,
    at_b: list[End] | None,
    captures: dict[str, dict[str, Any] | None],
) -> Finding:
    seen_from = _seen_from([link], captures)
    if not at_a and not at_b:
        ends = " and ".join(str(end) for end, at in ((link.a, at_a), (link.b, at_b)) if at is not None)
        return Finding(
            "missing",
            [link.a, link.b],
            f"no LLDP neighbour on {ends}: the planned link {link} is not seen",
            f"cable {link.a} to {link.b} (check the cable or optic is seated and both ports are up)",
            seen_from,
        )
    parts = []
    for near, at, far in ((link.a, at_a, link.b), (link.b, at_b, link.a)):
        if at is None:
            continue
        shown = ", ".join(str(other) for other in at if other != far) or "nothing"
        parts.append(f"{near} sees {shown} (plan: {far})")
    message = "; ".join(parts)
    kind = "wrong_neighbour"
    if link.a.kind == "host" and at_a:
        leaf = fabric.switches.get(link.b.device)
        elsewhere = [other for other in at_a if other.kind == "switch" and other.device != link.b.device]
        if elsewhere and leaf is not None:
            kind, why = _wrong_leaf(fabric, link.a, elsewhere[0])
            message = f"{why}; {message}"
            return Finding(
                kind,
                [link.a, link.b, elsewhere[0]],
                message,
                f"move the cable of {link.a} from {elsewhere[0]} to {link.b}",
                seen_from,
            )
    found = next(other for at in (at_a, at_b) for other in (at or []) if other not in (link.a, link.b))
    near = link.a if at_a and found in at_a else link.b
    far = link.b if near is link.a else link.a
    return Finding(
        kind,
        [link.a, link.b, found],
        message,
        f"move the far end of the cable in {near} from {found} to {far}",
        seen_from,
    )


def _wrong_leaf(fabric: Plan, nic_end: End, seen: End) -> tuple[str, str]:
    host = fabric.hosts[nic_end.device]
    rail = next(n.rail for n in host.nics if n.name == nic_end.port)
    rails = sorted({n.rail for h in fabric.hosts.values() for n in h.nics if n.switch == seen.device})
    if rails and rail not in rails:
        carried = ", ".join(str(r) for r in rails)
        return "nic_wrong_rail", f"rail {rail} NIC {nic_end} is on {seen.device}, a leaf of rail {carried}"
    return "nic_wrong_leaf", f"{nic_end} is on {seen.device}, not its leaf"


def _extra(end: End, other: End, beside: End | None = None) -> Finding:
    where = f"beside the planned {beside}" if beside else "where the plan has no cable"
    return Finding(
        "extra_neighbour",
        [end, other],
        f"{end} sees {other} {where}",
        f"remove the cable between {end} and {other}, or add it to the inventory",
        f"{end.device}'s capture",
    )
