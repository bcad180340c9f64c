"""The firewall role's nftables template: rendered with the role's inputs and parsed by the real nft.

`nft -c` only parses and checks the ruleset (nothing is loaded); it is skipped where nft is absent.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import jinja2
import pytest

from gpunet.hosts.settings import cidrs_by_family
from tests.conftest import REPO_ROOT

TEMPLATE = REPO_ROOT / "roles/firewall/templates/gpunet.nft.j2"


def render(ssh_client: str = "", ntp: list[str] | None = None) -> str:
    values: dict[str, Any] = {
        "ansible_managed": "Ansible managed",
        "firewall_input_policy": "drop",
        "firewall_ssh_client": ssh_client,
        "firewall_ssh_port": 22,
        "firewall_mgmt_nets": cidrs_by_family(["192.0.2.0/24", "2001:db8:100::/48"]),
        "firewall_fabric_nets": cidrs_by_family(["198.51.100.0/24"]),
        "firewall_ntp_nets": cidrs_by_family(ntp or []),
        "firewall_roce_udp_port": 4791,
        "firewall_nccl_port_range": [50000, 51000],
        "firewall_perftest_ports": [18515, 18522],
        "firewall_extra_nft_rules": [],
        "firewall_verify_tcp_ports": [5201],
    }
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env.from_string(TEMPLATE.read_text()).render(values)


def rules(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "accept" in line or "drop" in line]


def test_established_traffic_and_the_deploy_session_come_before_anything_else() -> None:
    lines = rules(render(ssh_client="203.0.113.7"))
    assert lines[0] == "type filter hook input priority filter; policy drop;"
    assert lines[1] == "ct state established,related accept"
    session = 'ip saddr 203.0.113.7 tcp dport 22 accept comment "SSH session of the deploy"'
    assert session in lines
    assert lines.index(session) < next(i for i, line in enumerate(lines) if "RoCEv2" in line)


@pytest.mark.parametrize(
    ("ssh_client", "expected"),
    [("2001:db8:ffff::9", "ip6 saddr 2001:db8:ffff::9 tcp dport 22"), ("", None)],
)
def test_ssh_client_rule_per_family(ssh_client: str, expected: str | None) -> None:
    text = render(ssh_client=ssh_client)
    if expected:
        assert expected in text
    else:
        assert "SSH session of the deploy" not in text


def test_fabric_ports_open_from_fabric_networks_only() -> None:
    lines = rules(render())
    assert 'ip saddr { 198.51.100.0/24 } udp dport 4791 accept comment "RoCEv2"' in lines
    assert 'ip saddr { 198.51.100.0/24 } tcp dport 50000-51000 accept comment "NCCL"' in lines
    assert 'ip saddr { 198.51.100.0/24 } tcp dport 18515-18522 accept comment "perftest"' in lines
    assert 'ip6 saddr { 2001:db8:100::/48 } tcp dport 22 accept comment "SSH"' in lines
    assert (
        'ip saddr { 198.51.100.0/24, 192.0.2.0/24 } tcp dport { 5201 } accept comment "gpunet verify"'
        in lines
    )
    assert not any("dport 123" in line for line in lines)
    assert any("udp dport 123" in line for line in rules(render(ntp=["10.0.0.0/8"])))


@pytest.mark.skipif(shutil.which("nft") is None, reason="nft is not installed")
def test_real_nft_accepts_the_ruleset(tmp_path: Path) -> None:
    ruleset = tmp_path / "gpunet.nft"
    ruleset.write_text(render(ssh_client="203.0.113.7", ntp=["10.0.0.0/8", "fd00::/8"]))
    check = subprocess.run(["nft", "-c", "-f", str(ruleset)], capture_output=True, text=True, check=False)
    if check.returncode != 0 and "Operation not permitted" in check.stderr:
        pytest.skip("nft -c needs CAP_NET_ADMIN here")
    assert check.returncode == 0, check.stderr
