"""`lldpctl -f json` (lldpd's `show neighbors`), table-driven over captures in lldpd's layout.

The layouts are those of lldpd's src/client/json_writer.c json_element_cleanup and
tests/integration/test_lldpcli.py at lldpd/lldpd da2ab0b (one neighbour: `interface` is an
object; several: a list of one-key objects; a chassis keyed by its SysName); the values are ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpunet.cli import main
from gpunet.validate.parsers import ParseError, parse

# A GPU host with one NIC facing a SONiC leaf (lldpd in SONiC's lldp container advertises its
# alias as a locally assigned port id and the port's description), in lldpctl's own indentation.
ONE_NEIGHBOUR = """{
  "lldp": {
    "interface": {
      "ens1f0np0": {
        "via": "LLDP",
        "rid": "1",
        "age": "0 day, 02:11:42",
        "chassis": {
          "leaf01": {
            "id": {
              "type": "mac",
              "value": "0c:42:a1:00:00:01"
            },
            "descr": "SONiC Software Version: SONiC.202311.1 - HwSku: Mellanox-SN4600C-C64",
            "mgmt-ip": "192.0.2.11",
            "mgmt-iface": "4",
            "capability": [
              {
                "type": "Bridge",
                "enabled": true
              },
              {
                "type": "Router",
                "enabled": true
              }
            ]
          }
        },
        "port": {
          "id": {
            "type": "local",
            "value": "Ethernet0"
          },
          "descr": "gpu01:mlx5_0",
          "ttl": "120",
          "mfs": "9236"
        }
      }
    }
  }
}
"""

# A switch (Cumulus, lldpd) with two host neighbours and a spine: a list of one-key objects. Host
# lldpd's default port id is the MAC, with the interface name as its description.
SEVERAL = json.dumps(
    {
        "lldp": {
            "interface": [
                {
                    "swp1": {
                        "via": "LLDP",
                        "rid": "2",
                        "age": "0 day, 00:03:10",
                        "chassis": {"gpu01": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}}},
                        "port": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}, "descr": "ens1f0np0"},
                    }
                },
                {
                    "swp2": {
                        "via": "LLDP",
                        "rid": "3",
                        "age": "0 day, 00:03:09",
                        "chassis": {
                            "gpu02.cluster.example": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:02"}}
                        },
                        "port": {"id": {"type": "ifname", "value": "ens1f0np0"}},
                    }
                },
                {
                    "swp51": {
                        "via": "LLDP",
                        "rid": "4",
                        "age": "12 days, 01:00:00",
                        # No SysName advertised: the chassis is not keyed by a name.
                        "chassis": {
                            "id": {"type": "mac", "value": "1c:34:da:00:00:51"},
                            "descr": "Cumulus Linux",
                        },
                        "port": {"id": {"type": "ifname", "value": "swp1"}, "descr": "to leaf01"},
                    }
                },
            ]
        }
    },
    indent=2,
)

NONE = '{\n  "lldp": {\n    \n  }\n}\n'

JSON0 = json.dumps(
    {
        "lldp": [
            {
                "interface": [
                    {
                        "name": "eth0",
                        "via": "LLDP",
                        "chassis": [{"id": [{"type": "mac", "value": "x"}]}],
                        "port": [{"id": [{"type": "mac", "value": "y"}]}],
                    }
                ]
            }
        ]
    }
)

SHOW_INTERFACES = json.dumps(
    {
        "lldp": {
            "interface": {
                "eth0": {
                    "status": "RX and TX",
                    "chassis": {"gpu01": {"id": {"type": "mac", "value": "x"}}},
                    "port": {"id": {"type": "mac", "value": "x"}},
                }
            }
        }
    }
)


def dig(value, path: str):
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


READS = [
    ("one neighbour: interface", ONE_NEIGHBOUR, "neighbours.0.interface", "ens1f0np0"),
    ("one neighbour: count", ONE_NEIGHBOUR, "neighbours.#", 1),
    ("one neighbour: chassis keyed by SysName", ONE_NEIGHBOUR, "neighbours.0.chassis.name", "leaf01"),
    ("one neighbour: chassis id", ONE_NEIGHBOUR, "neighbours.0.chassis.id.value", "0c:42:a1:00:00:01"),
    ("one neighbour: port id type", ONE_NEIGHBOUR, "neighbours.0.port.id.type", "local"),
    ("one neighbour: port id", ONE_NEIGHBOUR, "neighbours.0.port.id.value", "Ethernet0"),
    ("one neighbour: port descr", ONE_NEIGHBOUR, "neighbours.0.port.descr", "gpu01:mlx5_0"),
    ("one neighbour: via", ONE_NEIGHBOUR, "neighbours.0.via", "LLDP"),
    ("one neighbour: age", ONE_NEIGHBOUR, "neighbours.0.age", "0 day, 02:11:42"),
    ("several: count", SEVERAL, "neighbours.#", 3),
    ("several: order kept", SEVERAL, "neighbours.2.interface", "swp51"),
    ("several: host port by descr", SEVERAL, "neighbours.0.port.descr", "ens1f0np0"),
    ("several: FQDN SysName kept", SEVERAL, "neighbours.1.chassis.name", "gpu02.cluster.example"),
    ("several: port without descr", SEVERAL, "neighbours.1.port.descr", None),
    ("several: unnamed chassis", SEVERAL, "neighbours.2.chassis.name", None),
    ("several: unnamed chassis id", SEVERAL, "neighbours.2.chassis.id.value", "1c:34:da:00:00:51"),
    ("several: unnamed chassis descr", SEVERAL, "neighbours.2.chassis.descr", "Cumulus Linux"),
    ("no neighbour", NONE, "neighbours.#", 0),
    ("CRLF line ends", ONE_NEIGHBOUR.replace("\n", "\r\n"), "neighbours.0.chassis.name", "leaf01"),
]


@pytest.mark.parametrize(("case", "text", "path", "expected"), READS, ids=[r[0] for r in READS])
def test_reads(case: str, text: str, path: str, expected) -> None:
    parsed = parse("lldpctl-json", text)
    if path.endswith(".#"):
        assert len(dig(parsed, path.removesuffix(".#"))) == expected
    else:
        assert dig(parsed, path) == expected


def test_two_neighbours_on_one_interface_are_two_entries() -> None:
    entry = json.loads(SEVERAL)["lldp"]["interface"][0]
    text = json.dumps({"lldp": {"interface": [entry, entry]}})
    assert [n["interface"] for n in parse("lldpctl-json", text)["neighbours"]] == ["swp1", "swp1"]


REFUSED = [
    ("cut in the middle", ONE_NEIGHBOUR[: len(ONE_NEIGHBOUR) // 2], "not JSON (a cut capture?)"),
    ("doubled", ONE_NEIGHBOUR + ONE_NEIGHBOUR, "duplicated capture"),
    (
        "text after it",
        ONE_NEIGHBOUR + "gpunet verify: `lldpctl -f json` exited 1: x\n",
        "text after the JSON",
    ),
    ("daemon not running", "lldpctl: unable to connect to lldpd daemon\n", "not a JSON object"),
    ("empty", "", "not a JSON object"),
    ("json0 variant", JSON0, "json0"),
    ("show interfaces", SHOW_INTERFACES, "no 'via'"),
    ("no lldp key", '{"lldp-med": {}}', "no 'lldp' key"),
    ("other top-level key", '{"lldp": {}, "configuration": {}}', "beside 'lldp'"),
    ("local chassis", '{"lldp": {"local-chassis": {}}}', "'local-chassis'"),
    ("repeated key", '{"lldp": {"interface": {"eth0": {"via": "LLDP", "via": "CDPv2"}}}}', "twice"),
    ("no chassis", '{"lldp": {"interface": {"eth0": {"via": "LLDP", "port": {}}}}}', "no chassis"),
    (
        "no port id",
        '{"lldp": {"interface": {"eth0": {"via": "LLDP", "chassis": {"id": {"type": "mac", "value": "x"}},'
        ' "port": {"descr": "x"}}}}}',
        "port has no id",
    ),
    ("entry not an object", '{"lldp": {"interface": ["eth0"]}}', "not one object"),
    ("interface a string", '{"lldp": {"interface": "eth0"}}', "neither an object nor a list"),
    (
        "via not a string",
        '{"lldp": {"interface": {"eth0": {"via": true, "chassis": {}, "port": {}}}}}',
        "via",
    ),
]


@pytest.mark.parametrize(("case", "text", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_by_name(case: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("lldpctl-json", text)
    message = str(caught.value)
    assert reason in message and "\n" not in message


def test_gpunet_parse_prints_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "lldpctl-json.txt"
    capture.write_text(SEVERAL)
    assert main(["parse", "lldpctl-json", str(capture)]) == 0
    assert len(json.loads(capsys.readouterr().out)["neighbours"]) == 3
    capture.write_text(ONE_NEIGHBOUR[:100])
    assert main(["parse", "lldpctl-json", str(capture)]) == 3
