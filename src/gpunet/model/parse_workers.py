"""Parse a large inventory folder's variables files in fresh worker processes.

A cold read of a big folder is mostly YAML parsing (libyaml composing, then `_load_yaml` building
values), one file after another. `parse_ahead` hands the files to `workers()` new interpreters
(`sys.executable -m gpunet.model.parse_workers`, started by subprocess: fork+exec, so nothing of
the caller's threads, locks or Python signal handlers is carried over, and it works inside
Ansible's daemonic WorkerProcess, where multiprocessing refuses to start children). Each worker
parses its share with the same `_load_yaml` and writes back, per file, the marshalled value, or
nothing for a file the parent must read itself: vault files, JSON, undecodable text, any parse
error (duplicate keys, refused aliases, syntax), and values marshal cannot hold (timestamps). The
parent still reads every file in its own order and only takes a worker's value in place of
parsing, so values, order and every error message are those of a one-process read.

Nothing here may make a read fail or hang: a worker that cannot start, dies, exits non-zero or
outlives the deadline is killed and its share is parsed in-process. Workers are killed and their
temporary folder removed on every way out, KeyboardInterrupt included.

`GPUNET_PARSE_WORKERS=off` (or `0`) turns this off; `=N` caps the workers at N. By default one
worker per usable core, at most MAX_WORKERS, and none below two cores or MIN_FILES files (a worker
costs about 0.07 s of CPU to start, the parse about 1 ms a file).
"""

from __future__ import annotations

import gc
import marshal
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

WORKERS_ENV = "GPUNET_PARSE_WORKERS"
MAX_WORKERS = 8
MIN_FILES = 1000
# A worker's share must be done in this time (plus a budget per file), or it is killed.
DEADLINE_BASE_S = 60.0
DEADLINE_PER_FILE_S = 0.02


def workers(file_count: int) -> int:
    """How many workers to start for `file_count` files; 0 means parse in-process."""
    setting = os.environ.get(WORKERS_ENV, "").strip().lower()
    if setting in ("off", "0", "no", "false"):
        return 0
    cap = MAX_WORKERS
    if setting.isdigit():
        cap = int(setting)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    count = min(cores, cap)
    # An embedding program's sys.executable (uwsgi, a frozen binary) is not an interpreter to
    # start with -m.
    if count < 2 or file_count < MIN_FILES or not Path(sys.executable or "/").name.startswith("python"):
        return 0
    return count


def parse_ahead(paths: Sequence[Path], count: int) -> dict[Path, bytes]:
    """The marshalled values of those of `paths` that `count` workers parsed cleanly."""
    if count < 1 or not paths:
        return {}
    shares = [list(paths[i::count]) for i in range(count)]
    found: dict[Path, bytes] = {}
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="gpunet-parse-") as folder:
        try:
            for index, share in enumerate(shares):
                job = Path(folder) / f"{index}.in"
                job.write_bytes(marshal.dumps([str(p) for p in share]))
                procs.append(_start(job, Path(folder) / f"{index}.out"))
            deadline = time.monotonic() + DEADLINE_BASE_S + DEADLINE_PER_FILE_S * len(shares[0])
            for index, (proc, share) in enumerate(zip(procs, shares, strict=True)):
                try:
                    code = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    continue  # killed below; its share is parsed in-process
                if code == 0:
                    found.update(_results(Path(folder) / f"{index}.out", share))
        except OSError:
            pass  # a worker could not start: what came back is used, the rest is parsed here
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
    return found


def _start(job: Path, out: Path) -> subprocess.Popen[bytes]:
    # The worker imports this copy of gpunet whatever the caller's sys.path was built from, and
    # not whatever the current folder holds (-P).
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env[WORKERS_ENV] = "off"  # a worker never starts workers
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "gpunet.model.parse_workers", str(job), str(out)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        close_fds=True,
    )


def _results(out: Path, share: list[Path]) -> dict[Path, bytes]:
    try:
        blobs = marshal.loads(out.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(blobs, list) or len(blobs) != len(share):
        return {}
    return {path: blob for path, blob in zip(share, blobs, strict=True) if isinstance(blob, bytes)}


def parse_one(path: str) -> bytes | None:
    """A worker's parse of one file, marshalled; None for anything the parent must do itself."""
    from gpunet.model.folder_inventory import VAULT_HEADER, _load_yaml, looks_like_json

    try:
        raw = Path(path).read_bytes()
        if raw.startswith(VAULT_HEADER):
            return None
        text = raw.decode("utf-8")
        if looks_like_json(text):
            return None  # the parent's json.loads, and its fallback to YAML
        return marshal.dumps(_load_yaml(text))
    except Exception:  # the parent parses the file again and reports what is wrong
        return None


def main(argv: Sequence[str]) -> int:
    job, out = argv
    paths = marshal.loads(Path(job).read_bytes())
    # As in the parent (gpunet.gcpause): each file's values are dropped once marshalled, and
    # the automatic collections would only walk them; a collection per batch frees any cycle.
    gc.disable()
    blobs = []
    for index, path in enumerate(paths, 1):
        blobs.append(parse_one(path))
        if index % 1000 == 0:
            gc.collect()
    partial = Path(out + ".part")
    partial.write_bytes(marshal.dumps(blobs))
    partial.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
