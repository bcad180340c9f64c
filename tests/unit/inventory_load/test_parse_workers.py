"""Parsing a folder's variables files in worker processes (gpunet.model.parse_workers) reads what
a one-process parse reads: the same values in the same order, the same error naming file and line,
vault files decrypted or skipped by the parent; a worker that fails, hangs or is interrupted
leaves the read to the parent and no process behind; and it works under a caller's SIGTERM
handler, with threads holding locks, and inside a daemonic forked child like Ansible's
WorkerProcess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret

from gpunet.model import parse_workers
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.folder_inventory import Unhandled, read_folder
from tests.conftest import REPO_ROOT

PASSWORD = b"test-only-password"
VAULT = VaultLib([("default", VaultSecret(PASSWORD))])
HOSTS = 40

# (case, host_vars/h0003.yml text or None for a vault file, what the one-process read gives, and
# a part of its message when it fails)
CASES = [
    ("plain", "a: 1\nb: [x, {y: 2.5}]\nc: null\n", "values", ""),
    ("timestamp", "when: 2024-01-02\n", "values", ""),
    ("json", '{"a": 1, "b": [true]}\n', "values", ""),
    ("jinja", "a: '{{ b }}'\nb: 2\n", "values", ""),
    ("anchors", "base: &b {x: 1}\nother: *b\n", "values", ""),
    ("vault", None, "values", ""),
    ("yaml_error", "a: [1\nb: 2\n", "unhandled", "while parsing a flow sequence"),
    (
        "duplicate_key",
        "a: 1\nb: 2\na: 3\n",
        "invalid",
        "h0003.yml:3: YAML parsing failed: Found duplicate mapping key 'a'",
    ),
    ("not_utf8", b"a: \xff\n", "invalid", "h0003.yml: is not UTF-8 text (byte 0xff at offset 3)"),
]


def _folder(root: Path, special: str | bytes | None) -> Path:
    """HOSTS hosts in two groups, a host_vars file each and a group_vars folder; h0003's file is
    `special` (None: a vault-encrypted file)."""
    root.mkdir()
    hosts = {f"h{i:04}": None for i in range(HOSTS)}
    even = {h: None for i, h in enumerate(hosts) if i % 2 == 0}
    (root / "hosts.yml").write_text(
        json.dumps({"all": {"children": {"even": {"hosts": even}, "rest": {"hosts": hosts}}}})
    )
    (root / "group_vars" / "all").mkdir(parents=True)
    (root / "group_vars" / "all" / "10-base.yml").write_text("site: one\nmtu: 9100\n")
    (root / "group_vars" / "all" / "20-more.yaml").write_text("mtu: 9216\nlist: [1, 2]\n")
    (root / "group_vars" / "even.yml").write_text("parity: even\n")
    (root / "host_vars").mkdir()
    for index, host in enumerate(hosts):
        (root / "host_vars" / f"{host}.yml").write_text(
            f"index: {index}\nname: '{host}'\nmtu: {9000 + index}\n"
        )
    path = root / "host_vars" / "h0003.yml"
    if special is None:
        path.write_bytes(VAULT.encrypt(b"secret: hidden\nindex: 3\n"))
    elif isinstance(special, bytes):
        path.write_bytes(special)
    else:
        path.write_text(special)
    return root


def _outcome(source: Path, vault: Any) -> object:
    try:
        folder = read_folder(source, vault)
    except InventoryInvalidError as error:
        return ("invalid", [str(p) for p in error.problems])
    except Unhandled as unhandled:
        return ("unhandled", str(unhandled))
    return (
        "values",
        json.dumps([folder.groups, folder.host_groups, folder.variables], default=repr),
        folder.skipped_files,
        folder.has_jinja,
    )


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers for any folder, cache off; records how many files each parse_ahead returned."""
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")
    monkeypatch.setattr(parse_workers, "MIN_FILES", 0)
    monkeypatch.setattr(parse_workers.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    returned: list[int] = []
    original = parse_workers.parse_ahead

    def spy(paths: list[Path], count: int) -> dict[Path, bytes]:
        found = original(paths, count)
        returned.append(len(found))
        return found

    monkeypatch.setattr(parse_workers, "parse_ahead", spy)
    return returned


@pytest.mark.parametrize("vaulted", [True, False], ids=["with_password", "without_password"])
@pytest.mark.parametrize(("case", "text", "expected", "message"), CASES, ids=[c[0] for c in CASES])
def test_workers_read_what_one_process_reads(
    case: str,
    text: str | None,
    expected: str,
    message: str,
    vaulted: bool,
    tmp_path: Path,
    spied: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = _folder(tmp_path / case, text)
    vault = VAULT if vaulted else None
    monkeypatch.setenv(parse_workers.WORKERS_ENV, "off")
    alone = _outcome(source, vault)
    monkeypatch.setenv(parse_workers.WORKERS_ENV, "2")
    together = _outcome(source, vault)
    assert together == alone
    assert alone[0] == expected
    assert message in str(alone[1])
    # Workers ran only when on; every plain file came from one (43 files; h0003's only when it is
    # plain YAML).
    assert spied == [43 if case in ("plain", "jinja", "anchors") else 42]
    if case == "vault" and not vaulted:
        assert alone[2] == (str(source.absolute() / "host_vars" / "h0003.yml"),)


@pytest.mark.parametrize(
    ("setting", "cores", "files", "executable", "expected"),
    [
        ("", 2, 5000, "/venv/bin/python3", 2),
        ("", 16, 5000, "/venv/bin/python3", parse_workers.MAX_WORKERS),
        ("3", 16, 5000, "/venv/bin/python3", 3),
        ("off", 16, 5000, "/venv/bin/python3", 0),
        ("0", 16, 5000, "/venv/bin/python3", 0),
        ("", 1, 5000, "/venv/bin/python3", 0),
        ("1", 16, 5000, "/venv/bin/python3", 0),
        ("", 16, parse_workers.MIN_FILES - 1, "/venv/bin/python3", 0),
        ("", 16, 5000, "/usr/bin/uwsgi", 0),
        ("", 16, 5000, "", 0),
    ],
)
def test_worker_count(
    setting: str, cores: int, files: int, executable: str, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parse_workers.WORKERS_ENV, setting)
    monkeypatch.setattr(parse_workers.sys, "executable", executable)
    monkeypatch.setattr(parse_workers.os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    assert parse_workers.workers(files) == expected


def _fake_python(tmp_path: Path, body: str) -> str:
    script = tmp_path / "python-fake"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    ("case", "body"),
    [("exits_non_zero", "exit 3"), ("exits_zero_writing_nothing", "exit 0"), ("hangs", "exec sleep 60")],
)
def test_a_failed_worker_leaves_the_read_to_the_parent(
    case: str, body: str, tmp_path: Path, spied: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _folder(tmp_path / "inv", "plain: yes\n")
    monkeypatch.setenv(parse_workers.WORKERS_ENV, "off")
    alone = _outcome(source, None)
    started: list[subprocess.Popen[bytes]] = []
    start = parse_workers._start
    monkeypatch.setattr(parse_workers, "_start", lambda *a: started.append(start(*a)) or started[-1])
    monkeypatch.setattr(parse_workers.sys, "executable", _fake_python(tmp_path, body))
    monkeypatch.setattr(parse_workers, "DEADLINE_BASE_S", 1.0)
    monkeypatch.setenv(parse_workers.WORKERS_ENV, "2")
    began = time.monotonic()
    assert _outcome(source, None) == alone
    assert time.monotonic() - began < 20
    assert spied == [0]
    assert len(started) == 2
    assert all(proc.returncode is not None for proc in started)


def test_interrupted_parse_kills_its_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [tmp_path / f"{i}.yml" for i in range(4)]
    started: list[subprocess.Popen[bytes]] = []
    start = parse_workers._start
    monkeypatch.setattr(parse_workers, "_start", lambda *a: started.append(start(*a)) or started[-1])
    monkeypatch.setattr(parse_workers.sys, "executable", _fake_python(tmp_path, "exec sleep 60"))

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            parse_workers.parse_ahead(paths, 2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(started) == 2
    assert all(proc.returncode == -signal.SIGKILL for proc in started)
    assert not Path(started[0].args[-1]).parent.exists()  # the temporary folder is gone


# Run in a fresh interpreter: a SIGTERM handler that ignores the signal, a thread that holds a
# lock for the whole read, then the read in this process and in a daemonic forked child (as
# Ansible's WorkerProcess is). Prints what each read saw and how many files workers returned.
HOSTILE_CALLER = """
import json, multiprocessing, os, signal, sys, threading, time
from pathlib import Path
os.environ["GPUNET_PARSE_CACHE"] = "off"
from gpunet.model import parse_workers
from gpunet.model.folder_inventory import read_folder
parse_workers.MIN_FILES = 0
parse_workers.os.sched_getaffinity = lambda _pid: {0, 1}
returned = []
original = parse_workers.parse_ahead
def spy(paths, count):
    found = original(paths, count)
    returned.append(len(found))
    return found
parse_workers.parse_ahead = spy
signal.signal(signal.SIGTERM, lambda *_: None)
lock = threading.Lock()
held = threading.Event()
def hold():
    with lock:
        held.set()
        time.sleep(3600)
threading.Thread(target=hold, daemon=True).start()
held.wait()
source = Path(sys.argv[1])
def report(queue):
    folder = read_folder(source)
    queue.put(json.dumps([returned, folder.variables]))
queue = multiprocessing.get_context("fork").SimpleQueue()
report(queue)
print(queue.get())
child = multiprocessing.get_context("fork").Process(target=report, args=(queue,), daemon=True)
child.start()
print(queue.get())
child.join(30)
print(child.exitcode)
"""


def _hostile_caller(source: Path, workers: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, parse_workers.WORKERS_ENV: workers, "GPUNET_PARSE_CACHE": "off"}
    return subprocess.run(
        [sys.executable, "-c", HOSTILE_CALLER, str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=REPO_ROOT,
        check=False,
    )


def test_workers_under_a_sigterm_handler_threads_and_a_daemonic_fork(tmp_path: Path) -> None:
    source = _folder(tmp_path / "inv", "plain: yes\n")
    run = _hostile_caller(source, "2")
    assert run.returncode == 0, run.stderr
    parent, child, exitcode = run.stdout.splitlines()
    one_process = _hostile_caller(source, "off")
    assert one_process.returncode == 0, one_process.stderr
    alone = one_process.stdout.splitlines()[0]
    assert json.loads(alone)[0] == []
    expected = json.loads(alone)[1]
    assert json.loads(parent) == [[43], expected]
    # The forked child inherited the parent's spy record, then added its own read.
    assert json.loads(child) == [[43, 43], expected]
    assert exitcode == "0"
