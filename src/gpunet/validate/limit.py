"""`--limit`: judge these GPU hosts, and every pair, NCCL run and iperf3 pair that touches them.

A host's pair checks need the host at the other end: with an artifacts folder that holds those
captures (a full collection judged with `--from-artifacts --limit`), the partners stay in the
manifest as ends of the limited hosts' pairs, and only the limited hosts' own checks are reported
(a partner's host checks are not what was asked for). Switches stay: their counters frame
everyone's traffic.

Collecting with `-i INVENTORY --limit` runs only the limited hosts, so a pair whose other end is
outside the limit cannot run: each one is written to `limit.json` in the artifacts folder before
collecting, and judging lists it as `not checked` with the partner named. A limited run never
drops a check silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpunet.validate.coverage import REACHABLE_CHECK, devices_of
from gpunet.validate.manifest import Manifest, ManifestError
from gpunet.validate.results import Result, Status

LEFT_OUT_FILE = "limit.json"


@dataclass(frozen=True)
class Limit:
    names: frozenset[str]
    manifest: Manifest  # the limited hosts and the partners their pairs and runs need
    partners: frozenset[str]  # hosts kept only as the other end of a limited host's pair or run


def apply_limit(manifest: Manifest, names: set[str]) -> Limit:
    unknown = sorted(names - set(manifest.hosts))
    if unknown:
        raise ManifestError(
            f"--limit names hosts that are not GPU hosts of this artifacts folder: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(manifest.hosts))})"
        )
    # Rounds keep their places: captures are filed by round number.
    rounds = [
        [pair for pair in round_ if pair["client"] in names or pair["server"] in names]
        for round_ in manifest.pair_rounds
    ]
    runs = {name: run for name, run in manifest.nccl_runs.items() if names & set(run.hosts)}
    iperf3 = [pair for pair in manifest.iperf3_pairs if names & set(pair)]
    needed = {end for round_ in rounds for pair in round_ for end in (pair["client"], pair["server"])}
    needed |= {host for run in runs.values() for host in run.hosts} | {end for pair in iperf3 for end in pair}
    partners = frozenset(needed - names)
    limited = replace(
        manifest,
        hosts={name: host for name, host in manifest.hosts.items() if name in names or name in partners},
        pair_rounds=rounds,
        nccl_runs=runs,
        iperf3_pairs=iperf3,
    )
    return Limit(frozenset(names), limited, partners)


def limit_manifest(manifest: Manifest, names: set[str]) -> Manifest:
    return apply_limit(manifest, names).manifest


def without_partner_results(results: list[Result], limit: Limit) -> list[Result]:
    """The results about the limited hosts: a result that names only partners is dropped, except
    the one saying a partner was unreachable (it explains that partner's missing pair results)."""
    if not limit.partners:
        return results
    kept = []
    for result in results:
        devices = devices_of(result.target, limit.manifest)
        hosts = devices & (limit.names | limit.partners)
        if hosts and hosts <= limit.partners and result.check != REACHABLE_CHECK:
            continue
        kept.append(result)
    return kept


def left_out_by_collection(full: Manifest, collected: Manifest, names: set[str]) -> list[dict[str, str]]:
    """What a collection limited to `names` cannot run: each pair, NCCL run and iperf3 pair of the
    full schedule that touches a limited host and has an end outside the limit."""
    left_out: list[dict[str, str]] = []
    collected_pairs = {
        (pair["rail"], *sorted((pair["client"], pair["server"])))
        for round_ in collected.pair_rounds
        for pair in round_
    }
    for round_ in full.pair_rounds:
        for pair in round_:
            ends = {pair["client"], pair["server"]}
            # A pair within the limit is the limited schedule's own (it may pair them otherwise).
            if not ends & names or ends <= names or (pair["rail"], *sorted(ends)) in collected_pairs:
                continue
            outside = sorted(ends - names)
            target = _pair_target(full, pair)
            for check in ("pair_bandwidth", "pair_latency"):
                left_out.append(_left_out(check, target, outside))
    for run in full.nccl_runs.values():
        if names & set(run.hosts) and run.name not in collected.nccl_runs:
            left_out.append(_left_out("nccl_busbw", f"nccl:{run.name}", sorted(set(run.hosts) - names)))
    collected_iperf3 = set(collected.iperf3_pairs)
    for client, server in full.iperf3_pairs:
        ends = {client, server}
        if names & ends and not ends <= names and (client, server) not in collected_iperf3:
            left_out.append(_left_out("iperf3_throughput", f"{client}<->{server}", sorted(ends - names)))
    return left_out


def _pair_target(manifest: Manifest, pair: dict[str, Any]) -> str:
    """The target the pair checks give this pair: `client:nic<->server:nic` of its rail."""
    ends = []
    for end in (pair["client"], pair["server"]):
        nic = next(
            (n.name for n in manifest.hosts[end].nics if n.rail == pair["rail"]), f"rail{pair['rail']}"
        )
        ends.append(f"{end}:{nic}")
    return "<->".join(ends)


def _left_out(check: str, target: str, outside: list[str]) -> dict[str, str]:
    return {"check": check, "target": target, "outside": ", ".join(outside)}


def write_left_out(folder: Path, names: set[str], left_out: list[dict[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    document = {"limit": sorted(names), "left_out": left_out}
    (folder / LEFT_OUT_FILE).write_text(json.dumps(document, indent=2) + "\n")


def left_out_results(folder: Path, selected: list[str]) -> list[Result]:
    """A `not checked` result for each check a limited collection could not run (limit.json)."""
    path = folder / LEFT_OUT_FILE
    if not path.is_file():
        return []
    try:
        document: dict[str, Any] = json.loads(path.read_text())
        names = ", ".join(document["limit"])
        entries = [(str(e["check"]), str(e["target"]), str(e["outside"])) for e in document["left_out"]]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise ManifestError(f"{path}: not a gpunet limit record: {error}") from None
    return [
        Result(
            check,
            target,
            Status.NOT_CHECKED,
            "the pair or run measured",
            "not run",
            f"collected with --limit {names}: {outside} outside the limit, so this was not run "
            f"(collect without --limit, or add {outside})",
            "fabric",
        )
        for check, target, outside in entries
        if check in selected
    ]
