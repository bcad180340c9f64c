"""Traffic tests between hosts: perftest per pair and rail, nccl-tests, iperf3; and the fault
localisation that reads the pair matrix."""

from __future__ import annotations

from abc import abstractmethod
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gpunet.validate.artifacts import InputError
from gpunet.validate.checks.base import GPUS, RDMA_NICS, Check
from gpunet.validate.manifest import HostExpectation, NicExpectation
from gpunet.validate.results import Result, Status


@dataclass(frozen=True)
class PairEnds:
    round: int
    client: HostExpectation
    server: HostExpectation
    client_nic: NicExpectation
    server_nic: NicExpectation

    @property
    def target(self) -> str:
        return f"{self.client.name}:{self.client_nic.name}<->{self.server.name}:{self.server_nic.name}"


def scheduled_pairs(check: Check) -> Iterator[PairEnds]:
    hosts = check.manifest.hosts
    for index, round_ in enumerate(check.manifest.pair_rounds):
        for pair in round_:
            client, server = hosts.get(pair["client"]), hosts.get(pair["server"])
            if client is None or server is None:
                continue
            client_nic = next((n for n in client.nics if n.rail == pair["rail"]), None)
            server_nic = next((n for n in server.nics if n.rail == pair["rail"]), None)
            if client_nic and server_nic:
                yield PairEnds(index, client, server, client_nic, server_nic)


class _PairCheck(Check):
    categories = ("fabric",)
    needs = RDMA_NICS
    tool = ""

    def run(self) -> Iterator[Result]:
        for ends in scheduled_pairs(self):
            relative = self.artifacts.pair_file(
                ends.round, ends.client.name, ends.server.name, ends.client_nic.name, self.tool
            )
            expected = self.expectation(ends)
            try:
                parsed = self.artifacts.parsed(relative, "perftest")
                if parsed["error"]:
                    raise InputError(f"{self.tool} reported: {parsed['error']}")
                if not parsed["complete"]:
                    raise InputError(f"{relative}: incomplete capture (no closing line after the results)")
            except InputError as error:
                yield self.unavailable(ends.target, [ends.client, ends.server], error, expected)
                continue
            yield self.in_traffic_class(
                ends, parsed.get("traffic_class"), self.judge(ends, parsed["results"][-1], expected)
            )

    def in_traffic_class(self, ends: PairEnds, measured: int | None, result: Result) -> Result:
        """Say which traffic class the pair ran in (its recorded command line's --tclass). A RoCE pair
        measured outside the fabric's lossless class says nothing about the lossless path: no verdict."""
        if result.status == Status.ERROR:
            return result
        if measured is None:
            return replace(result, actual=f"{result.actual}; traffic class not recorded (no command line)")
        actual = f"{result.actual} in traffic class {measured}"
        lossless = self.manifest.traffic_class
        if self.manifest.transport != "roce" or measured == lossless:
            return replace(result, actual=actual)
        why = (
            f"measured in traffic class {measured}, not the fabric's lossless class {lossless}"
            f" (DSCP {self.manifest.roce_dscp}): run perftest with --tclass={lossless}"
            " (verify_traffic_perftest_tclass)"
        )
        return replace(result, status=Status.ERROR, actual=actual, message=why)

    @abstractmethod
    def expectation(self, ends: PairEnds) -> str: ...

    def could_not_judge(self, ends: PairEnds, expected: str, why: str) -> Result:
        return Result(
            self.name, ends.target, Status.ERROR, expected, "no usable column", why, self.categories[0]
        )

    @abstractmethod
    def judge(self, ends: PairEnds, row: dict, expected: str) -> Result: ...


class PairBandwidth(_PairCheck):
    name = "pair_bandwidth"
    description = "ib_write_bw between each scheduled pair reaches the threshold share of NIC line rate"
    commands = ("perftest",)
    tool = "ib_write_bw"
    reads = ("ib_write_bw",)
    weight = 3

    def line_rate(self, ends: PairEnds) -> int:
        return min(ends.client_nic.speed_gbps, ends.server_nic.speed_gbps)

    def expectation(self, ends: PairEnds) -> str:
        fraction = self.thresholds.perftest_min_fraction
        return (
            f">= {fraction * self.line_rate(ends):.1f} Gb/s ({fraction:.0%} of {self.line_rate(ends)} Gb/s)"
        )

    def judge(self, ends: PairEnds, row: dict, expected: str) -> Result:
        floor = self.thresholds.perftest_min_fraction * self.line_rate(ends)
        measured = row.get("bw_avg_gbps")
        if measured is None:
            return self.could_not_judge(ends, expected, f"no 'BW average' column in {sorted(row)}")
        actual = f"{measured:.1f} Gb/s average at {row['bytes']} B"
        return self.result(ends.target, measured >= floor, expected, actual)


