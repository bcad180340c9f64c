"""nccl-tests prints no environment (NCCL_IB_TC, NCCL_IB_HCA), so the incast stage saves the
command line ahead of the output (collect_plan.raw_output, `$ ...`); the parser returns it as
`command`, and incast_alltoall_busbw reads NCCL_IB_TC from it."""

from __future__ import annotations

import pytest

from gpunet.validate.collect_plan import raw_output
from gpunet.validate.parsers.nccl_tests import parse_nccl_tests
from tests.conftest import FIXTURES_DIR

OUTPUT = (FIXTURES_DIR / "artifacts/healthy/nccl/single-gpu01.txt").read_text()
MPIRUN = "$ mpirun -np 3 -x NCCL_IB_TC=106 /opt/nccl-tests/current/alltoall_perf -g 1 -b 1G -e 1G"


@pytest.mark.parametrize(
    ("first_line", "command"),
    [
        (MPIRUN, MPIRUN),
        (
            "$ srun -N 3 --export=ALL,NCCL_IB_TC=106 alltoall_perf -g 1",
            "$ srun -N 3 --export=ALL,NCCL_IB_TC=106 alltoall_perf -g 1",
        ),
        ("", None),  # no command line: a capture nccl-tests wrote itself
        ("NCCL_IB_TC=106 alltoall_perf -g 1", None),  # not a transcript line
    ],
)
def test_the_recorded_command_line(first_line: str, command: str | None) -> None:
    parsed = parse_nccl_tests(f"{first_line}\n{OUTPUT}" if first_line else OUTPUT)
    assert parsed["command"] == command
    assert parsed["rows"] and parsed["complete"]


def test_a_dollar_line_after_the_first_is_not_the_command_line() -> None:
    lines = OUTPUT.splitlines()
    parsed = parse_nccl_tests("\n".join([lines[0], MPIRUN, *lines[1:]]))
    assert parsed["command"] is None


def test_the_saved_capture_round_trips_its_argv() -> None:
    argv = ["mpirun", "-np", "3", "-x", "NCCL_IB_TC=106", "alltoall_perf", "-g", "1"]
    saved = raw_output({"item": {"argv": argv, "file": "x"}, "stdout": OUTPUT, "stderr": "", "rc": 0}, True)
    assert parse_nccl_tests(saved)["command"] == "$ " + " ".join(argv)
