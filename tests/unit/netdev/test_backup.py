"""Backups: backups/<switch>/<UTC timestamp>.cfg, with secrets masked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpunet.netdev.backup import mask_secrets, write_backup


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("username admin password 5 $5$abc$def role network-admin",
         "username admin password 5 <masked> role network-admin"),
        ("username admin secret sha512 $6$xyz", "username admin secret sha512 <masked>"),
        ('set system login encrypted-password "$6$q"', "set system login encrypted-password <masked>"),
        ("snmp-server community public ro", "snmp-server community <masked> ro"),
        ("tacacs-server key 7 0822455D0A16", "tacacs-server key 7 <masked>"),
        ("interface Ethernet1/1", "interface Ethernet1/1"),
        ("mtu 9216", "mtu 9216"),
    ],
)  # fmt: skip
def test_mask_secrets(line, expected):
    assert mask_secrets(line) == expected


def test_backup_path_and_content(tmp_path):
    when = datetime(2026, 11, 29, 16, 1, 2, 345678, tzinfo=UTC)
    path = write_backup(tmp_path, "leaf01", "hostname leaf01\nusername a password 5 $5$h\n", when)
    assert path == tmp_path / "leaf01" / "20261129T160102.345678Z.cfg"
    assert path.read_text() == "hostname leaf01\nusername a password 5 <masked>\n"
