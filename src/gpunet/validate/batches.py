"""Judge the catalog's checks in several processes: which checks go together, and the pool.

Checks are independent but for the files they share: checks that read the same files form one
batch, judged in one process, so each file is still parsed once. A batch of checks judged device
by device (`Check.judged_per`) is split further into parts, each a contiguous share of the hosts
or switches: a device's files are read in one part only, the parts keep both processes busy to
the end, and each part's results travel back while the others are still judged. Batches start
costliest first (the checks' `weight`), so the last one to finish is a small one. Workers are forked
(gpunet.forked): they inherit the manifest; only the results travel back. Results keep the
catalog's order whatever order the batches finish in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from gpunet.forked import WorkerLost, run_forked, worker_count
from gpunet.validate.checks import CHECKS
from gpunet.validate.manifest import Manifest

T = TypeVar("T")

# Below this many GPU hosts one process is faster: a fork costs more than the judging it spares.
PARALLEL_FROM_HOSTS = 128
# The pair matrix of the report reads the bandwidth captures: it is built in their batch.
MATRIX_INPUTS = CHECKS["pair_bandwidth"].reads
# Parts per process of a batch judged device by device: enough that the last part to finish is
# short, few enough that each still holds hundreds of devices.
PARTS_PER_PROCESS = 2


class JudgingProcessLost(Exception):
    """A judging process died (killed, out of memory) before returning its results."""


@dataclass(frozen=True)
class Batch:
    checks: tuple[str, ...]  # in catalog order
    with_matrix: bool  # this batch also builds the pair matrix
    part: int = 0  # which of `parts` contiguous shares of the devices it judges
    parts: int = 1

    @property
    def weight(self) -> float:
        return sum(CHECKS[name].weight for name in self.checks) / self.parts

    @property
    def judged_per(self) -> str | None:
        """HOSTS or SWITCHES when every check of the batch is judged device by device."""
        axes = {CHECKS[name].judged_per for name in self.checks}
        return next(iter(axes)) if len(axes) == 1 and not self.with_matrix else None

    def manifest_part(self, manifest: Manifest) -> Manifest:
        """The manifest with only this part's share of the devices (all of them for one part)."""
        axis = self.judged_per
        if self.parts == 1 or axis is None:
            return manifest
        devices: dict = getattr(manifest, axis)
        names = list(devices)
        size = -(-len(names) // self.parts)
        share = names[self.part * size : (self.part + 1) * size]
        return replace(manifest, **{axis: {name: devices[name] for name in share}})


def batches(checks: Iterable[str]) -> list[Batch]:
    """The checks grouped by the files they read (transitively), costliest batch first."""
    groups: list[tuple[list[str], set[str]]] = []
    for name in checks:
        inputs = set(CHECKS[name].inputs())
        joined = [group for group in groups if group[1] & inputs]
        merged = ([name], inputs)
        for group in joined:
            merged = (group[0] + merged[0], group[1] | merged[1])
            groups.remove(group)
        groups.append(merged)
    order = {name: index for index, name in enumerate(checks)}
    found = [
        Batch(tuple(sorted(names, key=order.__getitem__)), bool(inputs & set(MATRIX_INPUTS)))
        for names, inputs in groups
    ]
    return sorted(found, key=lambda batch: -batch.weight)


def in_parts(work: list[Batch], parts: int) -> list[Batch]:
    """Each batch judged device by device as `parts` parts, the others whole; costliest first."""
    split = [
        replace(batch, part=index, parts=count)
        for batch in work
        for count in [parts if batch.judged_per else 1]
        for index in range(count)
    ]
    return sorted(split, key=lambda batch: -batch.weight)


def process_count(jobs: int | None, manifest: Manifest, batch_count: int) -> int:
    """How many processes judge: `jobs` when given, else one per usable CPU for a large fabric."""
    return worker_count(jobs, batch_count, worth_forking=len(manifest.hosts) >= PARALLEL_FROM_HOSTS)


def judge_in_processes(
    inherited: tuple[Path, Manifest, bool],
    work: list[Batch],
    processes: int,
    judge_batch: Callable[[tuple[Path, Manifest, bool], Batch], T],
) -> Iterator[tuple[Batch, T]]:
    """(batch, judge_batch(inherited, batch)) of every batch, each in a forked worker, as they
    finish; `inherited` (folder, manifest, whether to measure) reaches the workers by fork."""
    try:
        for index, answer in run_forked(inherited, work, processes, judge_batch):
            yield work[index], answer
    except WorkerLost as error:
        raise JudgingProcessLost(
            f"a judging process died before returning its results ({error}); --jobs 1 judges in one process"
        ) from None
