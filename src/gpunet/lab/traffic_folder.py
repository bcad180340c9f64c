"""LAB EQUIPMENT, a SIMULATION: the host side of the incast stage in a lab without RDMA NICs.

`gpunet lab up` keeps a folder of the lab state dir (.lab/traffic) and bind-mounts it into every
node at MOUNT. The node image's `ib_write_bw` is a stand-in (images/node/ib_write_bw): as a server
it listens on its real TCP port and registers under servers/; as a client it connects to that
port over the rail network (so the verify role's `ss` wait and the firewall's openings are real),
writes its request under requests/, waits for its outcome under outcomes/, and prints perftest's
report with the bandwidth it was given. No RDMA traffic, no buffer, no DCQCN loop exists.

Each switch simulator (`gpunet switchsim --traffic-dir`) serves the requests whose receiver NIC is
cabled to it (wiring.json, the inventory's gpunet_nics as `lab up` wrote it): once every server
registered on a receiver NIC has its client's request, or GRACE_S after the first one came, it
applies the senders' summed line rate to the receiver-edge port with the traffic model
(gpunet.lab.switchsim.traffic.apply_load, on the switch's own in-memory state, so the incast
collection reads the counters from the switch as usual), and writes back:

- each sender's outcome: the receiver port's rate shared among the senders (at most the
  sender's line rate), less the share of the backlog the switch dropped (a crude stand-in for
  the goodput RC retransmission loses);
- the NICs' hw_counters (hosts/<host>/infiniband/<nic>/ports/1/hw_counters/<name>, what the
  verify role reads with verify_incast_sysfs_root): at the receiver `np_ecn_marked_roce_packets`
  += the packets the switch marked and `np_cnp_sent` += the same (one CNP per marked packet, an
  upper bound: a real NP rate-limits CNPs per QP), at the senders `rp_cnp_handled` += those CNPs
  shared out, and at the receiver `out_of_sequence` += the packets the receiver's edge dropped.

A receiver whose leaf has no traffic model (NX-OS, EOS, Junos) gets an outcome with an error
instead, which the client prints as perftest prints a failure.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import MODELLED_PLATFORMS, PACKET_BYTES, Load, apply_load
from gpunet.model.fabric import Fabric

MOUNT = "/run/gpunet-lab-traffic"  # where every node sees the folder
WIRING = "wiring.json"
SERVERS = "servers"
REQUESTS = "requests"
OUTCOMES = "outcomes"
HOSTS = "hosts"
NIC_PORT = "1"
# The mlx5 counters the incast checks read (gpunet.validate.parsers.rdma_hw_counters), zero at lab up.
NIC_COUNTERS = (
    "np_cnp_sent",
    "np_ecn_marked_roce_packets",
    "out_of_sequence",
    "rp_cnp_handled",
    "rp_cnp_ignored",
)
# Seconds after a receiver's first request before its group runs with the senders it has.
GRACE_S = 3.0
# Seconds past its -D after which a request with no outcome is left alone (its client is gone).
STALE_S = 60.0


def sysfs_root(host: str) -> str:
    """The counter tree of `host` as the node sees it (the lab's verify_incast_sysfs_root)."""
    return f"{MOUNT}/{HOSTS}/{host}/infiniband"


def entry_name(host: str, device: str, port: int) -> str:
    """The file name of a server registration, a request and its outcome."""
    return f"{host}__{device}__{port}.json"


def wiring(fabric: Fabric) -> dict[str, dict[str, dict[str, Any]]]:
    """host -> NIC -> its address, line rate and the switch port it is cabled to."""
    return {
        host.name: {
            nic.name: {
                "ip": str(nic.ip.ip),
                "gbps": nic.speed_gbps,
                "switch": nic.switch,
                "port": nic.switch_port,
            }
            for nic in host.nics
        }
        for host in fabric.hosts.values()
    }


def prepare(folder: Path, fabric: Fabric) -> None:
    """The folder as `lab up` leaves it: the wiring, the exchange folders (writable by the nodes'
    ops user) and every NIC's counters (zero where absent; a kept lab keeps its counts)."""
    for name in (SERVERS, REQUESTS, OUTCOMES):
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name).chmod(0o1777)
    wired = wiring(fabric)
    _write(folder / WIRING, json.dumps(wired, indent=1, sort_keys=True) + "\n")
    for host, nics in wired.items():
        for nic in nics:
            for counter in NIC_COUNTERS:
                path = _counter_path(folder, host, nic, counter)
                if not path.is_file():
                    _write(path, "0\n")


@dataclass(frozen=True)
class Request:
    name: str  # its file name
    host: str
    device: str
    server: str  # the address it connected to
    port: int
    tclass: int | None
    seconds: int
    at: float
    id: str = ""  # the client's own, echoed in the outcome (a stale outcome is not its answer)

    @classmethod
    def read(cls, path: Path) -> Request:
        data = json.loads(path.read_text())
        tclass = data.get("tclass")
        return cls(
            path.name,
            str(data["host"]),
            str(data["device"]),
            str(data["server"]),
            int(data["port"]),
            None if tclass is None else int(tclass),
            int(data["seconds"]),
            float(data.get("at", path.stat().st_mtime)),
            str(data.get("id", "")),
        )


