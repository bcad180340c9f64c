"""The firewall role's openings and nftables template, rendered with Ansible's templar from the role's
own defaults and parsed by the real nft.

`nft -c` only parses and checks the ruleset (nothing is loaded); it is skipped where nft is absent.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpunet.hosts.firewall import OpeningError, openings_by_family, port_text
from tests.conftest import REPO_ROOT
from tests.unit.roles.templar import render_role_template, role_defaults

ROLE = REPO_ROOT / "roles/firewall"
FABRIC = {
    "name": "t",
    "ntp": {"servers": ["192.0.2.1"]},
    "firewall": {"fabric_cidrs": ["198.51.100.0/24"], "mgmt_cidrs": ["192.0.2.0/24", "2001:db8:100::/48"]},
}
NICS = [{"name": f"mlx5_{rail}", "rail": rail} for rail in range(8)]


def host_vars(ssh_client: str = "", **overrides: Any) -> dict[str, Any]:
    values = {"gpunet_fabric": FABRIC, "gpunet_nics": NICS, "ansible_managed": "Ansible managed"}
    values |= role_defaults(ROLE)
    values |= {"firewall_ssh_client": ssh_client, "firewall_ssh_port": 22} | overrides
    return values


def openings(**kwargs: Any) -> list[dict[str, Any]]:
    text = render_role_template(ROLE / "templates/openings.yml.j2", host_vars(**kwargs))
    return openings_by_family(yaml.safe_load(text))


def render(ssh_client: str = "", **overrides: Any) -> str:
    values = host_vars(ssh_client, **overrides)
    values["firewall_openings"] = openings(ssh_client=ssh_client, **overrides)
    return render_role_template(ROLE / "templates/gpunet.nft.j2", values)


def rules(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "accept" in line or "drop" in line]


def test_established_traffic_and_the_deploy_session_come_before_anything_else() -> None:
    lines = rules(render(ssh_client="203.0.113.7"))
    assert lines[0] == "type filter hook input priority filter; policy drop;"
    assert lines[1] == "ct state established,related accept"
    session = 'ip saddr { 203.0.113.7/32 } tcp dport 22 accept comment "SSH session of the deploy"'
    assert session in lines
    assert lines.index(session) < next(i for i, line in enumerate(lines) if "RoCEv2" in line)


@pytest.mark.parametrize(
    ("ssh_client", "expected"),
    [("2001:db8:ffff::9", "ip6 saddr { 2001:db8:ffff::9/128 } tcp dport 22"), ("", None)],
)
def test_ssh_client_rule_per_family(ssh_client: str, expected: str | None) -> None:
    text = render(ssh_client=ssh_client)
    if expected:
        assert expected in text
    else:
        assert "SSH session of the deploy" not in text


# (comment, rule expected with the role's defaults over FABRIC): every named opening and its networks.
DEFAULT_RULES = [
    ("RoCEv2", "ip saddr { 198.51.100.0/24 } udp dport 4791"),
    # NCCL: the fabric networks *and* the bootstrap (socket) network, by default mgmt_cidrs.
    ("NCCL", "ip saddr { 198.51.100.0/24, 192.0.2.0/24 } tcp dport 50000-51000"),
    ("NCCL", "ip6 saddr { 2001:db8:100::/48 } tcp dport 50000-51000"),
    ("perftest", "ip saddr { 198.51.100.0/24 } tcp dport 18515-18546"),  # 8 rails, 4 incast senders each
    ("SSH", "ip6 saddr { 2001:db8:100::/48 } tcp dport 22"),
    ("gpunet verify", "ip saddr { 198.51.100.0/24, 192.0.2.0/24 } tcp dport 5201"),
    ("Slurm daemons", "ip saddr { 192.0.2.0/24 } tcp dport 6817"),
    ("Slurm daemons", "ip saddr { 192.0.2.0/24 } tcp dport 6818"),
    ("Slurm srun (SrunPortRange)", "ip saddr { 192.0.2.0/24 } tcp dport 60001-63000"),
    ("Open MPI control and TCP", "ip saddr { 192.0.2.0/24 } tcp dport 46000-46999"),
    ("PyTorch rendezvous", "ip saddr { 192.0.2.0/24 } tcp dport 29400"),
    ("PyTorch rendezvous", "ip saddr { 192.0.2.0/24 } tcp dport 29500"),
    ("Prometheus node_exporter", "ip saddr { 192.0.2.0/24 } tcp dport 9100"),
    ("NVIDIA DCGM exporter", "ip6 saddr { 2001:db8:100::/48 } tcp dport 9400"),
]


@pytest.mark.parametrize(("comment", "rule"), DEFAULT_RULES, ids=[f"{c}:{r}" for c, r in DEFAULT_RULES])
def test_default_openings(comment: str, rule: str) -> None:
    assert f'{rule} accept comment "{comment}"' in rules(render())


def test_nothing_opens_without_sources_and_disabled_services_close() -> None:
    lines = rules(render(firewall_slurm_enabled=False, firewall_monitoring_cidrs=[]))
    assert not any("Slurm" in line or "exporter" in line for line in lines)
    assert not any("dport 123" in line for line in lines)  # no NTP clients: no NTP opening
    assert any("udp dport 123" in line for line in rules(render(firewall_ntp_client_cidrs=["10.0.0.0/8"])))


def test_a_host_without_nics_opens_perftest_on_one_port() -> None:
    """An NTP server or login node has no gpunet_nics: perftest's range collapses to [18515]."""
    lines = rules(render(gpunet_nics=[]))
    assert 'ip saddr { 198.51.100.0/24 } tcp dport 18515 accept comment "perftest"' in lines


def test_an_explicit_socket_network_is_opened_for_nccl() -> None:
    fabric = FABRIC | {"firewall": FABRIC["firewall"] | {"nccl_socket_cidrs": ["10.20.0.0/16"]}}
    nccl = [rule for rule in openings(gpunet_fabric=fabric) if rule["name"] == "nccl"]
    assert nccl[0]["sources"] == ["198.51.100.0/24", "10.20.0.0/16"]


@pytest.mark.parametrize(
    ("ports", "text"),
    [(5201, "5201"), ("22", "22"), ([50000, 51000], "50000-51000"), ([9, 9], "9"), ([18515], "18515")],
)
def test_port_text(ports: Any, text: str) -> None:
    assert port_text(ports) == text


@pytest.mark.parametrize("ports", [[2, 1], [0, 5], 70000, [1, 2, 3], "a-b", []])
def test_bad_ports_are_refused(ports: Any) -> None:
    with pytest.raises(OpeningError):
        port_text(ports)


def test_firewalld_and_ufw_get_the_same_openings_as_nftables() -> None:
    """Both tasks loop over firewall_openings, the list the nft template prints."""
    for backend in ("firewalld", "ufw"):
        tasks = yaml.safe_load((ROLE / f"tasks/{backend}.yml").read_text())
        assert tasks[0]["loop"].startswith("{{ firewall_openings |")


@pytest.mark.skipif(shutil.which("nft") is None, reason="nft is not installed")
def test_real_nft_accepts_the_ruleset(tmp_path: Path) -> None:
    ruleset = tmp_path / "gpunet.nft"
    ruleset.write_text(render(ssh_client="203.0.113.7", firewall_ntp_client_cidrs=["10.0.0.0/8", "fd00::/8"]))
    check = subprocess.run(["nft", "-c", "-f", str(ruleset)], capture_output=True, text=True, check=False)
    if check.returncode != 0 and "Operation not permitted" in check.stderr:
        pytest.skip("nft -c needs CAP_NET_ADMIN here")
    assert check.returncode == 0, check.stderr