class PairLatency(_PairCheck):
    name = "pair_latency"
    description = "ib_read_lat typical latency between each scheduled pair is under the limit"
    commands = ("perftest",)
    tool = "ib_read_lat"
    reads = ("ib_read_lat",)
    weight = 3

    def expectation(self, ends: PairEnds) -> str:
        return f"t_typical (t_avg in duration mode) <= {self.thresholds.perftest_max_latency_us:g} us"

    def judge(self, ends: PairEnds, row: dict, expected: str) -> Result:
        # Judge what the run reported: t_typical (median) normally, t_avg in duration mode (-D).
        column = next((key for key in ("t_typical_us", "t_avg_us") if row.get(key) is not None), None)
        if column is None:
            return self.could_not_judge(ends, expected, f"no t_typical or t_avg column in {sorted(row)}")
        latency = row[column]
        actual = f"{column.removesuffix('_us')} {latency:g} us at {row.get('bytes')} B"
        return self.result(ends.target, latency <= self.thresholds.perftest_max_latency_us, expected, actual)


class FaultLocalisation(Check):
    name = "fault_localisation"
    description = "Names the NIC failing with two or more partners, or the path of a single failing pair"
    categories = ("fabric",)
    commands = ("perftest",)
    reads = PairBandwidth.reads  # it judges the bandwidth pairs again to localise the failures

    def run(self) -> Iterator[Result]:
        ends_by_target = {ends.target: ends for ends in scheduled_pairs(self)}
        pair_results = list(PairBandwidth(self.artifacts).run())
        failed = [r for r in pair_results if r.status == Status.FAIL]
        partners: dict[str, set[str]] = defaultdict(set)
        ports: dict[str, str] = {}
        for result in failed:
            ends = ends_by_target[result.target]
            for mine, nic, other in (
                (ends.client, ends.client_nic, ends.server),
                (ends.server, ends.server_nic, ends.client),
            ):
                key = f"{mine.name}:{nic.name}"
                partners[key].add(other.name)
                ports[key] = f"{nic.switch}:{nic.switch_port}"
        suspects = {nic for nic, others in partners.items() if len(others) >= 2}
        for nic in sorted(suspects):
            yield Result(
                self.name,
                nic,
                Status.FAIL,
                "full bandwidth with every partner",
                f"below threshold with {len(partners[nic])} partners: {', '.join(sorted(partners[nic]))}",
                f"suspect NIC {nic} (switch port {ports[nic]}): check the NIC, its cable and that port",
                self.categories[0],
            )
        for result in failed:
            ends = ends_by_target[result.target]
            client = f"{ends.client.name}:{ends.client_nic.name}"
            server = f"{ends.server.name}:{ends.server_nic.name}"
            if client in suspects or server in suspects:
                continue
            path = (
                f"{client} ({ends.client_nic.switch}:{ends.client_nic.switch_port}) <-> "
                f"{server} ({ends.server_nic.switch}:{ends.server_nic.switch_port})"
            )
            yield Result(
                self.name,
                result.target,
                Status.FAIL,
                "full bandwidth on this path",
                result.actual,
                f"single failing pair; suspect path: {path}",
                self.categories[0],
            )
        measured = [r for r in pair_results if r.status in (Status.PASS, Status.FAIL)]
        if not measured and pair_results:
            # Nothing to localise from: say so instead of claiming a clean matrix.
            unmeasured = pair_results[0]
            status = Status.SKIPPED if all(r.status == Status.SKIPPED for r in pair_results) else Status.ERROR
            message = f"no pair was measured; first: {unmeasured.target}: {unmeasured.message}"
            target = self.manifest.fabric
            yield Result(
                self.name, target, status, "a measured pair matrix", "none", message, self.categories[0]
            )
        elif not failed and measured:
            yield self.result(
                self.manifest.fabric, True, "no failing pair", f"{len(measured)} pairs measured, none failed"
            )


