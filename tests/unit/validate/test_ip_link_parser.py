"""The `ip-link-json` parser (verify_host's `ip -j link show dev <netdev>` of each RDMA netdev)
against iproute2's JSON layout.

The layout follows iproute2's printers (iproute2/iproute2 ee2a4a8: lib/json_print.c new_json_obj,
one array; ip/ipaddress.c print_linkinfo, print_link_flags, print_operstate; lib/utils.c
print_name_and_link) and what iproute2 6.1 prints here for `lo` (one line, and indented with
`-p`); the ConnectX netdev's values are made up in that layout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpunet.validate.parsers import ParseError, parse

CX7 = (
    '[{"ifindex":6,"ifname":"enp24s0np0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9000,'
    '"qdisc":"mq","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":"ether",'
    '"address":"b8:3f:d2:00:18:01","broadcast":"ff:ff:ff:ff:ff:ff","altnames":["enp24s0f0np0"]}]\n'
)
# `ip -j -p link show dev lo` of iproute2 6.1 (print_link_flags' array on one line, 4-space indent).
PRETTY_LO = """[ {
        "ifindex": 1,
        "ifname": "lo",
        "flags": [ "LOOPBACK","UP","LOWER_UP" ],
        "mtu": 65536,
        "qdisc": "noqueue",
        "operstate": "UNKNOWN",
        "linkmode": "DEFAULT",
        "group": "default",
        "txqlen": 1000,
        "link_type": "loopback",
        "address": "00:00:00:00:00:00",
        "broadcast": "00:00:00:00:00:00"
    } ]
