"""The preflight stage in a real ansible-playbook run: it passes a clean inventory, and stops the
run on a broken one, reporting the same problems as `gpunet inventory check`, before any host."""

from __future__ import annotations

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
