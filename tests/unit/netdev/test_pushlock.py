"""One push per switch at a time (a flock per switch under the backup folder) and a tag of its
own for every push."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from gpunet.netdev.errors import PushError
from gpunet.netdev.pushlock import switch_lock
from gpunet.netdev.strategies.base import new_tag

HOLD = """
import sys, time
from pathlib import Path
from gpunet.netdev.pushlock import switch_lock
with switch_lock(Path(sys.argv[1]), "leaf01"):
    print("held", flush=True)
    time.sleep(30)
"""


def test_a_second_push_to_the_same_switch_is_refused_while_the_first_runs(tmp_path):
    with switch_lock(tmp_path, "leaf01"):
        refused = pytest.raises(PushError, match=r"another push to this switch is running \(pid \d+")
        with refused, switch_lock(tmp_path, "leaf01"):
            pass
        with switch_lock(tmp_path, "leaf02"):  # another switch is free
            pass
    with switch_lock(tmp_path, "leaf01"):  # released when the block ends
        pass


def test_the_lock_holds_across_processes_and_dies_with_its_holder(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(PushError, match=rf"pid {holder.pid}"), switch_lock(tmp_path, "leaf01"):
            pass
    finally:
        holder.kill()
        holder.wait()
    with switch_lock(tmp_path, "leaf01"):  # a killed holder leaves no stale lock
        pass


def test_a_switch_name_that_would_leave_the_lock_folder_is_refused(tmp_path):
    with pytest.raises(PushError, match="no lock file"), switch_lock(tmp_path, "../escape"):
        pass
    assert not (tmp_path.parent / "escape.lock").exists()


def test_every_push_gets_its_own_tag():
    tags = {new_tag() for _ in range(1000)}
    assert len(tags) == 1000
    assert all(re.fullmatch(r"gpunet-\d{8}T\d{6}Z-[0-9a-f]{8}", tag) for tag in tags)
