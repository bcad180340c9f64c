"""The preflight stage in a real ansible-playbook run: it passes a clean inventory, and stops the
run on a broken one, reporting the same problems as `gpunet inventory check`, before any host."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES_DIR
from tests.playbook import run_playbook


def test_site_syntax_check_on_the_example_inventory() -> None:
    run = run_playbook("site.yml", "-i", "inventories/prod", "--syntax-check")
    assert run.returncode == 0, run.stdout + run.stderr


def test_preflight_passes_a_clean_inventory() -> None:
    run = run_playbook(
        "playbooks/preflight.yml", "-i", str(FIXTURES_DIR / "inventories" / "valid" / "minimal")
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "fabric minimal: 2 GPU hosts, 3 switches, 4 NICs" in run.stdout


def test_preflight_stops_the_run_on_a_broken_inventory() -> None:
    broken = FIXTURES_DIR / "inventories" / "broken" / "nic_speed_differs"
    run = run_playbook("playbooks/preflight.yml", "-i", str(broken))
    assert run.returncode != 0
    assert (
        "gpu02.gpunet_nics[1].speed_gbps: differs from leaf02 swp2's speed (got 200, expected 400)"
        in run.stdout
    )
    assert "failed=1" in run.stdout


@pytest.mark.parametrize(
    "narrowing",
    [
        pytest.param(("--limit", "gpu01"), id="limit-one-gpu-node"),
        pytest.param(("--tags", "firewall"), id="tags-one-role"),
        pytest.param(("--limit", "gpu02", "--skip-tags", "gpu_stack,base"), id="limit-and-skip-tags"),
    ],
)
def test_site_runs_the_preflight_whatever_limit_and_tags_say(narrowing: tuple[str, ...]) -> None:
    # The broken cabling is on gpu02/leaf02; the check still covers the whole inventory and stops
    # the run before any host is contacted (the fixture's hosts do not exist: reaching one would
    # show up as unreachable).
    broken = FIXTURES_DIR / "inventories" / "broken" / "nic_speed_differs"
    run = run_playbook("site.yml", "-i", str(broken), *narrowing)
    assert run.returncode != 0
    assert "TASK [Check schema and cross-checks of the inventory]" in run.stdout
    assert (
        "gpu02.gpunet_nics[1].speed_gbps: differs from leaf02 swp2's speed (got 200, expected 400)"
        in run.stdout
    )
    assert "unreachable=1" not in run.stdout
    assert "PLAY [Base - GPU nodes]" not in run.stdout
