"""perftest prints no traffic class, so the verify stage saves the command line ahead of the output
(collect_plan.raw_output); the parser reads `--tclass` from it (linux-rdma/perftest
`src/perftest_parameters.c`: long option `tclass`, default traffic_class 0)."""

from __future__ import annotations

import pytest

from gpunet.validate.collect_plan import raw_output
from gpunet.validate.parsers.perftest import parse_perftest
from tests.conftest import FIXTURES_DIR

CAPTURE = (FIXTURES_DIR / "artifacts/healthy/pairs/0/gpu01__gpu02__mlx5_0.ib_write_bw.txt").read_text()
OUTPUT = CAPTURE.split("\n", 1)[1]  # what perftest itself printed


@pytest.mark.parametrize(
    ("first_line", "traffic_class"),
    [
        ("$ ib_write_bw -d mlx5_0 -p 18515 --tclass=106 198.51.100.2", 106),
        ("$ ib_write_bw -d mlx5_0 --tclass 96 198.51.100.2", 96),  # getopt_long takes both forms
        ("ops@gpu01:~$ ib_write_bw -d mlx5_0 -F --report_gbits 198.51.100.2", 0),  # perftest's default
        ("$ timeout 60 ib_read_lat -d mlx5_0 --tclass=106 198.51.100.2", 106),
        ("ib_write_bw: Couldn't connect to 198.51.100.2:18515", None),  # an error, not a command
        ("", None),
    ],
)
def test_traffic_class_from_the_recorded_command_line(first_line: str, traffic_class: int | None) -> None:
    parsed = parse_perftest(f"{first_line}\n{OUTPUT}")
    assert parsed["traffic_class"] == traffic_class
    assert parsed["command"] == (first_line if traffic_class is not None else None)
    assert parsed["results"] and parsed["complete"]


def test_the_saved_capture_starts_with_the_exact_argv() -> None:
    argv = ["ib_write_bw", "-d", "mlx5_0", "-p", "18515", "--tclass=106", "198.51.100.2"]
    result = {"item": {"argv": argv, "file": "x"}, "stdout": OUTPUT, "stderr": "", "rc": 0}
    saved = raw_output(result, command_line=True)
    assert saved.splitlines()[0] == "$ " + " ".join(argv)
    assert parse_perftest(saved)["traffic_class"] == 106
    assert raw_output(result) == OUTPUT  # other tools' captures stay exactly what they printed
