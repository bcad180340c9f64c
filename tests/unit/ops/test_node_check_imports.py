"""gpunet-node-check runs under a GPU node's own Python, with only the libraries a node image
carries (Debian's python3-yaml, python3-prometheus-client, python3-rich: tests/e2e/test_lab_slurm.py
installs exactly these). Run it in a Python that can import nothing else, so a new import on its
path (as orjson once was, through gpunet.validate.report) fails here and not only in the Slurm lab."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.unit.ops.conftest import RECORDED, fake_tool

NODE_LIBRARIES = {"yaml", "_yaml", "prometheus_client", "rich", "markdown_it", "mdurl", "pygments", "gpunet"}

# Refuses every top-level module that is neither the standard library nor a node library.
RUN_WITH_NODE_LIBRARIES = f"""
import runpy, sys
allowed = set(sys.stdlib_module_names) | set({sorted(NODE_LIBRARIES)!r})
class NodeImage:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in allowed:
            raise ModuleNotFoundError(f"No module named {{name!r}} (not on a GPU node)", name=name)
sys.meta_path.insert(0, NodeImage())
sys.argv = ["gpunet-node-check", *sys.argv[1:]]
runpy.run_module("gpunet.nodecheck", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("output_format", ["line", "prometheus"])
def test_node_check_needs_only_the_node_libraries(node: Path, output_format: str) -> None:
    fake_tool(node / "bin", "chronyc", f"cat {RECORDED / 'chronyc-tracking.txt'}")
    argv = ["--expectations", str(node / "expect.json"), "--timeout", "2", "--format", output_format]
    argv += ["--checks", "ntp_offset,firewall_rules,nic_port_state"]
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    run = subprocess.run(
        [sys.executable, "-c", RUN_WITH_NODE_LIBRARIES, *argv],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    assert "No module named" not in run.stdout + run.stderr, run.stdout + run.stderr
    expected = (
        "gpunet: healthy"
        if output_format == "line"
        else 'gpunet_check_results{check="ntp_offset",source="node-check",status="pass"} 1.0'
    )
    assert run.returncode == 0 and expected in run.stdout, run.stdout + run.stderr
