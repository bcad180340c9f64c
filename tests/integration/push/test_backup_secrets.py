"""The push's backup of a switch that holds secrets, against the simulator (real SSH): every secret
form the OS prints in its running config is masked in the backup (SONiC's config_db stays JSON),
while the switch keeps its secrets (the push never sends the masked text back), takes the intent,
and has nothing of the push left on it. The masking rules themselves are table-tested per OS in
tests/unit/netdev/test_secrets.py; this proves the push writes its backups through them."""

from __future__ import annotations

import copy
import json

import pytest

from gpunet.netdev.push import push_switch
from gpunet.netdev.secrets import MASK
from tests.integration.push.test_interrupts import leftovers
from tests.integration.push.test_push import OPTIONS, connection, missing_from, running

# platform -> (running-config lines an operator configured, the secrets they print). The forms are
# the ones issue 27 found in clear in backups (NX-OS/EOS SNMPv3 users and NTP keys).
CLI_SECRETS = {
    "nxos": [
        ("snmp-server user ops network-operator auth sha 0x11aa22bb priv aes-128 0x33cc44dd localizedkey",
         ["0x11aa22bb", "0x33cc44dd"]),
        ("ntp authentication-key 1 md5 wawyhanx 7", ["wawyhanx"]),
        ("username admin password 5 $5$Zs1t$k3yHa5h role network-admin", ["$5$Zs1t$k3yHa5h"]),
    ],
    "eos": [
        ("snmp-server user ops ro v3 localized 0000 auth sha 2f4c9e1d priv aes 9a8b7c6d",
         ["2f4c9e1d", "9a8b7c6d"]),
        ("ntp authentication-key 1 md5 7 0819455D4A", ["0819455D4A"]),
    ],
    "cumulus": [
        ("nv set system aaa tacacs server 1 secret tacacs-s3cret", ["tacacs-s3cret"]),
        ("nv set service snmp-server readonly-community c0mmunity-s3cret access any", ["c0mmunity-s3cret"]),
    ],
    "junos": [
        ('set system root-authentication encrypted-password "$6$r00tHa5h"', ["$6$r00tHa5h"]),
        ('set system ntp authentication-key 1 type md5 value "$9$ntpK3y"', ["$9$ntpK3y"]),
        ("set snmp community c0mmunity-s3cret authorization read-only", ["c0mmunity-s3cret"]),
    ],
}  # fmt: skip
# SONiC: config_db tables (JSON) holding secrets, and the secrets.
SONIC_SECRETS = (
    {
        "TACPLUS": {"global": {"auth_type": "pap", "passkey": "tacacs-s3cret"}},
        "RADIUS": {"global": {"passkey": "radius-s3cret"}},
        "SNMP_COMMUNITY": {"c0mmunity-s3cret": {"TYPE": "RO"}},
    },
    ["tacacs-s3cret", "radius-s3cret", "c0mmunity-s3cret"],
)
# (platform, what the operator configured, the secrets it prints)
CASES = [
    *[
        (platform, [line for line, _ in rows], [secret for _, printed in rows for secret in printed])
        for platform, rows in CLI_SECRETS.items()
    ],
    ("sonic", *SONIC_SECRETS),
]


@pytest.mark.parametrize(("platform", "configured", "secrets"), CASES, ids=[case[0] for case in CASES])
def test_the_backup_masks_the_switchs_secrets_and_the_switch_keeps_them(
    fleet, start, backups, platform, configured, secrets
):
    target = start(platform)

    def configure() -> None:
        config = target.sim.state.config
        if platform == "sonic":
            config.update(configured)
        else:
            config[1:1] = list(configured)  # after the host name, as an operator configured them
        target.sim.state.startup = copy.deepcopy(config)

    fleet.call(configure)
    holding = running(fleet, target)
    result = push_switch(
        target.switch, target.intended, connection(), check_mode=False, backup_root=backups, options=OPTIONS
    )
    assert result.changed and result.backup is not None
    backup = result.backup.read_text()
    assert [secret for secret in secrets if secret in backup] == []
    assert backup.count(MASK) >= len(secrets)
    if platform == "sonic":
        masked = json.loads(backup)  # still JSON
        assert masked["TACPLUS"]["global"] == {"auth_type": "pap", "passkey": MASK}
        assert masked["SNMP_COMMUNITY"] == {f"{MASK}-1": {"TYPE": "RO"}}
    # The switch keeps its secrets, in clear, and takes the intent; nothing of the push is left.
    after = running(fleet, target)
    if platform == "sonic":
        assert {table: after.get(table) for table in configured} == {t: holding[t] for t in configured}
    else:
        assert [line for line in configured if line not in after] == []
    assert missing_from(after, target.intended, platform) == []
    assert leftovers(fleet, target) == {}
