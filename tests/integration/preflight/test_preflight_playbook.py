"""The preflight stage in a real ansible-playbook run: it passes a clean inventory, and stops the
run on a broken one, reporting the same problems as `gpunet inventory check`, before any host."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES_DIR, REPO_ROOT
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
        "gpu02.gpunet_nics[1].speed_gbps: differs from leaf02 swp2s0's speed (got 200, expected 400)"
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
        "gpu02.gpunet_nics[1].speed_gbps: differs from leaf02 swp2s0's speed (got 200, expected 400)"
        in run.stdout
    )
    assert "unreachable=1" not in run.stdout
    assert "PLAY [Base - GPU nodes]" not in run.stdout


def test_site_renders_after_its_preflight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The preflight's registered result lands on every host (run_once); the render stage that
    # follows in the same run must not take it for an inventory key.
    # The fact cache knows prod's host names (the lab's gpu01-gpu04 share them, and ansible.cfg's
    # jsonfile cache is keyed by name): even then a render-only run reaches no host. It once did:
    # the stages' package read was tagged `always` and ran on gpu01 at 192.0.2.101.
    facts = tmp_path / "facts"
    facts.mkdir()
    for host in ("gpu01", "gpu02"):
        (facts / host).write_text(json.dumps({"ansible_os_family": "Debian", "module_setup": True}))
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN_CONNECTION", str(facts))
    out = tmp_path / "intended"
    run = run_playbook(
        "site.yml", "-i", "inventories/prod", "--vault-password-file", "inventories/prod/vault-password.txt",
        "--tags", "render", "-e", f"render_out_dir={out}",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Read the packages installed" not in run.stdout, "a render-only run reached the hosts"
    committed = REPO_ROOT / "intended" / "prod"
    assert sorted(p.name for p in out.glob("*.cfg")) == sorted(p.name for p in committed.glob("*.cfg"))
    for config in committed.glob("*.cfg"):
        assert (out / config.name).read_text() == config.read_text(), config.name


def test_preflight_checks_again_after_a_host_var_breaks_a_passed_inventory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second run answers from the kept check (check_reuse.py) with the same summary; an edited
    host_var is checked afresh and stops the run."""
    monkeypatch.setenv("GPUNET_PARSE_CACHE", str(tmp_path / "cache"))
    inventory = tmp_path / "inventory"
    shutil.copytree(REPO_ROOT / "inventories" / "lab", inventory)
    summary = "fabric lab: 4 GPU hosts, 3 switches, 8 NICs"
    for _ in range(2):
        run = run_playbook("playbooks/preflight.yml", "-i", str(inventory))
        assert run.returncode == 0, run.stdout + run.stderr
        assert summary in run.stdout
    assert any(path.is_file() for path in (tmp_path / "cache").iterdir())
    host_file = inventory / "host_vars" / "leaf01.yml"
    host_file.write_text(host_file.read_text().replace('peer: "gpu01:mlx5_0"', 'peer: "gpu01:mlx5_9"', 1))
    broken = run_playbook("playbooks/preflight.yml", "-i", str(inventory))
    assert broken.returncode != 0
    assert "failed=1" in broken.stdout
    assert "mlx5_9" in broken.stdout


def test_preflight_on_a_planned_folder_of_thousands_of_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's path at scale: a fork pool that parsed large folders in workers (dd761056,
    reverted) hung this play inside Ansible's WorkerProcess, which the small fixtures never show."""
    from gpunet.cli import main

    inventory = tmp_path / "planned"
    assert main(["plan", "--gpus", "20480", "--switch-radix", "64", "--write-inventory", str(inventory)]) == 0
    assert sum(1 for path in inventory.rglob("*.yml")) > 4000
    monkeypatch.setenv("GPUNET_PARSE_CACHE", "off")  # a cold read: every file parsed
    monkeypatch.setenv("HOME", str(tmp_path))
    run = run_playbook("playbooks/preflight.yml", "-i", str(inventory), timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2560 GPU hosts" in run.stdout, run.stdout[-3000:]
