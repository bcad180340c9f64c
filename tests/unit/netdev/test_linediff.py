"""NX-OS diff: which intended lines the running configuration lacks (merge semantics)."""

from __future__ import annotations

import pytest

from gpunet.netdev.linediff import config_paths, missing_lines

RUNNING = """\
!Command: show running-config
hostname leaf01
interface Ethernet1/1
  mtu 9216
policy-map type qos A
  class X
    set qos-group 3
"""


@pytest.mark.parametrize(
    ("intended", "expected"),
    [
        ("hostname leaf01\n", []),
        ("interface Ethernet1/1\n  mtu 9216\n", []),
        ("interface Ethernet1/1\n  priority-flow-control mode on\n",
         ["  interface Ethernet1/1", "+   priority-flow-control mode on"]),
        ("interface Ethernet1/2\n  mtu 9216\n", ["+ interface Ethernet1/2", "+   mtu 9216"]),
        ("policy-map type qos A\n  class X\n    set qos-group 6\n",
         ["  policy-map type qos A", "    class X", "+     set qos-group 6"]),
        ("policy-map type qos B\n  class X\n    set qos-group 3\n",
         ["+ policy-map type qos B", "+   class X", "+     set qos-group 3"]),
    ],
)  # fmt: skip
def test_missing_lines(intended, expected):
    assert missing_lines(intended, RUNNING) == expected


def test_comment_and_blank_lines_are_not_configuration():
    assert config_paths("!x\n\nhostname a\n", 2) == [("hostname a",)]