"""
# Cable pulled: print_link_flags puts NO-CARRIER first, the kernel's operstate is DOWN.
NO_CARRIER = (
    '[{"ifindex":7,"ifname":"enp42s0np0","flags":["NO-CARRIER","BROADCAST","MULTICAST","UP"],"mtu":1500,'
    '"qdisc":"mq","operstate":"DOWN","linkmode":"DEFAULT","group":"default","txqlen":1000,'
    '"link_type":"ether","address":"b8:3f:d2:00:18:02","broadcast":"ff:ff:ff:ff:ff:ff"}]\n'
)
# `ip -j -br link show`: print_linkinfo_brief prints no mtu.
BRIEF = (
    '[{"ifname":"enp24s0np0","operstate":"UP","address":"b8:3f:d2:00:18:01",'
    '"flags":["BROADCAST","MULTICAST","UP","LOWER_UP"]}]\n'
)
# `ip -j addr show dev`: the same link object with addr_info beside.
ADDR = (
    '[{"ifindex":6,"ifname":"enp24s0np0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":4200,'
    '"qdisc":"mq","operstate":"UP","group":"default","txqlen":1000,"link_type":"ether",'
    '"address":"b8:3f:d2:00:18:01","broadcast":"ff:ff:ff:ff:ff:ff","addr_info":[{"family":"inet",'
    '"local":"10.0.0.1","prefixlen":31,"scope":"global","valid_life_time":4294967295,'
    '"preferred_life_time":4294967295}]}]\n'
)
# A link on another (a VLAN): print_name_and_link adds `link` beside ifname.
VLAN = (
    '[{"ifindex":9,"ifname":"enp24s0np0.100","link":"enp24s0np0","flags":["BROADCAST","MULTICAST","UP",'
    '"LOWER_UP"],"mtu":8996,"qdisc":"noqueue","operstate":"UP","group":"default","link_type":"ether",'
    '"address":"b8:3f:d2:00:18:01","broadcast":"ff:ff:ff:ff:ff:ff"}]\n'
)

# (case, text, the parsed links)
LAYOUTS: list[tuple[str, str, list[dict[str, Any]]]] = [
    (
        "ConnectX netdev, one line",
        CX7,
        [
            {
                "ifname": "enp24s0np0",
                "ifindex": 6,
                "mtu": 9000,
                "operstate": "UP",
                "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
                "link_type": "ether",
                "address": "b8:3f:d2:00:18:01",
            }
        ],
    ),
    (
        "indented with -p",
        PRETTY_LO,
        [
            {
                "ifname": "lo",
                "ifindex": 1,
                "mtu": 65536,
                "operstate": "UNKNOWN",
                "flags": ["LOOPBACK", "UP", "LOWER_UP"],
                "link_type": "loopback",
                "address": "00:00:00:00:00:00",
            }
        ],
    ),
    (
        "no carrier",
        NO_CARRIER,
        [
            {
                "ifname": "enp42s0np0",
                "ifindex": 7,
                "mtu": 1500,
                "operstate": "DOWN",
                "flags": ["NO-CARRIER", "BROADCAST", "MULTICAST", "UP"],
                "link_type": "ether",
                "address": "b8:3f:d2:00:18:02",
            }
        ],
    ),
    (
        "brief: no mtu",
        BRIEF,
        [
            {
                "ifname": "enp24s0np0",
                "ifindex": None,
                "mtu": None,
                "operstate": "UP",
                "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
                "link_type": None,
                "address": "b8:3f:d2:00:18:01",
            }
        ],
    ),
    ("addr show", ADDR, [{"ifname": "enp24s0np0", "mtu": 4200}]),
    ("a VLAN on the netdev", VLAN, [{"ifname": "enp24s0np0.100", "mtu": 8996}]),
    ("two links", CX7.strip()[:-1] + "," + NO_CARRIER.strip()[1:], [{"mtu": 9000}, {"mtu": 1500}]),
    ("no link", "[]\n", []),
]


@pytest.mark.parametrize(("text", "links"), [c[1:] for c in LAYOUTS], ids=[c[0] for c in LAYOUTS])
def test_layouts(text: str, links: list[dict[str, Any]]) -> None:
    parsed = parse("ip-link-json", text)["links"]
    assert len(parsed) == len(links)
    for got, want in zip(parsed, links, strict=True):
        assert {key: got[key] for key in want} == want


# (case, text, words of the error)
ERRORS: list[tuple[str, str, str]] = [
    ("ip's error alone (no such netdev)", 'Device "enp24s0np0" does not exist.\n', "not a JSON array"),
    (
        "verify_host's line for a missing ip",
        "gpunet verify: `ip -j link show dev enp24s0np0` exited 127: No such file\n",
        "not a JSON array",
    ),
    ("empty", "", "not a JSON array"),
    ("cut", CX7[:80], "not JSON (a cut capture?)"),
    ("an object, not the array", CX7.strip()[1:-1], "not a JSON array"),
    ("stderr after the array", CX7 + "Warning: something\n", "text after the JSON array: 'Warning"),
    ("the same capture twice", CX7 + CX7, "a duplicated capture"),
    ("a second document", CX7 + NO_CARRIER, "text after the JSON array: a second document"),
    ("a key twice", CX7.replace('"mtu":9000', '"mtu":9000,"mtu":1500'), "key 'mtu' twice"),
    ("no ifname", CX7.replace('"ifname":"enp24s0np0",', ""), "link 1 has no ifname"),
    ("a link that is no object", '["enp24s0np0"]', "link 1 is not an object"),
    ("mtu as text", CX7.replace('"mtu":9000', '"mtu":"9000"'), "enp24s0np0: mtu '9000' is not a whole"),
    ("mtu fractional", CX7.replace('"mtu":9000', '"mtu":9000.5'), "mtu 9000.5 is not a whole number"),
    ("mtu boolean", CX7.replace('"mtu":9000', '"mtu":true'), "mtu True is not a whole number"),
    ("flags not a list", CX7.replace('["BROADCAST","MULTICAST","UP","LOWER_UP"]', '"UP"'), "flags is not"),
    ("operstate a number", CX7.replace('"operstate":"UP"', '"operstate":6'), "operstate 6 is not a str"),
]


@pytest.mark.parametrize(("text", "words"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_errors(text: str, words: str) -> None:
    with pytest.raises(ParseError) as error:
        parse("ip-link-json", text)
    assert words in str(error.value) and "\n" not in str(error.value)


@pytest.mark.skipif(shutil.which("ip") is None, reason="no iproute2 ip on this machine")
@pytest.mark.parametrize("options", [["-j"], ["-j", "-p"]], ids=["one line", "indented"])
def test_this_machines_ip_reads_like_sysfs(options: list[str]) -> None:
    """iproute2 here, on the loopback: the parsed MTU is the kernel's (sysfs)."""
    done = subprocess.run(["ip", *options, "link", "show", "dev", "lo"], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"ip {' '.join(options)} refused: {done.stderr.strip()}")  # iproute2 before JSON
    json.loads(done.stdout)
    (link,) = parse("ip-link-json", done.stdout)["links"]
    assert (link["ifname"], link["mtu"]) == ("lo", int(Path("/sys/class/net/lo/mtu").read_text()))
