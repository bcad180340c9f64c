"""Judge the catalog's checks in several processes: which checks go together, and the pool.

Checks are independent but for the files they share: checks that read the same files form one
batch, judged in one process, so each file is still parsed once. Batches start costliest first
(the checks' `weight`), so the last one to finish is a small one. Workers are forked
(gpunet.forked): they inherit the manifest; only the results travel back. Results keep the
catalog's order whatever order the batches finish in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
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


class JudgingProcessLost(Exception):
    """A judging process died (killed, out of memory) before returning its results."""


@dataclass(frozen=True)
class Batch:
    checks: tuple[str, ...]  # in catalog order
    with_matrix: bool  # this batch also builds the pair matrix

    @property
    def weight(self) -> int:
        return sum(CHECKS[name].weight for name in self.checks)


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


def process_count(jobs: int | None, manifest: Manifest, batch_count: int) -> int:
    """How many processes judge: `jobs` when given, else one per usable CPU for a large fabric."""
    return worker_count(jobs, batch_count, worth_forking=len(manifest.hosts) >= PARALLEL_FROM_HOSTS)


def judge_in_processes(
    folder: Path,
    manifest: Manifest,
    work: list[Batch],
    processes: int,
    judge_batch: Callable[[tuple[Path, Manifest], Batch], T],
) -> Iterator[T]:
    """`judge_batch((folder, manifest), batch)` of every batch, each in a forked worker, as they finish."""
    try:
        for _, answer in run_forked((folder, manifest), work, processes, judge_batch):
            yield answer
    except WorkerLost as error:
        raise JudgingProcessLost(
            f"a judging process died before returning its results ({error}); --jobs 1 judges in one process"
        ) from None
