"""Independent pieces of one large job run in forked worker processes, one per CPU.

Rendering 2,560 switches and judging 19 checks over 200,000 captures are CPU-bound Python: one
process uses one core. Workers are forked, so they inherit what the job already built (the
fabric model, the manifest) instead of receiving a pickled copy; only each piece's result travels
back. A worker that dies (the kernel's out-of-memory killer) raises WorkerLost instead of leaving
the pool waiting.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

Piece = TypeVar("Piece")
Answer = TypeVar("Answer")


class WorkerLost(Exception):
    """A worker process died before returning its piece's result."""


def usable_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def fork_is_safe() -> bool:
    """Whether this process may fork workers: the platform forks, and no other thread runs (a
    fork copies only the calling thread, so another thread's held lock would stay held)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def worker_count(jobs: int | None, pieces: int, worth_forking: bool) -> int:
    """How many processes share `pieces`: `jobs` when the caller asks, else one per usable CPU
    where the job is `worth_forking` (large enough) and forking is safe; never more than pieces."""
    if jobs is None:
        jobs = usable_cpus() if worth_forking and fork_is_safe() else 1
    return max(1, min(jobs, pieces))


# What the workers inherit: set just before the fork, cleared after.
_inherited: Any = None


def run_forked(
    inherited: Any,
    pieces: list[Piece],
    processes: int,
    work: Callable[[Any, Piece], Answer],
) -> Iterator[tuple[int, Answer]]:
    """(index, work(inherited, piece)) for every piece, computed in `processes` forked workers,
    as they finish. `work` must be a module-level function (it is named, not pickled)."""
    global _inherited
    _inherited = inherited
    try:
        with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {pool.submit(_in_worker, work, piece): index for index, piece in enumerate(pieces)}
            for future in as_completed(futures):
                yield futures[future], future.result()
    except BrokenProcessPool as error:
        raise WorkerLost(str(error)) from None
    finally:
        _inherited = None


def _in_worker(work: Callable[[Any, Piece], Answer], piece: Piece) -> Answer:
    return work(_inherited, piece)