def serve(folder: Path, switch: str, state: SwitchState, now: float | None = None) -> list[str]:
    """Run every ready receiver group cabled to `switch` on its `state`; one line per group said."""
    now = time.time() if now is None else now
    wiring_file = folder / WIRING
    if not wiring_file.is_file():
        return []
    wired: dict[str, dict[str, dict[str, Any]]] = json.loads(wiring_file.read_text())
    by_ip = {nic["ip"]: (host, name) for host, nics in wired.items() for name, nic in nics.items()}
    groups: dict[tuple[str, str], list[Request]] = {}
    for path in sorted((folder / REQUESTS).glob("*.json")):
        if (folder / OUTCOMES / path.name).exists():
            continue
        try:
            request = Request.read(path)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # half-written: the next poll reads it
        if now - request.at > request.seconds + STALE_S:
            continue  # its client gave up long ago
        receiver = by_ip.get(request.server)
        if receiver is None:
            if switch == min(_switches(wired), default=switch):  # one simulator answers it
                _outcome(folder, request, error=f"no lab NIC has the address {request.server}")
            continue
        if wired[receiver[0]][receiver[1]]["switch"] == switch:
            groups.setdefault(receiver, []).append(request)
    said = []
    for receiver, requests in groups.items():
        listening = _registered(folder, *receiver)
        if not listening <= {r.port for r in requests} and now - min(r.at for r in requests) < GRACE_S:
            continue
        said.append(_run_group(folder, wired, switch, state, receiver, requests))
    return said


def _switches(wired: dict[str, dict[str, dict[str, Any]]]) -> set[str]:
    return {nic["switch"] for nics in wired.values() for nic in nics.values()}


def _registered(folder: Path, host: str, device: str) -> set[int]:
    ports = set()
    for path in (folder / SERVERS).glob(f"{host}__{device}__*.json"):
        suffix = path.stem.rsplit("__", 1)[-1]
        if suffix.isdigit():
            ports.add(int(suffix))
    return ports


def _run_group(
    folder: Path,
    wired: dict[str, dict[str, dict[str, Any]]],
    switch: str,
    state: SwitchState,
    receiver: tuple[str, str],
    requests: list[Request],
) -> str:
    host, nic = receiver
    where = f"{switch}: incast into {host}:{nic} from {', '.join(f'{r.host}:{r.device}' for r in requests)}"
    if state.platform not in MODELLED_PLATFORMS:
        error = f"SIMULATION: {switch} is {state.platform}; the lab's traffic model reads SONiC and Cumulus"
        for request in requests:
            _outcome(folder, request, error=error)
        return f"{where}: not simulated ({state.platform})"
    senders: list[tuple[Request, dict[str, Any]]] = []  # each with its NIC's wiring
    for request in requests:
        nic_wiring = wired.get(request.host, {}).get(request.device)
        if nic_wiring is None:
            _outcome(folder, request, error=f"no lab NIC {request.device} on {request.host}")
        else:
            senders.append((request, nic_wiring))
    if not senders:
        return f"{where}: no known sender"
    ingress = []
    for _, nic_wiring in senders:
        if nic_wiring["switch"] == switch:
            ingress.append(str(nic_wiring["port"]))
        else:  # behind another leaf: it enters by this leaf's uplinks (cabled to no lab host)
            ingress += [port for port, far in sorted(state.neighbours.items()) if far and far[0] not in wired]
    offered = float(sum(int(nic_wiring["gbps"]) for _, nic_wiring in senders))
    seconds = max(request.seconds for request, _ in senders)
    tclass = senders[0][0].tclass or 0
    load = Load(str(wired[host][nic]["port"]), tuple(dict.fromkeys(ingress)), tclass >> 2, offered, seconds)
    try:
        outcome = apply_load(state, load)
    except ValueError as error:
        for request, _ in senders:
            _outcome(folder, request, error=f"SIMULATION: {error}")
        return f"{where}: not simulated ({error})"
    sent = int(min(offered, outcome.rate_gbps) * 1e9 / 8 * seconds / PACKET_BYTES)
    kept = sent / (sent + outcome.dropped) if sent + outcome.dropped else 0.0
    share = outcome.rate_gbps / len(senders)
    for request, nic_wiring in senders:
        _outcome(folder, request, gbps=round(min(float(nic_wiring["gbps"]), share) * kept, 2))
    cnps = outcome.marked  # one CNP per marked packet (an upper bound: a real NP rate-limits them)
    _add(folder, host, nic, "np_ecn_marked_roce_packets", outcome.marked)
    _add(folder, host, nic, "np_cnp_sent", cnps)
    _add(folder, host, nic, "out_of_sequence", outcome.dropped)
    for index, (request, _) in enumerate(senders):
        handled = cnps // len(senders) + (1 if index < cnps % len(senders) else 0)
        _add(folder, request.host, request.device, "rp_cnp_handled", handled)
    return (
        f"{where}: SIMULATED {offered:g} Gb/s into {outcome.rate_gbps:g} Gb/s on {load.egress},"
        f" {outcome.marked} ECN-marked, pauses from {', '.join(outcome.paused_ports) or 'no port'},"
        f" {outcome.dropped} dropped"
    )


def _outcome(folder: Path, request: Request, gbps: float = 0.0, error: str = "") -> None:
    text = json.dumps({"id": request.id, "gbps": gbps, "seconds": request.seconds, "error": error}) + "\n"
    _write(folder / OUTCOMES / request.name, text)


def _counter_path(folder: Path, host: str, nic: str, counter: str) -> Path:
    return folder / HOSTS / host / "infiniband" / nic / "ports" / NIC_PORT / "hw_counters" / counter


def _add(folder: Path, host: str, nic: str, counter: str, amount: int) -> None:
    path = _counter_path(folder, host, nic, counter)
    value = int(path.read_text().strip() or 0) if path.is_file() else 0
    _write(path, f"{value + amount}\n")


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a node reading the file never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    temporary.chmod(0o644)
    os.replace(temporary, path)
