"""Secrets in a running config, masked before a backup reaches disk.

CLI forms (NX-OS, EOS, Junos `set`, Cumulus `nv set`): each rule keeps the words that say what
the secret is and masks its value. SONiC config_db (JSON): the fields SONiC's YANG models declare
as secrets, and SNMP community names, which are keys there (sonic-buildimage 086b03bd
src/sonic-yang-models: sonic-system-tacacs.yang and sonic-system-radius.yang `passkey`,
sonic-ntp.yang NTP_KEY `value`, sonic-snmp.yang SNMP_USER `SNMP_USER_AUTH_PASSWORD`,
`SNMP_USER_ENCRYPTION_PASSWORD` and SNMP_COMMUNITY keyed by the community name).
"""

from __future__ import annotations

import json
import re
from typing import Any

MASK = "<masked>"

# (what it covers, pattern: `keep` stays, `value` is masked). Order matters: the specific forms
# first, so the generic one never sees their values.
CLI_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        # NX-OS `ntp authentication-key 1 md5 <key> 7`, EOS `ntp authentication-key 1 md5 7 <key>`
        # (Cisco NX-OS System Management guide, NTP; Arista EOS manual, NTP): all after the algorithm
        "ntp authentication-key",
        re.compile(
            r"(?P<keep>\bauthentication-key\s+\d+\s+(?:md5|sha\d*)\s+)(?P<value>.+?)\s*$", re.I | re.M
        ),
    ),
    (
        # Junos `set system ntp authentication-key 1 type md5 value "$9$..."`
        "junos ntp key",
        re.compile(
            r"(?P<keep>\bauthentication-key\s+\d+\s+type\s+\S+\s+value\s+)(?P<value>\"[^\"]*\"|\S+)", re.I
        ),
    ),
    (
        # SNMPv3 users: NX-OS `snmp-server user U G auth md5 <pw> priv [aes-128] <pw> [localizedkey]`,
        # EOS `snmp-server user U G v3 [localized ID] auth sha <hash> priv aes <hash>`
        "snmp user auth",
        re.compile(r"(?P<keep>\bauth\s+(?:md5|sha\S*)\s+)(?P<value>\S+)", re.I),
    ),
    (
        "snmp user priv",
        re.compile(r"(?P<keep>\bpriv\s+(?:(?:aes\S*|des\S*|3des)\s+)?)(?P<value>(?!aes|des|3des)\S+)", re.I),
    ),
    (
        # NVUE `hashed-password`, `readonly-community`/`readwrite-community` (Cumulus SNMP)
        "nvue secrets",
        re.compile(
            r"(?P<keep>\b(?:hashed-password|read(?:only|write)-community)\s+)(?P<value>'[^']*'|\S+)", re.I
        ),
    ),
    (
        # password, secret, key, community, passphrase, with an optional type word (5, 7, sha512, md5)
        "generic",
        re.compile(
            r"(?P<keep>(?<![-\w])(?:password|secret|encrypted-password|key|community|passphrase)\b"
            r"(?:\s+(?:\d{1,2}|sha\d+|md5|scrypt))?\s+)"
            r"(?P<value>\"[^\"]*\"|\S+)",
            re.I,
        ),
    ),
]

# SONiC: table -> the fields holding a secret (sonic-yang-models, above)
SONIC_SECRET_FIELDS = {
    "TACPLUS": {"passkey"},
    "TACPLUS_SERVER": {"passkey"},
    "RADIUS": {"passkey"},
    "RADIUS_SERVER": {"passkey"},
    "NTP_KEY": {"value"},
    "SNMP_USER": {"SNMP_USER_AUTH_PASSWORD", "SNMP_USER_ENCRYPTION_PASSWORD"},
}
SONIC_SECRET_KEYS = {"SNMP_COMMUNITY"}  # the entry's key is the secret


def mask_cli(text: str) -> str:
    for _name, pattern in CLI_RULES:
        text = pattern.sub(lambda m: f"{m['keep']}{MASK}" if m["value"] != MASK else m[0], text)
    return text


def mask_config_db(document: dict[str, Any]) -> dict[str, Any]:
    masked: dict[str, Any] = {}
    for table, entries in document.items():
        if not isinstance(entries, dict):
            masked[table] = entries
            continue
        if table in SONIC_SECRET_KEYS:
            masked[table] = {f"{MASK}-{index}": fields for index, fields in enumerate(entries.values(), 1)}
            continue
        secret = SONIC_SECRET_FIELDS.get(table, set())
        masked[table] = {
            key: {f: MASK if f in secret else v for f, v in fields.items()}
            if isinstance(fields, dict)
            else fields
            for key, fields in entries.items()
        }
    return masked


def mask_secrets(text: str) -> str:
    """`text` with every secret masked: a SONiC config_db document stays JSON."""
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError:
            return mask_cli(text)
        if isinstance(document, dict):
            return json.dumps(mask_config_db(document), indent=4, sort_keys=True)
    return mask_cli(text)
