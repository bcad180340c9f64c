"""The shape of a check (after ANTA): a name, a description, categories, the tool outputs it
reads, the hardware it needs, and a `run` that returns results saying "expected X, saw Y"."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from sys import intern
from typing import Any, ClassVar

from gpunet.validate.artifacts import Artifacts, InputError
from gpunet.validate.manifest import HostExpectation
from gpunet.validate.results import Measurement, Result, Status

GPUS = "gpus"
RDMA_NICS = "rdma_nics"
# What a check judges device by device (Check.judged_per).
HOSTS = "hosts"
SWITCHES = "switches"


class Check(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    categories: ClassVar[tuple[str, ...]]
    commands: ClassVar[tuple[str, ...]]  # the `gpunet parse` tools whose output it reads
    needs: ClassVar[str | None] = None  # GPUS or RDMA_NICS: skipped where the inventory lacks them
    # The files it reads, where `commands` is too coarse (perftest: bandwidth or latency captures).
    # Checks that read the same files are judged in one process, so each file is parsed once.
    reads: ClassVar[tuple[str, ...]] = ()
    # Its rough share of the judging time of a large fabric (measured at 4,096 hosts): the costly
    # checks start first when judging in several processes. Scheduling only; no verdict reads it.
    weight: ClassVar[int] = 1
    # HOSTS or SWITCHES where each device's results come from that device's files alone, in the
    # manifest's order of devices: such a check may judge the devices in parts, one part per
    # process, and the parts' results joined in order are the whole's. None: judged in one piece.
    judged_per: ClassVar[str | None] = None

    @classmethod
    def inputs(cls) -> frozenset[str]:
        return frozenset(cls.reads or cls.commands)

    def __init__(self, artifacts: Artifacts, inputs: dict[str, Any] | None = None) -> None:
        self.artifacts = artifacts
        self.manifest = artifacts.manifest
        self.thresholds = artifacts.manifest.thresholds
        self.inputs = inputs or {}
        # The numbers read while judging, when the caller asked for them (None: not recording).
        self.measurements: list[Measurement] | None = [] if artifacts.measuring else None

    @abstractmethod
    def run(self) -> Iterator[Result]: ...

    def measure(self, target: str, quantity: str, value: float | None) -> None:
        """Record a number read for `target` (nothing when not recording or not read).

        Texts are interned here and in `result`: a port's target built apart for its result and
        each counter, and the same observation on thousands of ports, were 3 million separate
        strings at 16,384 hosts (0.4 GiB of the judging's peak); one object each also pickles
        once when a judging process sends its part back."""
        if self.measurements is not None and value is not None:
            self.measurements.append((self.name, intern(target), intern(quantity), value))

    def result(self, target: str, passed: bool, expected: str, actual: str, message: str = "") -> Result:
        status = Status.PASS if passed else Status.FAIL
        return Result(
            self.name, intern(target), status, intern(expected), intern(actual), message, self.categories[0]
        )

    def unavailable(
        self, target: str, hosts: list[HostExpectation], error: InputError, expected: str
    ) -> Result:
        """Input missing or unreadable: skipped where the inventory declares no such hardware, else error."""
        lacking = [host for host in hosts if self.needs and not _has(host, self.needs)]
        if lacking:
            reason = lacking[0].hardware_reason or f"inventory declares no {self.needs.replace('_', ' ')}"
            return Result(
                self.name,
                target,
                Status.SKIPPED,
                expected,
                "not run",
                f"{lacking[0].name}: {reason}",
                self.categories[0],
            )
        return Result(self.name, target, Status.ERROR, expected, "no input", str(error), self.categories[0])


def _has(host: HostExpectation, hardware: str) -> bool:
    return host.has_gpus if hardware == GPUS else host.has_rdma_nics


def read_host(
    check: Check, host: HostExpectation, tool: str, target: str, expected: str, qualifier: str = ""
):
    """(parsed, None) or (None, a skipped/error Result)."""
    try:
        return check.artifacts.host(host.name, tool, qualifier), None
    except InputError as error:
        return None, check.unavailable(target, [host], error, expected)
