"""NVUE per-interface QoS counters as `nv show interface <swp> ... -o json` prints them.

LAB EQUIPMENT: the JSON documents of NVIDIA's NVUE OpenAPI spec for Cumulus Linux 5.3.0
(`/interface/{interface-id}/qos/counters/pfc-stats`, `.../qos/counters/egress-queue-stats`,
`.../qos/roce/counters`; the field names are the spec's, see gpunet.validate.parsers.cumulus_incast),
filled from the simulator's per-port counters (eight integers each; absent = zero):
`rx_pfc`/`tx_pfc` pause frames per switch priority; `tx_queue` transmitted packets, `tx_drop`
(tail drops: tx-uc-buffer-discards) and `wred_drop` (wred-discards) per traffic class; `ecn_marked`
per traffic class, summed into the port's RoCE tx-ecn-stats over the RoCE class (the lossless
priority: `roce_priority`, 3 unless the test says otherwise). Bytes are packets x 1024, as the
other OSes' queue printers count them. Durations and buffer usages are printed as 0.
"""

from __future__ import annotations

import json
import re

from gpunet.lab.switchsim.state import SwitchState

BYTES_PER_PACKET = 1024
COMMANDS = {
    "pfc-stats": re.compile(r"nv show interface (\S+) qos counters pfc-stats (?:-o|--output) json"),
    "egress-queue-stats": re.compile(
        r"nv show interface (\S+) qos counters egress-queue-stats (?:-o|--output) json"
    ),
    "roce-counters": re.compile(r"nv show interface (\S+) qos roce counters (?:-o|--output) json"),
}


def _eight(counters: dict[str, list[int]], key: str) -> list[int]:
    return counters.get(key, [0] * 8)


def pfc_stats(state: SwitchState, port: str) -> dict[str, dict[str, int]]:
    counters = state.counters[port]
    rx, tx = _eight(counters, "rx_pfc"), _eight(counters, "tx_pfc")
    return {
        str(prio): {
            "rx-pause-frames": rx[prio],
            "rx-pause-duration": 0,
            "tx-pause-frames": tx[prio],
            "tx-pause-duration": 0,
        }
        for prio in range(8)
    }


def egress_queue_stats(state: SwitchState, port: str) -> dict[str, dict[str, int]]:
    counters = state.counters[port]
    sent, tail, wred = (
        _eight(counters, "tx_queue"),
        _eight(counters, "tx_drop"),
        _eight(counters, "wred_drop"),
    )
    return {
        str(tc): {
            "tx-frames": sent[tc],
            "tx-bytes": sent[tc] * BYTES_PER_PACKET,
            "red-dropped-packets": 0,
            "tx-uc-buffer-discards": tail[tc],
            "wred-discards": wred[tc],
        }
        for tc in range(8)
    }


def roce_counters(state: SwitchState, port: str, roce_priority: int = 3) -> dict[str, object]:
    counters = state.counters[port]
    rx, tx = _eight(counters, "rx_pfc"), _eight(counters, "tx_pfc")
    sent, tail = _eight(counters, "tx_queue"), _eight(counters, "tx_drop")
    prio = roce_priority
    return {
        "rx-stats": {
            "rx-pfc-stats": {"pause-duration": 0, "pause-packets": rx[prio]},
            "rx-roce-stats": {
                "buffer-max-usage": 0,
                "buffer-usage": 0,
                "no-buffer-discard": 0,
                "roce-packets": 0,
                "roce-bytes": 0,
                "pg-max-usage": 0,
                "pg-usage": 0,
            },
        },
        "tx-stats": {
            "tx-pfc-stats": {"pause-duration": 0, "pause-packets": tx[prio]},
            "tx-roce-stats": {
                "buffer-max-usage": 0,
                "buffer-usage": 0,
                "roce-bytes": sent[prio] * BYTES_PER_PACKET,
                "roce-packets": sent[prio],
                "tc-max-usage": 0,
                "tc-usage": 0,
                "unicast-no-buffer-discard": tail[prio],
            },
            "tx-ecn-stats": {"ecn-marked-packets": _eight(counters, "ecn_marked")[prio]},
        },
    }


PRINTERS = {"pfc-stats": pfc_stats, "egress-queue-stats": egress_queue_stats, "roce-counters": roce_counters}


def answer(state: SwitchState, command: str) -> str | None:
    """The switch's answer to one of COMMANDS, else None (not one of them)."""
    for name, pattern in COMMANDS.items():
        if match := pattern.fullmatch(command):
            port = match[1]
            if port not in state.counters:
                return f"Error: interface {port} does not exist"
            return json.dumps(PRINTERS[name](state, port), indent=2)
    return None
