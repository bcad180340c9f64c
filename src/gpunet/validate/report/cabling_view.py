"""The HTML report's cabling view: the `cabling` check's links counted per rail, and each problem
listed under the switch port it touches (with the rail its planned cable carries), so that the
person at the rack reads, leaf by leaf, which ports to re-cable and how."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from gpunet.validate.manifest import Manifest
from gpunet.validate.results import Result, Status

CHECK = "cabling"
_PROBLEMS = (Status.FAIL, Status.ERROR)
SWITCH_LINKS = "switch to switch"


def cabling_section(results: list[Result], manifest: Manifest, escape: Callable[[str], str]) -> str:
    cabling = [r for r in results if r.check == CHECK]
    if not cabling:
        return ""
    per_rail: dict[str, dict[str, int]] = defaultdict(lambda: {"pass": 0, "problem": 0})
    per_port: dict[str, list[tuple[str, str, Result]]] = defaultdict(list)
    for result in cabling:
        ends = [end.partition(":")[::2] for end in result.target.split("<->")]
        rails = sorted({rail for device, port in ends if (rail := _rail(manifest, device, port))})
        problem = result.status in _PROBLEMS
        for rail in rails or ([SWITCH_LINKS] if len(ends) > 1 else []):
            per_rail[rail]["problem" if problem else "pass"] += result.status != Status.NOT_CHECKED
        if not problem:
            continue
        for device, port in ends:
            if device in manifest.switches and port:
                per_port[device].append((port, _rail(manifest, device, port) or SWITCH_LINKS, result))
    parts = [f"<h2>Cabling ({sum(r.status in _PROBLEMS for r in cabling)} problems)</h2>"]
    parts.append('<table class="counts"><tr><th>rail</th><th>links as planned</th><th>problems</th></tr>')
    for rail in sorted(per_rail, key=_rail_order):
        tally = per_rail[rail]
        parts.append(
            f'<tr><td>{escape(rail)}</td><td class="n">{tally["pass"]}</td>'
            f'<td class="n">{tally["problem"]}</td></tr>'
        )
    parts.append("</table>")
    if not per_port:
        parts.append("<p>Every judged link is cabled as planned.</p>")
        return "\n".join(parts)
    parts.append("<table><tr><th>switch</th><th>port</th><th>rail</th><th>finding</th><th>fix</th></tr>")
    for switch in sorted(per_port):
        for port, rail, result in sorted(per_port[switch], key=lambda item: item[:2]):
            parts.append(
                f"<tr><td>{escape(switch)}</td><td>{escape(port)}</td><td>{escape(rail)}</td>"
                f'<td class="{result.status}">{escape(result.actual)}</td>'
                f"<td>{escape(result.message)}</td></tr>"
            )
    parts.append("</table>")
    return "\n".join(parts)


def _rail(manifest: Manifest, device: str, port: str) -> str:
    """'rail N' for a host NIC end, or for a switch port whose planned cable goes to one."""
    host = manifest.hosts.get(device)
    if host is not None:
        nic = host.nic(port)
        return f"rail {nic.rail}" if nic else ""
    switch = manifest.switches.get(device)
    planned = switch.port(port) if switch is not None else None
    if planned is None or planned.peer is None or planned.peer.kind != "host":
        return ""
    peer_host = manifest.hosts.get(planned.peer.device)
    nic = peer_host.nic(planned.peer.port) if peer_host else None
    return f"rail {nic.rail}" if nic else ""


def _rail_order(rail: str) -> tuple[int, int]:
    number = rail.removeprefix("rail ")
    return (0, int(number)) if number.isdigit() else (1, 0)
