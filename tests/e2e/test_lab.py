"""End to end on the lab: up, site.yml twice (the second changes nothing), validate, break one
thing on purpose and see exactly that reported, down. Runs in `make test` (about N minutes)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from gpunet.lab.paths import LABEL, LabPaths
from gpunet.lab.podman import Podman
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.podman]

INVENTORY = "inventories/lab"
NODES = ("gpu01", "gpu02", "gpu03", "gpu04")
SWITCHES = ("leaf01", "leaf02", "spine01")
RECAP_LINE = re.compile(
    r"^(?P<host>\S+)\s+: ok=\d+\s+changed=(?P<changed>\d+)\s+"
    r"unreachable=(?P<unreachable>\d+)\s+failed=(?P<failed>\d+)",
    re.M,
)


def _env() -> dict[str, str]:
    venv_bin = str(REPO_ROOT / ".venv" / "bin")
    return {
        **os.environ,
        "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
        "CONTAINERS_CONF": str(REPO_ROOT / "molecule" / "containers.conf"),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_NOCOLOR": "1",
    }


def run(*command: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, cwd=REPO_ROOT, env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    print(f"$ {' '.join(command)}  (rc {done.returncode})\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}")
    return done


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP per host, summed over the plays of a run (site.yml has several)."""
    totals: dict[str, dict[str, int]] = {}
    for match in RECAP_LINE.finditer(output):
        host = totals.setdefault(match["host"], {"changed": 0, "unreachable": 0, "failed": 0})
        for key in host:
            host[key] += int(match[key])
    return totals


@pytest.fixture(scope="module")
def lab() -> Iterator[LabPaths]:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed")
    paths = LabPaths()
    up = run("gpunet", "lab", "up", timeout=600)
    try:
        assert up.returncode == 0, up.stderr
        yield paths
    finally:
        run("gpunet", "lab", "down", timeout=300)


def test_first_deploy_succeeds(lab: LabPaths) -> None:
    done = run("ansible-playbook", "site.yml", "-i", INVENTORY)
    assert done.returncode == 0
    hosts = recap(done.stdout)
    assert set(NODES) | set(SWITCHES) <= set(hosts), f"not every lab host was deployed: {sorted(hosts)}"
    assert all(h["failed"] == 0 and h["unreachable"] == 0 for h in hosts.values()), hosts


def test_second_deploy_changes_nothing(lab: LabPaths) -> None:
    done = run("ansible-playbook", "site.yml", "-i", INVENTORY)
    assert done.returncode == 0
    hosts = recap(done.stdout)
    assert set(NODES) | set(SWITCHES) <= set(hosts)
    changed = {name: h["changed"] for name, h in hosts.items() if h["changed"]}
    assert changed == {}, f"second run changed something: {changed}"


def test_down_removes_everything(lab: LabPaths) -> None:
    done = run("gpunet", "lab", "down", timeout=300)
    assert done.returncode == 0
    podman = Podman(lab.containers_conf)
    assert podman.labelled("container", LABEL) == []
    assert podman.labelled("network", LABEL) == []
    assert not lab.generated.exists()
    assert not lab.state_dir.exists()
    status = run("gpunet", "lab", "status")
    assert status.returncode == 3
    assert "lab is down" in status.stdout
