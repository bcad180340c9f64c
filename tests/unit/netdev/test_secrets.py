"""Every secret form each OS prints is masked in a backup, and nothing else changes
(table-driven per OS; SONiC's config_db stays JSON)."""

from __future__ import annotations

import json

import pytest

from gpunet.netdev.secrets import MASK, mask_secrets

CLI_CASES = {
    "nxos": [
        ("username admin password 5 $5$abc$def role network-admin",
         "username admin password 5 <masked> role network-admin"),
        ("snmp-server user admin network-admin auth md5 0x8e3c5f2a priv 0x7d9e localizedkey",
         "snmp-server user admin network-admin auth md5 <masked> priv <masked> localizedkey"),
        ("snmp-server user ops network-operator auth sha 0x11aa priv aes-128 0x22bb localizedkey",
         "snmp-server user ops network-operator auth sha <masked> priv aes-128 <masked> localizedkey"),
        ("ntp authentication-key 1 md5 wawyhanx 7", "ntp authentication-key 1 md5 <masked>"),
        ("snmp-server community public group network-operator",
         "snmp-server community <masked> group network-operator"),
        ("tacacs-server key 7 0822455D0A16", "tacacs-server key 7 <masked>"),
        ("interface Ethernet1/1", "interface Ethernet1/1"),
        ("  priority-flow-control mode on", "  priority-flow-control mode on"),
    ],
    "eos": [
        ("username admin privilege 15 role network-admin secret sha512 $6$xyz",
         "username admin privilege 15 role network-admin secret sha512 <masked>"),
        ("snmp-server user ops ro v3 localized 0000 auth sha 2f4c priv aes 9a8b",
         "snmp-server user ops ro v3 localized 0000 auth sha <masked> priv aes <masked>"),
        ("ntp authentication-key 1 md5 7 0819455D4A", "ntp authentication-key 1 md5 <masked>"),
        ("   bandwidth percent 60", "   bandwidth percent 60"),
    ],
    "junos": [
        ('set system root-authentication encrypted-password "$6$q"',
         "set system root-authentication encrypted-password <masked>"),
        ('set system ntp authentication-key 1 type md5 value "$9$abc"',
         "set system ntp authentication-key 1 type md5 value <masked>"),
        ("set snmp community public authorization read-only",
         "set snmp community <masked> authorization read-only"),
        ("set class-of-service schedulers sch-roce transmit-rate percent 60",
         "set class-of-service schedulers sch-roce transmit-rate percent 60"),
    ],
    "cumulus": [
        ("nv set system aaa user cumulus hashed-password '$6$abc'",
         "nv set system aaa user cumulus hashed-password <masked>"),
        ("nv set service snmp-server readonly-community public access any",
         "nv set service snmp-server readonly-community <masked> access any"),
        ("nv set system aaa tacacs server 1 secret mysecret",
         "nv set system aaa tacacs server 1 secret <masked>"),
        ("nv set qos pfc gpunet-pfc-3m switch-priority 3", "nv set qos pfc gpunet-pfc-3m switch-priority 3"),
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("platform", "line", "expected"),
    [(platform, line, expected) for platform, cases in CLI_CASES.items() for line, expected in cases],
)
def test_cli_secret_forms_are_masked(platform, line, expected):
    assert mask_secrets(line) == expected, platform
    assert mask_secrets(expected) == expected  # masking twice changes nothing


SONIC_RUNNING = {
    "TACPLUS": {"global": {"auth_type": "pap", "passkey": "tacacs-secret"}},
    "TACPLUS_SERVER": {"192.0.2.5": {"priority": "1", "passkey": "server-secret"}},
    "RADIUS": {"global": {"passkey": "radius-secret"}},
    "RADIUS_SERVER": {"192.0.2.6": {"passkey": "rs-secret", "auth_port": "1812"}},
    "NTP_KEY": {"1": {"type": "md5", "value": "ntp-secret", "trusted": "yes"}},
    "SNMP_USER": {"ops": {"SNMP_USER_AUTH_PASSWORD": "auth-secret",
                          "SNMP_USER_ENCRYPTION_PASSWORD": "enc-secret", "SNMP_USER_AUTH_TYPE": "SHA"}},
    "SNMP_COMMUNITY": {"s3cr3t-community": {"TYPE": "RO"}},
    "PORT": {"Ethernet0": {"mtu": "9216"}},
}  # fmt: skip


def test_sonic_config_db_secrets_are_masked_and_it_stays_json():
    masked = json.loads(mask_secrets(json.dumps(SONIC_RUNNING)))
    text = json.dumps(masked)
    for secret in ("tacacs-secret", "server-secret", "radius-secret", "rs-secret", "ntp-secret",
                   "auth-secret", "enc-secret", "s3cr3t-community"):  # fmt: skip
        assert secret not in text
    assert masked["TACPLUS"]["global"] == {"auth_type": "pap", "passkey": MASK}
    assert masked["NTP_KEY"]["1"] == {"type": "md5", "value": MASK, "trusted": "yes"}
    assert masked["SNMP_USER"]["ops"]["SNMP_USER_AUTH_TYPE"] == "SHA"
    assert masked["SNMP_COMMUNITY"] == {f"{MASK}-1": {"TYPE": "RO"}}
    assert masked["PORT"] == SONIC_RUNNING["PORT"]