class NcclBusBandwidth(Check):
    name = "nccl_busbw"
    description = (
        "nccl-tests all_reduce_perf has no wrong values and reaches its share of the planner's busbw bound"
    )
    categories = ("nccl",)
    commands = ("nccl-tests",)
    needs = GPUS
    weight = 2

    def run(self) -> Iterator[Result]:
        fraction = self.thresholds.nccl_min_fraction
        for run in self.manifest.nccl_runs.values():
            floor = fraction * run.bound_busbw_gbs
            expected = (
                f"0 wrong, peak busbw >= {floor:.1f} GB/s ({fraction:.0%} of bound {run.bound_busbw_gbs:g})"
            )
            hosts = [self.manifest.hosts[name] for name in run.hosts if name in self.manifest.hosts]
            try:
                parsed = self.artifacts.parsed(f"nccl/{run.name}.txt", "nccl-tests")
            except InputError as error:
                yield self.unavailable(f"nccl:{run.name}", hosts, error, expected)
                continue
            self.measure(f"nccl:{run.name}", "busbw_bytes_per_second", _out_of_place_peak(parsed))
            if parsed["error"]:
                seen = f"{len(parsed['rows'])} result rows" if parsed["rows"] else "no results"
                yield self.result(f"nccl:{run.name}", False, expected, seen, f"run failed: {parsed['error']}")
                continue
            if not parsed["complete"]:
                yield Result(
                    self.name,
                    f"nccl:{run.name}",
                    Status.ERROR,
                    expected,
                    f"{len(parsed['rows'])} result rows, no footer",
                    f"nccl/{run.name}.txt: incomplete capture (no 'Avg bus bandwidth' footer): not judged",
                    self.categories[0],
                )
                continue
            wrong = sum(
                half["wrong"] or 0
                for row in parsed["rows"]
                for half in (row["out_of_place"], row["in_place"])
            )
            wrong += parsed["out_of_bounds"] or 0
            peak = max(
                (
                    half["busbw_gbs"] or 0
                    for row in parsed["rows"]
                    for half in (row["out_of_place"], row["in_place"])
                ),
                default=0,
            )
            actual = f"{wrong} wrong, peak busbw {peak:g} GB/s (avg {parsed['avg_busbw_gbs']})"
            yield self.result(f"nccl:{run.name}", wrong == 0 and peak >= floor, expected, actual)


def _out_of_place_peak(parsed: dict) -> float | None:
    """nccl-tests' highest out-of-place busbw as bytes per second; None when no row has one."""
    values = [row["out_of_place"]["busbw_gbs"] for row in parsed["rows"]]
    known = [value for value in values if value is not None]
    return max(known) * 1e9 if known else None


class HostNetworkThroughput(Check):
    name = "iperf3_throughput"
    description = "iperf3 TCP throughput between host pairs on the host network"
    categories = ("host-network",)
    commands = ("iperf3",)

    def run(self) -> Iterator[Result]:
        floor = self.thresholds.iperf3_min_gbps
        expected = f">= {floor:g} Gb/s"
        for client, server in self.manifest.iperf3_pairs:
            target = f"{client}<->{server}"
            hosts = [self.manifest.hosts[name] for name in (client, server) if name in self.manifest.hosts]
            try:
                parsed = self.artifacts.parsed(f"pairs/iperf3/{client}__{server}.iperf3.txt", "iperf3")
            except InputError as error:
                yield self.unavailable(target, hosts, error, expected)
                continue
            if parsed["error"] or parsed["received_gbps"] is None:
                yield self.result(target, False, expected, "no result", f"iperf3 reported: {parsed['error']}")
                continue
            actual = f"{parsed['received_gbps']:.2f} Gb/s received, {parsed['retransmits']} retransmits"
            yield self.result(target, parsed["received_gbps"] >= floor, expected, actual)


@dataclass(frozen=True)
class PairMeasurement:
    client: str
    server: str
    rail: int
    gbps: float | None  # None: not measured (missing, unreadable or skipped)
    line_rate_gbps: int


def bandwidth_matrix(check_context: Check) -> list[PairMeasurement]:
    """Every scheduled pair's ib_write_bw average, for the report's heatmap."""
    measurements = []
    for ends in scheduled_pairs(check_context):
        relative = check_context.artifacts.pair_file(
            ends.round, ends.client.name, ends.server.name, ends.client_nic.name, "ib_write_bw"
        )
        try:
            parsed = check_context.artifacts.parsed(relative, "perftest")
            gbps = parsed["results"][-1].get("bw_avg_gbps") if parsed["results"] else None
        except InputError:
            gbps = None
        rate = min(ends.client_nic.speed_gbps, ends.server_nic.speed_gbps)
        measurements.append(
            PairMeasurement(ends.client.name, ends.server.name, ends.client_nic.rail, gbps, rate)
        )
    return measurements
