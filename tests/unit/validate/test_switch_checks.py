"""Switch checks fail on the right port when the collected show outputs say so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpunet.lab.switchsim.personalities.queue_counters import eos_counters_queue_detail
from gpunet.validate.judge import judge
from gpunet.validate.results import Status
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"

_JUNOS_Q3_DROPS = "Queue: 3, Forwarding classes: no-loss\n" + "\n".join(
    [
        "  Queued:",
        "    Packets              :                981234                     0 pps",
        "    Bytes                :            1004783616                     0 bps",
        "  Transmitted:",
        "    Packets              :                981234                     0 pps",
        "    Bytes                :            1004783616                     0 bps",
        "    Tail-dropped packets :                     0",
    ]
)


def _eos_tc3(port: str, enqueued: int, drops: int | str = 0, dest: str = "UC") -> str:
    """A queue-3 row of EOS `show interfaces counters queue detail`, up to its OutDropPkts column."""
    return f"{port:<19}{'TC3':>7}{'DP0-3':>11}{dest:>11}{enqueued:>18}{enqueued * 1024:>18}{drops:>18}"


def _edit_json(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        document = json.loads(text)
        change(document)
        return json.dumps(document, indent=2)

    return edit


def _tc3(document: dict[str, Any], port: str) -> dict[str, Any]:
    classes = document["egressQueueCounters"]["interfaces"][port]["ucastQueues"]["trafficClasses"]
    return classes["TC3"]["dropPrecedences"]["DP0"]


def _as_detail_text(text: str) -> str:
    """The same counters as the text `show interfaces counters queue detail` table."""
    interfaces = json.loads(text)["egressQueueCounters"]["interfaces"]
    # The JSON holds no enqueued count: the fixture's traffic (981234 on TC3 after the tests, 12 elsewhere).
    rows = [
        (
            port,
            int(tc[2:]),
            981234 if tc == "TC3" else 12,
            detail["dropPrecedences"]["DP0"]["droppedPackets"],
            0,
        )
        for port, body in interfaces.items()
        for tc, detail in body["ucastQueues"]["trafficClasses"].items()
    ]
    return eos_counters_queue_detail(rows) + "\n"


def _then(first: Callable[[str], str], old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        converted = first(text)
        assert old in converted, "the converted fixture no longer holds the line this case edits"
        return converted.replace(old, new, 1)

    return change


_QUEUE = "eos-show-interfaces-counters-queue.txt"
_ECN = "eos-show-qos-ecn-counters-queue.txt"

# (file under switches/, text to replace or None, replacement text or a function of the whole
#  file, the (check, target, status) results expected)
CASES = [
    (
        f"leaf03/after/{_QUEUE}",
        None,
        _edit_json(lambda d: _tc3(d, "Ethernet2/1").update(droppedPackets=42)),
        {("lossless_queue_drops", "leaf03:Ethernet2/1", Status.FAIL)},
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        _edit_json(
            lambda d: d["egressQueueCounters"]["interfaces"]["Ethernet5/1"]["ucastQueues"][
                "trafficClasses"
            ].pop("TC3")
        ),
        {("lossless_queue_drops", "leaf04:Ethernet5/1", Status.FAIL)},  # JSON lists every queue
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        lambda t: t[: len(t) // 3],
        {("lossless_queue_drops", "leaf04", Status.ERROR)},
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        _edit_json(lambda d: _tc3(d, "Ethernet5/1").update(droppedPackets="n/a")),
        {("lossless_queue_drops", "leaf04", Status.ERROR)},
    ),
    # The text `detail` table (7800R-style capture layout): idle queues have no row.
    (
        f"leaf03/after/{_QUEUE}",
        None,
        _then(_as_detail_text, _eos_tc3("Et2/1", 981234), _eos_tc3("Et2/1", 981234, 42)),
        {("lossless_queue_drops", "leaf03:Ethernet2/1", Status.FAIL)},
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        _then(_as_detail_text, _eos_tc3("Et5/1", 981234) + f"{0:>18}\n", ""),
        set(),  # no row is 0 drops, not a failure
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        _then(_as_detail_text, _eos_tc3("Et5/1", 981234), _eos_tc3("Et5/1", 981234, dest="MC")),
        set(),  # multicast rows are not the lossless queue; the unicast row is absent = 0 drops
    ),
    (
        f"leaf04/after/{_QUEUE}",
        None,
        _then(
            _as_detail_text, _eos_tc3("Et5/1", 981234), _eos_tc3("Et5/1", 981234).rsplit(" ", 1)[0].rstrip()
        ),
        {("lossless_queue_drops", "leaf04", Status.ERROR)},  # a row cut short
    ),
    (
        f"leaf03/after/{_ECN}",
        None,
        _edit_json(lambda d: d["intfQueueCounters"]["Ethernet1/1"]["queueCounters"].update({"3": "-"})),
        {("switch_ecn", "leaf03:Ethernet1/1", Status.FAIL)},  # "-": the queue counts no ECN marks
    ),
    (
        f"leaf03/after/{_ECN}",
        None,
        _edit_json(lambda d: d["intfQueueCounters"].pop("Ethernet4/1")),
        {("switch_ecn", "leaf03:Ethernet4/1", Status.FAIL)},
    ),
    (f"spine01/before/{_ECN}", None, lambda t: t + "}", {("switch_ecn", "spine01", Status.ERROR)}),
    (
        "leaf08/after/junos-show-interfaces-queue.txt",
        _JUNOS_Q3_DROPS,
        _JUNOS_Q3_DROPS.replace(
            "Tail-dropped packets :                     0", "Tail-dropped packets :                    12"
        ),
        {("lossless_queue_drops", "leaf08:et-0/0/0", Status.FAIL)},
    ),
    (
        "leaf08/after/junos-show-interfaces-queue.txt",
        "    ECN-CE packets       :                  5521",
        "    ECN-CE packets       :         Not Available",
        {("switch_ecn", "leaf08:et-0/0/0", Status.FAIL)},
    ),
    (
        "leaf07/after/sonic-show-queue-counters.txt",
        "Ethernet8    UC3          981234       1004783616            0",
        "Ethernet8    UC3          981234       1004783616           17",
        {("lossless_queue_drops", "leaf07:Ethernet8", Status.FAIL)},
    ),
    (
        "leaf07/after/sonic-show-pfc-priority.txt",
        "Ethernet16   3",
        "Ethernet16   ",
        {
            ("switch_pfc", "leaf07:Ethernet16", Status.FAIL),
            ("link_qos", "gpu03:mlx5_6<->leaf07:Ethernet16", Status.FAIL),
        },
    ),
    (
        "leaf01/after/nxos-show-interface-pfc.txt",
        "Ethernet1/2        On   On  (8)",
        "Ethernet1/2        Auto Off     ",
        {
            ("switch_pfc", "leaf01:Ethernet1/2", Status.FAIL),
            ("link_qos", "gpu02:mlx5_0<->leaf01:Ethernet1/2", Status.FAIL),
        },
    ),
    (
        "leaf05/after/cumulus-nv-show-qos-roce.txt",
        "  enabled-tc        0,3",
        "  enabled-tc        0",
        {("switch_ecn", "leaf05", Status.FAIL)},
    ),
    (
        "leaf07/after/sonic-show-ecn.txt",
        "green_min_threshold      153600",
        "green_min_threshold      1048576",
        {("switch_ecn", "leaf07", Status.FAIL)},
    ),
    (
        "leaf07/after/sonic-show-pfc-priority.txt",
        "Interface    Lossless priorities",
        "Error: Got unexpected extra argument",
        {("switch_pfc", "leaf07", Status.ERROR)},
    ),
    (
        "leaf05/after/cumulus-nv-show-qos-roce.txt",
        "                    operational            applied",
        "Error: Invalid command",
        {("switch_pfc", "leaf05", Status.ERROR), ("switch_ecn", "leaf05", Status.ERROR)},
    ),
]


@pytest.mark.parametrize(("relative", "old", "new", "expected"), CASES)
def test_switch_problem_is_reported_on_its_port(
    tmp_path: Path,
    relative: str,
    old: str | None,
    new: str | Callable[[str], str],
    expected: set[tuple[str, str, Status]],
) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    path = folder / "switches" / relative
    text = path.read_text()
    if callable(new):
        path.write_text(new(text))
    else:
        assert old in text, "the fixture no longer holds the line this case edits"
        path.write_text(text.replace(old, new, 1))  # the first occurrence: the first port
    results = judge(folder).results
    problems = {
        (r.check, r.target, r.status) for r in results if r.status not in (Status.PASS, Status.NOT_CHECKED)
    }
    assert problems == expected
